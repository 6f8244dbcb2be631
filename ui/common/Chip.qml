import QtQuick
import Folio.Ui

// A small rounded label (model name, preset, status).
Rectangle {
    id: chip
    property alias text: label.text
    property color tint: Theme.textMuted
    property color fill: Theme.surfaceAlt
    implicitWidth: label.implicitWidth + 2 * Theme.s + 4
    implicitHeight: 22
    radius: height / 2
    color: fill
    Text {
        id: label
        anchors.centerIn: parent
        color: chip.tint
        font.pixelSize: Theme.fontSmall
        font.weight: Font.Medium
        elide: Text.ElideRight
    }
}
