import QtQuick
import QtQuick.Layouts
import Folio.Ui

// "‹ 2 / 3 ›": moves between the alternatives at one point of the conversation.
RowLayout {
    id: sw
    required property int index
    required property int count
    signal step(int delta)
    spacing: 0
    IconButton { iconName: "chevron-left"; iconSize: 14; implicitWidth: 24; implicitHeight: 28; enabled: sw.index > 1; tip: qsTr("Previous branch"); onClicked: sw.step(-1) }
    Text {
        text: sw.index + " / " + sw.count
        color: Theme.textMuted
        font.pixelSize: Theme.fontSmall
    }
    IconButton { iconName: "chevron-right"; iconSize: 14; implicitWidth: 24; implicitHeight: 28; enabled: sw.index < sw.count; tip: qsTr("Next branch"); onClicked: sw.step(1) }
}
