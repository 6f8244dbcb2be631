import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QtQuick.Dialogs
import Folio
import Folio.Ui

// Choosing a model: a local Hugging Face folder (checked first, then the engine's own verdict), the
// demo model, recent models, the backend, and the load progress.
Item {
    id: view
    required property AppController app
    readonly property EngineBridge engine: app.engine
    readonly property bool loading: engine.state === EngineBridge.Loading
    property string folderProblem: ""
    // The person asked to go and chat (loading a model never changes the view by itself).
    signal chatRequested()

    function load(spec) {
        folderProblem = view.app.library.folderProblem(spec)
        if (folderProblem.length === 0) view.app.loadModel(spec)
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 0
        RowLayout {
            Layout.fillWidth: true
            Layout.preferredHeight: 56
            Layout.leftMargin: Theme.xl
            Layout.rightMargin: Theme.xl
            Text { text: qsTr("Models"); color: Theme.text; font.pixelSize: Theme.fontLarge; font.weight: Font.DemiBold; Layout.fillWidth: true }
            Text { text: qsTr("Backend"); color: Theme.textMuted; font.pixelSize: Theme.fontSmall + 1 }
            ComboBox {
                id: backendBox
                implicitHeight: 32
                model: ["auto", "cuda", "cpu"]
                currentIndex: Math.max(0, model.indexOf(view.app.library.backend))
                onActivated: view.app.library.backend = currentText
            }
        }
        Rectangle { Layout.fillWidth: true; height: 1; color: Theme.border }

        ScrollView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            contentWidth: availableWidth
            ColumnLayout {
                width: Math.min(parent.width - 2 * Theme.xl, 760)
                x: (parent.width - width) / 2
                spacing: Theme.l
                Item { height: Theme.s }

                ColumnLayout {
                    visible: view.engine.state === EngineBridge.NoModel
                    Layout.fillWidth: true
                    Layout.topMargin: Theme.l
                    Layout.bottomMargin: Theme.s
                    spacing: Theme.xs
                    Text { text: qsTr("No model loaded yet"); color: Theme.text; font.pixelSize: Theme.fontTitle + 2; font.weight: Font.DemiBold }
                    Text {
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        text: qsTr("Open a checkpoint you have downloaded, or load the demo model to look around first. Folio remembers the last model and loads it at the next start.")
                        color: Theme.textMuted
                        font.pixelSize: Theme.fontBody
                    }
                }

                // Status: loading, failed, ready.
                Card {
                    Layout.fillWidth: true
                    visible: view.engine.state !== EngineBridge.NoModel
                    implicitHeight: statusCol.implicitHeight + 2 * Theme.l
                    border.color: view.engine.state === EngineBridge.Failed ? Theme.danger : Theme.border
                    ColumnLayout {
                        id: statusCol
                        anchors.fill: parent
                        anchors.margins: Theme.l
                        spacing: Theme.s
                        Text {
                            text: view.loading ? qsTr("Loading %1…").arg(view.app.library.displayName(view.engine.loadingSpec))
                                 : view.engine.state === EngineBridge.Failed ? qsTr("Could not load %1").arg(view.app.library.displayName(view.engine.loadingSpec))
                                 : qsTr("%1 is ready").arg(view.engine.modelName)
                            color: view.engine.state === EngineBridge.Failed ? Theme.danger : Theme.text
                            font.pixelSize: Theme.fontLarge
                            font.weight: Font.DemiBold
                        }
                        LoadProgressBar {
                            objectName: "loadProgress"
                            visible: view.loading
                            Layout.fillWidth: true
                            engine: view.engine
                        }
                        Text {
                            objectName: "loadError"
                            visible: view.engine.state === EngineBridge.Failed
                            Layout.fillWidth: true
                            text: view.engine.lastError
                            wrapMode: Text.Wrap
                            color: Theme.text
                            font.pixelSize: Theme.fontBody
                            font.family: Theme.monoFamily
                        }
                        Text {
                            visible: view.engine.state === EngineBridge.Ready
                            Layout.fillWidth: true
                            wrapMode: Text.Wrap
                            text: qsTr("%1 · %2 · context %3 tokens · %4 on %5")
                                  .arg(view.engine.architecture).arg(view.engine.quantization).arg(view.engine.contextLength)
                                  .arg(view.engine.backendName.toUpperCase()).arg(view.engine.device)
                            color: Theme.textMuted
                            font.pixelSize: Theme.fontBody
                        }
                        PillButton {
                            objectName: "startChatting"
                            visible: view.engine.state === EngineBridge.Ready
                            primary: true
                            iconName: "chat"
                            text: qsTr("Start chatting")
                            onClicked: view.chatRequested()
                        }
                    }
                }

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
                            text: qsTr("Folio reads Hugging Face model folders from this computer: Llama-2 and Mistral-family checkpoints (LlamaForCausalLM or MistralForCausalLM) as fp16/bf16/fp32 .safetensors or AutoAWQ 4-bit (GEMM), with config.json and tokenizer.model. For example TheBloke/Llama-2-7B-Chat-AWQ or mistralai/Mistral-7B-Instruct-v0.2.")
                        }
                        RowLayout {
                            spacing: Theme.s
                            PillButton {
                                objectName: "openFolderButton"
                                primary: true
                                iconName: "folder"
                                text: qsTr("Open model folder…")
                                enabled: !view.loading
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
                                onAccepted: view.load(text.trim())
                            }
                        }
                        Text {
                            visible: view.folderProblem.length > 0
                            Layout.fillWidth: true
                            wrapMode: Text.Wrap
                            text: view.folderProblem
                            color: Theme.danger
                            font.pixelSize: Theme.fontBody
                        }
                    }
                }

                FieldLabel { text: qsTr("Try it now") }
                Repeater {
                    model: view.app.library.demoModels
                    delegate: ModelRow {
                        required property string modelData
                        Layout.fillWidth: true
                        spec: modelData
                        name: qsTr("Demo model (%1)").arg(modelData)
                        note: qsTr("Random weights at a tiny size: it loads instantly and writes nonsense, so you can try every part of the app.")
                        current: view.engine.state === EngineBridge.Ready && view.engine.modelSpec === modelData
                        busy: view.loading
                        onLoadRequested: view.load(modelData)
                    }
                }

                FieldLabel { visible: view.app.library.recentModels.length > 0; text: qsTr("Recent") }
                Repeater {
                    model: view.app.library.recentModels
                    delegate: ModelRow {
                        required property string modelData
                        Layout.fillWidth: true
                        spec: modelData
                        name: view.app.library.displayName(modelData)
                        current: view.engine.state === EngineBridge.Ready && view.engine.modelSpec === modelData
                        busy: view.loading
                        removable: true
                        onLoadRequested: view.load(modelData)
                        onRemoveRequested: view.app.library.forget(modelData)
                    }
                }
                Item { height: Theme.xl }
            }
        }
    }

    FolderDialog {
        id: folderDialog
        title: qsTr("Choose a Hugging Face model folder")
        onAccepted: view.load(view.app.library.localPath(selectedFolder))
    }
}
