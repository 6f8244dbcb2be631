import QtQuick
import QtQuick.Layouts
import Folio.Ui

// "‹ 2 / 3 ›": moves between the alternatives at one point of the conversation (branches), or
// between the drafts of one reply.
RowLayout {
    id: sw
    required property int index
    required property int count
    property string previousTip: qsTr("Previous branch")
    property string nextTip: qsTr("Next branch")
    signal step(int delta)
    spacing: 0
    IconButton { iconName: "chevron-left"; iconSize: 14; implicitWidth: 24; implicitHeight: 28; enabled: sw.index > 1; tip: sw.previousTip; onClicked: sw.step(-1) }
    Text {
        text: sw.index + " / " + sw.count
        color: Theme.textMuted
        font.pixelSize: Theme.fontSmall
    }
    IconButton { iconName: "chevron-right"; iconSize: 14; implicitWidth: 24; implicitHeight: 28; enabled: sw.index < sw.count; tip: sw.nextTip; onClicked: sw.step(1) }
}
