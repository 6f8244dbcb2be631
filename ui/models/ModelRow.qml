import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio.Ui

// A model to load: its name, where it is, a note, and Load.
Card {
    id: row
    required property string spec
    property string name: spec
    property string note: ""
    property bool current: false
    property bool busy: false
    property bool removable: false
    signal loadRequested()
    signal removeRequested()
    implicitHeight: 64
    border.color: current ? Theme.accent : Theme.border
    RowLayout {
        anchors.fill: parent
        anchors.leftMargin: Theme.l
        anchors.rightMargin: Theme.m
        spacing: Theme.m
        Icon { glyph: row.spec.startsWith("dummy:") ? "sparkle" : "folder"; color: row.current ? Theme.accent : Theme.textMuted }
        ColumnLayout {
            Layout.fillWidth: true
            spacing: 2
            Text { text: row.name; color: Theme.text; font.pixelSize: Theme.fontBody; font.weight: Font.Medium; elide: Text.ElideMiddle; Layout.fillWidth: true }
            Text { text: row.note.length ? row.note : row.spec; color: Theme.textFaint; font.pixelSize: Theme.fontSmall; elide: Text.ElideMiddle; Layout.fillWidth: true }
        }
        Chip { visible: row.current; text: qsTr("loaded"); tint: Theme.success }
        IconButton { visible: row.removable; iconName: "close"; iconSize: 14; tip: qsTr("Remove from recent"); onClicked: row.removeRequested() }
        PillButton {
            objectName: "load_" + row.spec
            implicitHeight: 32
            text: row.current ? qsTr("Reload") : qsTr("Load")
            enabled: !row.busy
            onClicked: row.loadRequested()
        }
    }
}
