import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio
import Folio.Ui

// Per-chat settings: system prompt, a preset, and every sampling value (saved as they change).
Rectangle {
    id: panel
    required property AppController app
    readonly property ConversationSettings s: app.settings
    signal closeRequested()
    color: Theme.surface

    ColumnLayout {
        anchors.fill: parent
        spacing: 0
        RowLayout {
            Layout.fillWidth: true
            Layout.preferredHeight: 56
            Layout.leftMargin: Theme.l
            Layout.rightMargin: Theme.m
            Text { text: qsTr("Chat settings"); color: Theme.text; font.pixelSize: Theme.fontLarge; font.weight: Font.DemiBold; Layout.fillWidth: true }
            IconButton { iconName: "close"; tip: qsTr("Close"); onClicked: panel.closeRequested() }
        }
        Rectangle { Layout.fillWidth: true; height: 1; color: Theme.border }

        ScrollView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            contentWidth: availableWidth
            enabled: panel.app.currentConversationId > 0
            ColumnLayout {
                width: parent.width
                spacing: Theme.l
                Item { height: Theme.xs }
                FieldLabel { text: qsTr("System prompt"); Layout.leftMargin: Theme.l }
                StyledTextArea {
                    objectName: "systemPromptField"
                    Layout.fillWidth: true
                    Layout.leftMargin: Theme.l
                    Layout.rightMargin: Theme.l
                    Layout.minimumHeight: 96
                    placeholderText: qsTr("e.g. You are a concise assistant who answers in plain English.")
                    text: panel.s.systemPrompt
                    onEditingFinished: panel.s.systemPrompt = text
                }
                FieldLabel { text: qsTr("Preset"); Layout.leftMargin: Theme.l }
                Flow {
                    Layout.fillWidth: true
                    Layout.leftMargin: Theme.l
                    Layout.rightMargin: Theme.l
                    spacing: Theme.s
                    Repeater {
                        model: panel.app.presets
                        delegate: PillButton {
                            required property string name
                            required property string description
                            implicitHeight: 30
                            text: name
                            primary: panel.s.preset === name
                            ToolTip.visible: hovered
                            ToolTip.delay: 400
                            ToolTip.text: description
                            onClicked: panel.s.preset = name
                        }
                    }
                }
                FieldLabel { text: qsTr("Thinking"); Layout.leftMargin: Theme.l }
                ColumnLayout {
                    Layout.fillWidth: true
                    Layout.leftMargin: Theme.l
                    Layout.rightMargin: Theme.l
                    spacing: Theme.xs
                    Switch {
                        objectName: "thinkingSwitch"
                        text: qsTr("Think before answering")
                        checked: panel.s.thinking
                        onToggled: panel.s.thinking = checked
                    }
                    Text {
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        text: panel.app.engine.state !== EngineBridge.Ready || panel.app.engine.templateThinks
                              ? qsTr("Passed to the model's chat template as enable_thinking (Qwen3 reads it). A reply's reasoning shows folded above its answer.")
                              : qsTr("This model's chat template has no thinking switch; it answers the same either way.")
                        color: Theme.textFaint
                        font.pixelSize: Theme.fontSmall
                    }
                }
                FieldLabel { text: qsTr("Drafts"); Layout.leftMargin: Theme.l }
                ColumnLayout {
                    Layout.fillWidth: true
                    Layout.leftMargin: Theme.l
                    Layout.rightMargin: Theme.l
                    spacing: Theme.xs
                    RowLayout {
                        spacing: Theme.s
                        Repeater {
                            model: 4
                            delegate: PillButton {
                                required property int index
                                objectName: "drafts" + (index + 1)
                                implicitHeight: 30
                                text: String(index + 1)
                                primary: panel.s.drafts === index + 1
                                onClicked: panel.s.drafts = index + 1
                            }
                        }
                    }
                    Text {
                        objectName: "draftsNote"
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        text: panel.s.draftsNote
                        color: Theme.textFaint
                        font.pixelSize: Theme.fontSmall
                    }
                }
                FieldLabel { text: qsTr("Sampling"); Layout.leftMargin: Theme.l }
                ColumnLayout {
                    Layout.fillWidth: true
                    Layout.leftMargin: Theme.l
                    Layout.rightMargin: Theme.l
                    spacing: Theme.m
                    SliderField { Layout.fillWidth: true; label: qsTr("Temperature"); value: panel.s.temperature; to: 2; offText: qsTr("greedy"); offValue: 0; onMoved: (v) => panel.s.temperature = v }
                    SliderField { Layout.fillWidth: true; label: qsTr("Top-p"); value: panel.s.topP; offText: qsTr("off"); offValue: 1; onMoved: (v) => panel.s.topP = v }
                    SliderField { Layout.fillWidth: true; label: qsTr("Top-k"); value: panel.s.topK; to: 200; stepSize: 1; decimals: 0; offText: qsTr("off"); offValue: 0; onMoved: (v) => panel.s.topK = Math.round(v) }
                    SliderField { Layout.fillWidth: true; label: qsTr("Min-p"); value: panel.s.minP; to: 0.5; offText: qsTr("off"); offValue: 0; onMoved: (v) => panel.s.minP = v }
                    SliderField { Layout.fillWidth: true; label: qsTr("Repetition penalty"); value: panel.s.repetitionPenalty; from: 1; to: 2; offText: qsTr("off"); offValue: 1; onMoved: (v) => panel.s.repetitionPenalty = v }
                    SliderField { Layout.fillWidth: true; label: qsTr("Max tokens"); value: panel.s.maxTokens; from: 16; to: 4096; stepSize: 16; decimals: 0; onMoved: (v) => panel.s.maxTokens = Math.round(v) }
                    RowLayout {
                        Layout.fillWidth: true
                        Text { text: qsTr("Seed"); color: Theme.text; font.pixelSize: Theme.fontBody; Layout.fillWidth: true }
                        CheckBox {
                            id: randomSeed
                            text: qsTr("random")
                            checked: panel.s.seed < 0
                            onToggled: panel.s.seed = checked ? -1 : 0
                        }
                        SpinBox {
                            enabled: !randomSeed.checked
                            from: 0; to: 2147483647
                            editable: true
                            value: Math.max(0, panel.s.seed)
                            onValueModified: panel.s.seed = value
                        }
                    }
                }
                Item { height: Theme.l }
            }
        }
    }
}
