import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio
import Folio.Ui

// One column of a comparison: its preset and system prompt, its messages, its KV blocks.
Card {
    id: column
    required property int index
    required property var conversationId
    required property string title
    required property string preset
    required property string systemPrompt
    required property var messages
    required property bool generating
    required property int blocks
    required property int sharedBlocks
    required property real decodeTokS
    required property real temperature
    required property AppController app
    required property var presets
    signal presetChosen(string name)
    signal systemPromptEdited(string text)
    signal removeRequested()

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 1
        spacing: 0
        ColumnLayout {
            Layout.fillWidth: true
            Layout.margins: Theme.m
            spacing: Theme.s
            RowLayout {
                Layout.fillWidth: true
                Text {
                    text: String.fromCharCode(65 + column.index)
                    color: Theme.accent
                    font.pixelSize: Theme.fontLarge
                    font.weight: Font.Bold
                }
                PillButton {
                    id: presetButton
                    objectName: "presetButton"
                    Layout.fillWidth: true
                    implicitHeight: 30
                    text: column.preset
                    iconName: "sliders"
                    onClicked: presetMenu.popup(presetButton, 0, presetButton.height)
                    Menu {
                        id: presetMenu
                        width: 340
                        Instantiator {
                            model: column.presets
                            delegate: MenuItem {
                                required property string name
                                required property string description
                                text: name + "  —  " + description
                                onTriggered: column.presetChosen(name)
                            }
                            onObjectAdded: (index, object) => presetMenu.insertItem(index, object)
                            onObjectRemoved: (index, object) => presetMenu.removeItem(object)
                        }
                    }
                }
                Text {
                    text: qsTr("T %1").arg(column.temperature.toFixed(1))
                    color: Theme.textMuted
                    font.pixelSize: Theme.fontSmall
                }
                IconButton { iconName: "close"; iconSize: 14; implicitWidth: 26; implicitHeight: 26; tip: qsTr("Remove column"); onClicked: column.removeRequested() }
            }
            TextField {
                id: prompt
                Layout.fillWidth: true
                text: column.systemPrompt
                placeholderText: qsTr("System prompt (none)")
                font.pixelSize: Theme.fontSmall + 1
                color: Theme.text
                placeholderTextColor: Theme.textFaint
                padding: Theme.s
                background: Rectangle { radius: Theme.radiusSmall; color: Theme.surfaceAlt; border.color: prompt.activeFocus ? Theme.accent : "transparent" }
                onEditingFinished: if (text !== column.systemPrompt) column.systemPromptEdited(text)
                // Show the start of a long prompt, not its end.
                onTextChanged: if (!activeFocus) cursorPosition = 0
                Component.onCompleted: cursorPosition = 0
            }
        }
        Rectangle { Layout.fillWidth: true; height: 1; color: Theme.border }
        ListView {
            id: list
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: column.messages
            spacing: Theme.l
            topMargin: Theme.m
            bottomMargin: Theme.m
            ScrollBar.vertical: ScrollBar {}
            onContentHeightChanged: Qt.callLater(positionViewAtEnd)
            delegate: MessageDelegate {
                width: ListView.view.width - 2 * Theme.m
                x: Theme.m
                app: column.app
                compact: true
            }
            Text {
                anchors.centerIn: parent
                visible: list.count === 0
                text: qsTr("Waiting for a prompt")
                color: Theme.textFaint
                font.pixelSize: Theme.fontSmall + 1
            }
        }
        Rectangle { Layout.fillWidth: true; height: 1; color: Theme.border }
        RowLayout {
            Layout.fillWidth: true
            Layout.margins: Theme.s
            Layout.leftMargin: Theme.m
            spacing: Theme.s
            Rectangle {
                width: 8; height: 8; radius: 4
                color: column.generating ? Theme.accent : Theme.borderStrong
            }
            Text {
                Layout.fillWidth: true
                objectName: "columnStats"
                text: column.blocks > 0
                      ? qsTr("%1 KV blocks (%2 shared) · %3 tok/s").arg(column.blocks).arg(column.sharedBlocks).arg(column.decodeTokS.toFixed(0))
                      : column.generating ? qsTr("queued…") : qsTr("idle")
                color: Theme.textMuted
                font.pixelSize: Theme.fontSmall
                elide: Text.ElideRight
            }
        }
    }
}
