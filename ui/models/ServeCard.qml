import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio
import Folio.Ui

// "Serve on localhost": the loaded model over the OpenAI API (editors, scripts, agents), through the
// app's own engine. A thin view over LocalServer.
Card {
    id: card
    required property LocalServer server
    implicitHeight: col.implicitHeight + 2 * Theme.l
    ColumnLayout {
        id: col
        anchors.fill: parent
        anchors.margins: Theme.l
        spacing: Theme.s
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.m
            Text { text: qsTr("Serve on localhost"); color: Theme.text; font.pixelSize: Theme.fontBody; font.weight: Font.DemiBold }
            Item { Layout.fillWidth: true }
            Text { text: qsTr("Port"); color: Theme.textMuted; font.pixelSize: Theme.fontSmall + 1 }
            SpinBox {
                objectName: "servePortBox"
                from: 1
                to: 65535
                editable: true
                value: card.server.port
                textFromValue: function(v) { return String(v) }  // no thousands separator
                onValueModified: card.server.port = value
            }
            ThemedSwitch {
                objectName: "serveSwitch"
                checked: card.server.enabled
                onToggled: card.server.enabled = checked
            }
        }
        Text {
            objectName: "serveStatus"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: card.server.status
            color: card.server.error.length > 0 ? Theme.danger : Theme.textMuted
            font.pixelSize: Theme.fontSmall
        }
        TextEdit {
            objectName: "serveUrl"
            visible: card.server.listening
            Layout.fillWidth: true
            readOnly: true
            selectByMouse: true
            text: card.server.url
            color: Theme.text
            font.family: "monospace"
            font.pixelSize: Theme.fontSmall + 1
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s
            TextField {
                id: keyField
                objectName: "serveKeyField"
                Layout.fillWidth: true
                echoMode: TextInput.Password
                placeholderText: card.server.hasApiKey ? qsTr("an API key is set: other machines may connect with it; type a new one to replace it")
                                                       : qsTr("API key (optional): with one, other machines may connect too")
                font.pixelSize: Theme.fontBody
                color: Theme.text
                placeholderTextColor: Theme.textFaint
                padding: Theme.s + 2
                background: Rectangle { radius: Theme.radius; color: Theme.surface; border.color: keyField.activeFocus ? Theme.accent : Theme.border }
                onAccepted: saveKey.clicked()
            }
            PillButton {
                id: saveKey
                text: qsTr("Set key")
                enabled: keyField.text.trim().length > 0
                onClicked: { card.server.setApiKey(keyField.text); keyField.clear() }
            }
            PillButton {
                visible: card.server.hasApiKey
                text: qsTr("Remove key")
                onClicked: card.server.setApiKey("")
            }
        }
    }
}
