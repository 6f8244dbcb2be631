import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio.Ui

// Where a prompt is written. Enter sends, Shift+Enter starts a new line; while a reply streams the
// send button becomes Stop (Esc also stops).
Rectangle {
    id: composer
    property bool generating: false
    property bool ready: true
    property string placeholder: qsTr("Message Folio…")
    property string notReadyText: qsTr("Load a model to start chatting")
    signal sendRequested(string text)
    signal stopRequested()
    function focusInput() { input.forceActiveFocus() }
    function clear() { input.clear() }
    function setText(t) { input.text = t; input.cursorPosition = t.length; input.forceActiveFocus() }

    implicitHeight: Math.min(Math.max(input.implicitHeight, 44), 220) + hint.implicitHeight + Theme.m + Theme.s
    radius: Theme.radiusLarge
    color: Theme.surface
    border.width: 1
    border.color: input.activeFocus ? Theme.borderStrong : Theme.border

    // Enter pressed with no model to answer: the hint under the box says so (and stays until a model
    // is ready or the text changes) instead of nothing happening.
    property bool noModelNotice: false
    onReadyChanged: noModelNotice = false

    function trySend() {
        // Only the message box on screen sends (keys typed on another page are not a prompt).
        if (!input.visible || composer.generating || input.text.trim().length === 0) return
        if (!composer.ready) {
            composer.noModelNotice = true
            return
        }
        composer.sendRequested(input.text)
    }

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.s
        anchors.leftMargin: Theme.m
        spacing: 0
        RowLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: Theme.s
            ScrollView {
                Layout.fillWidth: true
                Layout.fillHeight: true
                TextArea {
                    id: input
                    objectName: "composerInput"
                    placeholderText: composer.ready ? composer.placeholder : composer.notReadyText
                    wrapMode: TextEdit.Wrap
                    font.pixelSize: Theme.fontBody + 1
                    color: Theme.text
                    placeholderTextColor: Theme.textFaint
                    selectionColor: Theme.accentSoft
                    selectedTextColor: Theme.text
                    background: null
                    padding: Theme.s
                    // Hidden (another page on screen), it takes no keys even if it kept the focus.
                    readOnly: !visible
                    onTextChanged: composer.noModelNotice = false
                    Keys.onPressed: (event) => {
                        if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter) && !(event.modifiers & Qt.ShiftModifier)) {
                            event.accepted = true
                            composer.trySend()
                        }
                    }
                }
            }
            RoundButton {
                id: sendButton
                objectName: composer.generating ? "stopButton" : "sendButton"
                Layout.alignment: Qt.AlignBottom
                implicitWidth: 36
                implicitHeight: 36
                enabled: composer.generating || (composer.ready && input.text.trim().length > 0)
                icon.source: composer.generating ? "qrc:/folio/icons/stop.svg" : "qrc:/folio/icons/send.svg"
                icon.width: composer.generating ? 14 : 18
                icon.height: composer.generating ? 14 : 18
                icon.color: Theme.accentText
                Accessible.name: composer.generating ? qsTr("Stop") : qsTr("Send")
                ToolTip.visible: hovered
                ToolTip.delay: 600
                ToolTip.text: composer.generating ? qsTr("Stop (Esc)") : qsTr("Send (Enter)")
                onClicked: composer.generating ? composer.stopRequested() : composer.trySend()
                background: Rectangle {
                    radius: width / 2
                    color: composer.generating ? Theme.text : Theme.accent
                    opacity: sendButton.enabled ? 1 : 0.35
                }
            }
        }
        Text {
            id: hint
            Layout.leftMargin: Theme.s
            Layout.bottomMargin: 2
            objectName: "composerHint"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: composer.noModelNotice ? qsTr("No model is loaded, so nothing was sent: load one under Models (Ctrl+4), then press Enter again.")
                                         : qsTr("Enter to send · Shift+Enter for a new line")
            color: composer.noModelNotice ? Theme.warning : Theme.textFaint
            font.pixelSize: composer.noModelNotice ? Theme.fontSmall : Theme.fontSmall - 1
        }
    }
}
