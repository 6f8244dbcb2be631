import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio
import Folio.Ui

// Side-by-side prompting: 2-4 chats with their own settings answer one prompt at the same time.
Item {
    id: view
    required property AppController app
    readonly property CompareModel cmp: app.compare
    property int columnCount: 3

    ColumnLayout {
        anchors.fill: parent
        spacing: 0

        RowLayout {
            Layout.fillWidth: true
            Layout.preferredHeight: 56
            Layout.leftMargin: Theme.xl
            Layout.rightMargin: Theme.m
            spacing: Theme.s
            Text { text: qsTr("Side by side"); color: Theme.text; font.pixelSize: Theme.fontLarge; font.weight: Font.DemiBold }
            Item { Layout.fillWidth: true }
            Text { text: qsTr("Columns"); color: Theme.textMuted; font.pixelSize: Theme.fontSmall + 1 }
            Repeater {
                model: [2, 3, 4]
                delegate: PillButton {
                    required property int modelData
                    implicitHeight: 30
                    implicitWidth: 40
                    text: modelData
                    primary: view.columnCount === modelData
                    onClicked: view.columnCount = modelData
                }
            }
            PillButton {
                objectName: "newComparisonButton"
                implicitHeight: 30
                iconName: "plus"
                text: qsTr("New comparison")
                onClicked: view.cmp.startNew(view.columnCount, sharedPrompt.text)
            }
        }
        Rectangle { Layout.fillWidth: true; height: 1; color: Theme.border }

        // The shared system prompt for a new comparison, and the KV sharing it buys.
        RowLayout {
            Layout.fillWidth: true
            Layout.margins: Theme.l
            Layout.bottomMargin: 0
            spacing: Theme.m
            TextField {
                id: sharedPrompt
                Layout.fillWidth: true
                placeholderText: qsTr("Shared system prompt for new comparisons (optional: a shared prefix is cached once)")
                font.pixelSize: Theme.fontBody
                color: Theme.text
                placeholderTextColor: Theme.textFaint
                padding: Theme.s + 2
                background: Rectangle { radius: Theme.radius; color: Theme.surface; border.color: sharedPrompt.activeFocus ? Theme.accent : Theme.border }
                // Show the start of a long prompt when not editing it, not its end.
                onActiveFocusChanged: if (!activeFocus) cursorPosition = 0
            }
            Chip {
                objectName: "sharedPrefixChip"
                tint: Theme.plotKv
                text: view.cmp.sharedBlocks > 0
                      ? qsTr("Shared prefix: %1 KV blocks held once · prefix-cache hits %2%").arg(view.cmp.sharedBlocks).arg((view.cmp.prefixHitRate * 100).toFixed(0))
                      : qsTr("Prefix-cache hits %1%").arg((view.cmp.prefixHitRate * 100).toFixed(0))
            }
        }

        Item {
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.margins: Theme.l
            RowLayout {
                anchors.fill: parent
                spacing: Theme.m
                Repeater {
                    model: view.cmp
                    delegate: CompareColumn {
                        Layout.fillWidth: true
                        Layout.fillHeight: true
                        Layout.preferredWidth: 1
                        app: view.app
                        presets: view.app.presets
                        onPresetChosen: (name) => view.cmp.setPreset(index, name)
                        onSystemPromptEdited: (text) => view.cmp.setSystemPrompt(index, text)
                        onRemoveRequested: view.cmp.removeAt(index)
                    }
                }
            }
            ColumnLayout {
                anchors.centerIn: parent
                width: Math.min(parent.width, 540)
                visible: view.cmp.count === 0
                spacing: Theme.m
                Icon { glyph: "columns"; size: 40; color: Theme.textFaint; Layout.alignment: Qt.AlignHCenter }
                Text {
                    Layout.fillWidth: true
                    horizontalAlignment: Text.AlignHCenter
                    wrapMode: Text.Wrap
                    text: qsTr("Compare settings on one prompt. Each column is its own chat with its own preset and system prompt, and all of them answer at once through the same engine, sharing the KV cache for what their prompts have in common. Start new chats here, or add existing ones with the columns button in a chat's header.")
                    color: Theme.textMuted
                    font.pixelSize: Theme.fontBody
                }
                PillButton {
                    Layout.alignment: Qt.AlignHCenter
                    Layout.topMargin: Theme.s
                    primary: true
                    iconName: "columns"
                    text: qsTr("Start a %1-way comparison").arg(view.columnCount)
                    onClicked: view.cmp.startNew(view.columnCount, sharedPrompt.text)
                }
            }
        }

        Composer {
            objectName: "compareComposer"
            Layout.fillWidth: true
            Layout.maximumWidth: 980
            Layout.alignment: Qt.AlignHCenter
            Layout.leftMargin: Theme.xl
            Layout.rightMargin: Theme.xl
            Layout.bottomMargin: Theme.l
            placeholder: qsTr("One prompt for every column…")
            generating: view.cmp.generating
            ready: view.app.engine.state === EngineBridge.Ready && view.cmp.count > 0
            notReadyText: view.app.engine.state !== EngineBridge.Ready ? qsTr("Load a model to start chatting")
                                                                        : qsTr("Start a comparison (or add chats to it) first")
            onSendRequested: (text) => { if (view.cmp.send(text) > 0) clear() }
            onStopRequested: view.cmp.stopAll()
        }
    }
}
