import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio.Ui

// A modal question with a destructive confirm button (delete a chat, a model, a download).
Dialog {
    id: dialog
    property string message: ""
    property string confirmText: qsTr("OK")
    signal confirmed()
    parent: Overlay.overlay
    anchors.centerIn: parent
    modal: true
    width: 420
    padding: Theme.xl
    topPadding: Theme.xl
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
    contentItem: ColumnLayout {
        spacing: Theme.xl
        Text {
            Layout.fillWidth: true
            text: dialog.message
            wrapMode: Text.Wrap
            color: Theme.textMuted
            font.pixelSize: Theme.fontBody
        }
        RowLayout {
            Layout.alignment: Qt.AlignRight
            spacing: Theme.s
            PillButton { objectName: "cancelButton"; text: qsTr("Cancel"); onClicked: dialog.close() }
            PillButton {
                objectName: "confirmButton"
                text: dialog.confirmText
                destructive: true
                onClicked: { dialog.close(); dialog.confirmed() }
            }
        }
    }
}
