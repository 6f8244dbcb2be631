import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio
import Folio.Ui

// "Connect to a server": chats go to an OpenAI-compatible server (folio-server, vLLM, llama.cpp's
// server) instead of a local model. A thin view over RemoteConnection.
Card {
    id: card
    required property RemoteConnection remote
    required property EngineBridge engine
    implicitHeight: col.implicitHeight + 2 * Theme.l
    component Field: TextField {
        id: f
        Layout.fillWidth: true
        font.pixelSize: Theme.fontBody
        color: Theme.text
        placeholderTextColor: Theme.textFaint
        padding: Theme.s + 2
        background: Rectangle { radius: Theme.radius; color: Theme.surface; border.color: f.activeFocus ? Theme.accent : Theme.border }
    }
    // What is typed counts at once: the buttons take the field's text, Enter or leaving it not needed.
    function takeEndpoint() {
        const typed = endpointField.text.trim()
        if (typed !== card.remote.endpoint) card.remote.endpoint = typed
    }
    readonly property bool hasEndpoint: endpointField.text.trim().length > 0
    ColumnLayout {
        id: col
        anchors.fill: parent
        anchors.margins: Theme.l
        spacing: Theme.s
        Text { text: qsTr("Connect to a server"); color: Theme.text; font.pixelSize: Theme.fontBody; font.weight: Font.DemiBold }
        Field {
            id: endpointField
            objectName: "remoteEndpointField"
            text: card.remote.endpoint
            placeholderText: qsTr("http://127.0.0.1:8000/v1 — any OpenAI-compatible server")
            onEditingFinished: card.remote.endpoint = text
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s
            Field {
                id: keyField
                objectName: "remoteKeyField"
                echoMode: TextInput.Password
                placeholderText: card.remote.hasApiKey ? qsTr("an API key is saved; type a new one to replace it") : qsTr("API key (optional)")
                onEditingFinished: if (text.trim().length > 0) { card.remote.setApiKey(text); clear() }
            }
            PillButton {
                visible: card.remote.hasApiKey
                text: qsTr("Forget key")
                onClicked: card.remote.setApiKey("")
            }
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s
            ThemedComboBox {
                objectName: "remoteModelBox"
                Layout.fillWidth: true
                implicitHeight: 32
                model: card.remote.models.length > 0 ? card.remote.models : (card.remote.model.length > 0 ? [card.remote.model] : [])
                currentIndex: Math.max(0, model.indexOf(card.remote.model))
                onActivated: card.remote.model = currentText
            }
            PillButton {
                text: card.remote.fetching ? qsTr("Asking…") : qsTr("List models")
                objectName: "remoteListModelsButton"
                enabled: !card.remote.fetching && card.hasEndpoint
                onClicked: { card.takeEndpoint(); card.remote.fetchModels() }
            }
            PillButton {
                objectName: "remoteConnectButton"
                primary: true
                text: qsTr("Connect")
                enabled: card.hasEndpoint && card.engine.state !== EngineBridge.Loading
                onClicked: { card.takeEndpoint(); card.remote.connectToServer() }
            }
        }
        Text {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            visible: text.length > 0
            text: card.remote.error.length > 0 ? card.remote.error
                  : card.remote.connected ? qsTr("Chats go to %1 at %2").arg(card.engine.modelName).arg(card.engine.device) : ""
            color: card.remote.error.length > 0 ? Theme.danger : Theme.textMuted
            font.pixelSize: Theme.fontSmall
        }
    }
}
