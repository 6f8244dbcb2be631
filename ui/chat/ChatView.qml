import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio
import Folio.Ui

// One conversation: header, the messages of the branch on screen, the composer, and the settings
// panel (system prompt, sampling) on the right.
Item {
    id: view
    required property AppController app
    signal modelsRequested()
    signal compareRequested()
    function focusComposer() { composer.focusInput() }
    // The message box takes the keyboard whenever a chat is opened or made, and when the Chats view
    // comes back, so a person can type at once. Later, so that the click or key that opened the chat
    // (a sidebar row, the New chat button) has finished taking focus itself.
    function focusComposerLater() { Qt.callLater(() => { if (view.visible) view.focusComposer() }) }
    onVisibleChanged: if (visible) focusComposerLater()
    Component.onCompleted: focusComposerLater()
    Connections {
        target: view.app
        function onConversationOpened() { view.focusComposerLater() }
    }
    property bool settingsOpen: false

    RowLayout {
        anchors.fill: parent
        spacing: 0

        ColumnLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: 0

            ChatHeader {
                Layout.fillWidth: true
                app: view.app
                settingsOpen: view.settingsOpen
                onToggleSettings: view.settingsOpen = !view.settingsOpen
                onCompareRequested: view.compareRequested()
            }

            ListView {
                id: messages
                objectName: "messageList"
                Layout.fillWidth: true
                Layout.fillHeight: true
                clip: true
                model: view.app.messages
                spacing: Theme.xl
                topMargin: Theme.xl
                bottomMargin: Theme.xl
                boundsBehavior: Flickable.StopAtBounds
                ScrollBar.vertical: ScrollBar { policy: ScrollBar.AsNeeded }
                // Stay at the bottom while a reply streams, unless the reader scrolled up.
                property bool pinned: true
                onMovementEnded: pinned = atYEnd
                onContentHeightChanged: if (pinned) Qt.callLater(positionViewAtEnd)
                onCountChanged: { pinned = true; Qt.callLater(positionViewAtEnd) }
                delegate: MessageDelegate {
                    width: Math.min(ListView.view.width - 2 * Theme.xl, Theme.readingWidth)
                    x: (ListView.view.width - width) / 2
                    app: view.app
                }
                EmptyChat {
                    anchors.fill: parent
                    visible: messages.count === 0
                    app: view.app
                    onModelsRequested: view.modelsRequested()
                    onSuggestionChosen: (text) => composer.setText(text)
                }
            }

            Composer {
                id: composer
                Layout.fillWidth: true
                Layout.maximumWidth: Theme.readingWidth + 2 * Theme.xl
                Layout.alignment: Qt.AlignHCenter
                Layout.leftMargin: Theme.xl
                Layout.rightMargin: Theme.xl
                Layout.bottomMargin: Theme.l
                generating: view.app.messages.generating
                ready: view.app.engine.state === EngineBridge.Ready
                onSendRequested: (text) => {
                    let id = view.app.currentConversationId
                    if (id <= 0) id = view.app.newChat()
                    if (view.app.chat.send(id, text) > 0) composer.clear()
                }
                onStopRequested: view.app.chat.stop(view.app.currentConversationId)
            }
        }

        Rectangle { visible: view.settingsOpen; Layout.fillHeight: true; width: 1; color: Theme.border }
        SettingsPanel {
            visible: view.settingsOpen
            Layout.fillHeight: true
            Layout.preferredWidth: 320
            app: view.app
            onCloseRequested: view.settingsOpen = false
        }
    }
}
