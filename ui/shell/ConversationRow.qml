import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio
import Folio.Ui

// One chat in the sidebar: title, time, a pulse while it generates, rename/delete on hover.
ItemDelegate {
    id: row
    required property var conversationId
    required property string title
    required property string when
    required property bool generating
    required property AppController app
    property bool current: false
    signal chosen()

    implicitHeight: 38
    leftPadding: Theme.s + 2
    rightPadding: Theme.xs
    onClicked: chosen()

    contentItem: RowLayout {
        spacing: Theme.s
        Rectangle {
            visible: row.generating
            width: 8; height: 8; radius: 4
            color: Theme.accent
            SequentialAnimation on opacity {
                running: row.generating
                loops: Animation.Infinite
                NumberAnimation { to: 0.25; duration: 600 }
                NumberAnimation { to: 1; duration: 600 }
            }
        }
        Text {
            Layout.fillWidth: true
            text: row.title
            elide: Text.ElideRight
            color: Theme.text
            font.pixelSize: Theme.fontBody
            font.weight: row.current ? Font.Medium : Font.Normal
        }
        Text {
            visible: !row.hovered
            text: row.when
            color: Theme.textFaint
            font.pixelSize: Theme.fontSmall
        }
        IconButton {
            visible: row.hovered
            iconName: "rename"; iconSize: 15
            implicitWidth: 26; implicitHeight: 26
            tip: qsTr("Rename")
            onClicked: renameDialog.open()
        }
        IconButton {
            visible: row.hovered
            iconName: "trash"; iconSize: 15
            implicitWidth: 26; implicitHeight: 26
            tip: qsTr("Delete")
            onClicked: confirmDelete.open()
        }
    }
    background: Rectangle {
        radius: Theme.radiusSmall
        color: row.current ? Theme.selected : row.hovered ? Theme.hover : "transparent"
    }

    RenameDialog {
        id: renameDialog
        initialTitle: row.title
        onRenamed: (newTitle) => row.app.chat.rename(row.conversationId, newTitle)
    }
    ConfirmDialog {
        id: confirmDelete
        title: qsTr("Delete this chat?")
        message: qsTr("“%1” and all its messages and branches will be deleted. This cannot be undone.").arg(row.title)
        confirmText: qsTr("Delete")
        onConfirmed: row.app.chat.remove(row.conversationId)
    }
}
