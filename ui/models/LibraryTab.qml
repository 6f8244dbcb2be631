import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QtQuick.Dialogs
import Folio
import Folio.Ui

// The local library: the load status, opening a folder, the demo model, and every local model (the
// hub cache and the folders opened before) with its facts and whether it fits.
ScrollView {
    id: tab
    required property AppController app
    readonly property EngineBridge engine: app.engine
    readonly property bool loading: engine.state === EngineBridge.Loading
    property string folderProblem: ""
    // The person asked to go and chat (loading a model never changes the view by itself).
    signal chatRequested()
    contentWidth: availableWidth

    function load(spec) {
        folderProblem = tab.app.library.folderProblem(spec)
        if (folderProblem.length === 0) tab.app.loadModel(spec)
    }

    ColumnLayout {
        width: Math.min(tab.availableWidth - 2 * Theme.xl, 760)
        x: (tab.availableWidth - width) / 2
        spacing: Theme.l
        Item { height: Theme.s }

        ColumnLayout {
            visible: tab.engine.state === EngineBridge.NoModel
            Layout.fillWidth: true
            Layout.topMargin: Theme.l
            Layout.bottomMargin: Theme.s
            spacing: Theme.xs
            Text { text: qsTr("No model loaded yet"); color: Theme.text; font.pixelSize: Theme.fontTitle + 2; font.weight: Font.DemiBold }
            Text {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: qsTr("Download one under Download, open a checkpoint you already have, or load the demo model to look around first. Folio remembers the last model and loads it at the next start.")
                color: Theme.textMuted
                font.pixelSize: Theme.fontBody
            }
        }

        // Status: loading, failed, ready.
        Card {
            Layout.fillWidth: true
            visible: tab.engine.state !== EngineBridge.NoModel
            implicitHeight: statusCol.implicitHeight + 2 * Theme.l
            border.color: tab.engine.lastError.length > 0 ? Theme.danger : Theme.border
            ColumnLayout {
                id: statusCol
                anchors.fill: parent
                anchors.margins: Theme.l
                spacing: Theme.s
                Text {
                    text: tab.loading ? qsTr("Loading %1…").arg(tab.app.library.displayName(tab.engine.loadingSpec))
                         : tab.engine.state === EngineBridge.Failed ? qsTr("Could not load %1").arg(tab.app.library.displayName(tab.engine.loadingSpec))
                         : qsTr("%1 is ready").arg(tab.engine.modelName)
                    color: tab.engine.state === EngineBridge.Failed ? Theme.danger : Theme.text
                    font.pixelSize: Theme.fontLarge
                    font.weight: Font.DemiBold
                }
                LoadProgressBar {
                    objectName: "loadProgress"
                    visible: tab.loading
                    Layout.fillWidth: true
                    engine: tab.engine
                }
                Text {
                    objectName: "loadError"
                    // A failed load keeps the model loaded before (Ready): the error shows beside it.
                    visible: !tab.loading && tab.engine.lastError.length > 0
                    Layout.fillWidth: true
                    text: tab.engine.state === EngineBridge.Ready
                          ? qsTr("Could not load %1 (%2 stays loaded): %3").arg(tab.app.library.displayName(tab.engine.failedSpec))
                                .arg(tab.engine.modelName).arg(tab.engine.lastError)
                          : tab.engine.lastError
                    wrapMode: Text.Wrap
                    color: Theme.text
                    font.pixelSize: Theme.fontBody
                    font.family: Theme.monoFamily
                }
                Text {
                    objectName: "switchWarning"
                    // Said before the person loads another model: the API requests it would end.
                    visible: tab.engine.switchWarning.length > 0
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    text: qsTr("Loading another model now: %1").arg(tab.engine.switchWarning)
                    color: Theme.danger
                    font.pixelSize: Theme.fontBody
                }
                Text {
                    visible: tab.engine.state === EngineBridge.Ready
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    text: qsTr("%1 · %2 · context %3 tokens · %4 on %5")
                          .arg(tab.engine.architecture).arg(tab.engine.quantization).arg(tab.engine.contextLength)
                          .arg(tab.engine.backendName.toUpperCase()).arg(tab.engine.device)
                    color: Theme.textMuted
                    font.pixelSize: Theme.fontBody
                }
                PillButton {
                    objectName: "startChatting"
                    visible: tab.engine.state === EngineBridge.Ready
                    primary: true
                    iconName: "chat"
                    text: qsTr("Start chatting")
                    onClicked: tab.chatRequested()
                }
            }
        }

        ServeCard { Layout.fillWidth: true; server: tab.app.localServer }
        RemoteCard { Layout.fillWidth: true; remote: tab.app.remote; engine: tab.engine }

        FieldLabel { text: qsTr("Open a model") }
        Card {
            Layout.fillWidth: true
            implicitHeight: openCol.implicitHeight + 2 * Theme.l
            ColumnLayout {
                id: openCol
                anchors.fill: parent
                anchors.margins: Theme.l
                spacing: Theme.m
                Text {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    color: Theme.textMuted
                    font.pixelSize: Theme.fontBody
                    text: qsTr("Folio reads Hugging Face model folders from this computer: Llama-2, Llama-3.x, Mistral, Qwen2/Qwen2.5 and Qwen3 checkpoints as fp16/bf16/fp32 .safetensors, AutoAWQ 4-bit (GEMM), compressed-tensors 4-bit (W4A16) or FP8, with config.json and tokenizer.json or tokenizer.model. For example Qwen/Qwen2.5-7B-Instruct-AWQ or hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4.")
                }
                RowLayout {
                    spacing: Theme.s
                    PillButton {
                        objectName: "openFolderButton"
                        primary: true
                        iconName: "folder"
                        text: qsTr("Open model folder…")
                        // Off when the file dialog cannot be made (a missing QML module; the banner says which).
                        enabled: !tab.loading && tab.app.fileDialogProblem.length === 0
                        onClicked: folderDialog.open()
                    }
                    TextField {
                        id: pathField
                        Layout.fillWidth: true
                        placeholderText: qsTr("or paste a folder path and press Enter")
                        font.pixelSize: Theme.fontBody
                        color: Theme.text
                        placeholderTextColor: Theme.textFaint
                        padding: Theme.s + 2
                        background: Rectangle { radius: Theme.radius; color: Theme.surface; border.color: pathField.activeFocus ? Theme.accent : Theme.border }
                        onAccepted: tab.load(text.trim())
                    }
                }
                Text {
                    visible: tab.folderProblem.length > 0
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    text: tab.folderProblem
                    color: Theme.danger
                    font.pixelSize: Theme.fontBody
                }
            }
        }

        FieldLabel { text: qsTr("Try it now") }
        Repeater {
            model: tab.app.library.demoModels
            delegate: ModelRow {
                required property string modelData
                Layout.fillWidth: true
                spec: modelData
                name: qsTr("Demo model (%1)").arg(modelData)
                note: qsTr("Random weights at a tiny size: it loads instantly and writes nonsense, so you can try every part of the app.")
                current: tab.engine.state === EngineBridge.Ready && tab.engine.modelSpec === modelData
                busy: tab.loading
                onLoadRequested: tab.load(modelData)
            }
        }

        RowLayout {
            Layout.fillWidth: true
            visible: tab.app.localModels.count > 0
            FieldLabel { text: qsTr("On this computer"); Layout.fillWidth: true }
            Text { text: tab.app.fitter.deviceText; color: Theme.textFaint; font.pixelSize: Theme.fontSmall }
        }
        Text {
            visible: tab.app.localModels.error.length > 0
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: tab.app.localModels.error
            color: Theme.danger
            font.pixelSize: Theme.fontBody
        }
        Repeater {
            model: tab.app.localModels
            delegate: LibraryRow {
                Layout.fillWidth: true
                current: tab.engine.state === EngineBridge.Ready && tab.engine.modelSpec === path
                busy: tab.loading
                onLoadRequested: tab.load(path)
                onRemoveRequested: tab.app.localModels.remove(index)
            }
        }
        Item { height: Theme.xl }
    }

    FolderDialog {
        id: folderDialog
        objectName: "modelFolderDialog"
        title: qsTr("Choose a Hugging Face model folder")
        onAccepted: tab.load(tab.app.library.localPath(selectedFolder))
    }
}
