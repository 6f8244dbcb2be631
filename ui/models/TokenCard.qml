import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio
import Folio.Ui

// The Hugging Face access token, for gated repositories (meta-llama and the like): kept in Folio's
// settings, never shown again or logged. Also where downloads go and which Hub answers.
Card {
    id: card
    required property AppController app
    implicitHeight: col.implicitHeight + 2 * Theme.l
    ColumnLayout {
        id: col
        anchors.fill: parent
        anchors.margins: Theme.l
        spacing: Theme.s
        Text {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            color: Theme.textMuted
            font.pixelSize: Theme.fontSmall
            text: card.app.hubAccount.offline
                  ? qsTr("Offline (HF_HUB_OFFLINE): nothing is fetched; models already in %1 can be loaded.").arg(card.app.hubAccount.cacheDir)
                  : qsTr("From %1 into %2 (the Hugging Face cache, shared with huggingface-cli, vLLM and llama.cpp).")
                    .arg(card.app.hubAccount.endpoint).arg(card.app.hubAccount.cacheDir)
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s
            TextField {
                id: tokenField
                objectName: "tokenField"
                Layout.fillWidth: true
                echoMode: TextInput.Password
                placeholderText: card.app.hubAccount.tokenSource === "app" ? qsTr("a token is saved; type a new one to replace it")
                                 : card.app.hubAccount.tokenSource === "environment" ? qsTr("using HF_TOKEN; a token typed here wins")
                                 : card.app.hubAccount.tokenSource === "login" ? qsTr("using your huggingface-cli login; a token typed here wins")
                                 : qsTr("Hugging Face token (hf_…) for gated models such as meta-llama")
                font.pixelSize: Theme.fontBody
                color: Theme.text
                placeholderTextColor: Theme.textFaint
                padding: Theme.s + 2
                background: Rectangle { radius: Theme.radius; color: Theme.surface; border.color: tokenField.activeFocus ? Theme.accent : Theme.border }
                onAccepted: saveButton.clicked()
            }
            PillButton {
                id: saveButton
                objectName: "saveTokenButton"
                text: qsTr("Save token")
                enabled: tokenField.text.trim().length > 0
                onClicked: { card.app.hubAccount.setToken(tokenField.text); tokenField.clear() }
            }
            PillButton {
                visible: card.app.hubAccount.tokenSource === "app"
                text: qsTr("Forget")
                onClicked: card.app.hubAccount.clearToken()
            }
        }
    }
}
