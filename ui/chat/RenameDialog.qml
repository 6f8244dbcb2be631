import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio.Ui

// Rename a chat.
Dialog {
    id: dialog
    property string initialTitle: ""
    signal renamed(string newTitle)
    parent: Overlay.overlay
    anchors.centerIn: parent
    modal: true
    width: 420
    padding: Theme.xl
    title: qsTr("Rename chat")
    onOpened: { field.text = initialTitle; field.selectAll(); field.forceActiveFocus() }
    background: Rectangle { color: Theme.surface; radius: Theme.radiusLarge; border.color: Theme.border }
    Overlay.modal: Rectangle { color: Theme.dark ? "#99000000" : "#55000000" }
    header: Text {
        text: dialog.title
        padding: Theme.xl
        bottomPadding: 0
        color: Theme.text
        font.pixelSize: Theme.fontLarge + 1
        font.weight: Font.DemiBold
    }
    function accept_() { if (field.text.trim().length) { dialog.renamed(field.text); dialog.close() } }
    contentItem: ColumnLayout {
        spacing: Theme.xl
        TextField {
            id: field
            Layout.fillWidth: true
            font.pixelSize: Theme.fontBody
            color: Theme.text
            padding: Theme.m
            background: Rectangle { radius: Theme.radius; color: Theme.surface; border.color: field.activeFocus ? Theme.accent : Theme.border }
            onAccepted: dialog.accept_()
        }
        RowLayout {
            Layout.alignment: Qt.AlignRight
            spacing: Theme.s
            PillButton { text: qsTr("Cancel"); onClicked: dialog.close() }
            PillButton { text: qsTr("Rename"); primary: true; onClicked: dialog.accept_() }
        }
    }
}
