import QtQuick
import QtQuick.Controls.impl
import Folio.Ui

// One of the app's SVG icons, tinted.
IconImage {
    id: icon
    required property string glyph
    property int size: 18
    source: "qrc:/folio/icons/" + glyph + ".svg"
    sourceSize: Qt.size(size, size)
    width: size
    height: size
    color: Theme.textMuted
}
