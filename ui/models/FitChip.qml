import QtQuick
import Folio.Ui

// Whether a model fits this computer: "fits" in green, "too large" in red, grey when not known.
Chip {
    property string fits: "unknown"
    text: fits === "yes" ? qsTr("fits") : fits === "no" ? qsTr("too large") : qsTr("fit unknown")
    tint: fits === "yes" ? Theme.success : fits === "no" ? Theme.danger : Theme.textMuted
}
