import QtQuick
import Folio.Ui

// The small caption above a form field or a group.
Text {
    color: Theme.textMuted
    font.pixelSize: Theme.fontSmall
    font.weight: Font.DemiBold
    font.capitalization: Font.AllUppercase
    font.letterSpacing: 0.6
}
