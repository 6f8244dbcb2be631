import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio
import Folio.Ui

// Left column: brand, new chat, search (titles by filter model, messages by full-text search), the
// conversation list, and navigation to the other views.
Rectangle {
    id: sidebar
    required property AppController app
    required property int page
    signal pageRequested(int page)
    signal conversationChosen(var conversationId)
    function focusSearch() { search.forceActiveFocus(); search.selectAll() }

    color: Theme.sidebar

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.m
        spacing: Theme.m

        RowLayout {
            Layout.fillWidth: true
            Layout.leftMargin: Theme.xs
            spacing: Theme.s
            Image {
                source: "qrc:/folio/icons/folio.svg"
                sourceSize: Qt.size(26, 26)
            }
            Text {
                text: "Folio"
                color: Theme.text
                font.pixelSize: Theme.fontLarge + 1
                font.weight: Font.DemiBold
                Layout.fillWidth: true
            }
            IconButton {
                objectName: "themeButton"
                // Choosing the scheme the desktop has goes back to following the desktop.
                readonly property bool backToSystem: ColorScheme.mode !== "system" && ColorScheme.systemDark === !Theme.dark
                iconName: Theme.dark ? "sun" : "moon"
                tip: (Theme.dark ? qsTr("Light theme") : qsTr("Dark theme")) + (backToSystem ? qsTr(" (follow the system again)") : "")
                onClicked: ColorScheme.mode = backToSystem ? "system" : Theme.dark ? "light" : "dark"
            }
        }

        PillButton {
            objectName: "newChatButton"
            Layout.fillWidth: true
            primary: true
            iconName: "plus"
            text: qsTr("New chat")
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("New chat (Ctrl+N)")
            onClicked: { sidebar.pageRequested(0); sidebar.app.newChat() }
        }

        SearchField {
            id: search
            objectName: "searchField"
            Layout.fillWidth: true
            placeholderText: qsTr("Search chats  (Ctrl+K)")
            onTextChanged: {
                sidebar.app.conversations.filterText = text
                sidebar.app.search.query = text
            }
        }

        ListView {
            id: list
            objectName: "conversationList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 2
            model: sidebar.app.conversations
            boundsBehavior: Flickable.StopAtBounds
            ScrollBar.vertical: ScrollBar { policy: ScrollBar.AsNeeded }
            header: Item {
                width: list.width
                height: list.count > 0 ? Theme.fontSmall + 2 * Theme.s : 0
                Text {
                    visible: list.count > 0
                    anchors.verticalCenter: parent.verticalCenter
                    leftPadding: Theme.s
                    text: search.text.length ? qsTr("Titles") : qsTr("Recent")
                    color: Theme.textFaint
                    font.pixelSize: Theme.fontSmall
                    font.weight: Font.DemiBold
                }
            }
            delegate: ConversationRow {
                width: ListView.view.width
                current: conversationId === sidebar.app.currentConversationId && sidebar.page === 0
                app: sidebar.app
                onChosen: sidebar.conversationChosen(conversationId)
            }
            footer: Column {
                width: list.width
                visible: sidebar.app.search.count > 0
                spacing: 2
                Text {
                    leftPadding: Theme.s
                    topPadding: Theme.m
                    bottomPadding: Theme.xs
                    text: qsTr("In messages")
                    color: Theme.textFaint
                    font.pixelSize: Theme.fontSmall
                    font.weight: Font.DemiBold
                }
                Repeater {
                    model: sidebar.app.search
                    delegate: SearchHitRow {
                        width: list.width
                        onChosen: sidebar.conversationChosen(conversationId)
                    }
                }
            }
            Text {
                anchors.centerIn: parent
                width: parent.width - 2 * Theme.l
                visible: list.count === 0 && sidebar.app.search.count === 0
                horizontalAlignment: Text.AlignHCenter
                wrapMode: Text.Wrap
                text: search.text.length ? qsTr("Nothing matches “%1”.").arg(search.text) : qsTr("Your chats will appear here.")
                color: Theme.textFaint
                font.pixelSize: Theme.fontSmall
            }
        }

        Rectangle { Layout.fillWidth: true; height: 1; color: Theme.border }

        ColumnLayout {
            Layout.fillWidth: true
            spacing: 2
            NavItem { iconName: "chat"; text: qsTr("Chats"); active: sidebar.page === 0; shortcutText: "Ctrl+1"; onClicked: sidebar.pageRequested(0) }
            NavItem { objectName: "navCompare"; iconName: "columns"; text: qsTr("Side by side"); active: sidebar.page === 1; shortcutText: "Ctrl+2"; onClicked: sidebar.pageRequested(1) }
            NavItem {
                objectName: "navMonitor"
                iconName: "activity"; text: qsTr("Monitor"); active: sidebar.page === 2; shortcutText: "Ctrl+3"
                badge: sidebar.app.generatingCount > 0 ? qsTr("%1 live").arg(sidebar.app.generatingCount) : ""
                onClicked: sidebar.pageRequested(2)
            }
            NavItem {
                objectName: "navModels"
                iconName: "model"; text: qsTr("Models"); active: sidebar.page === 3; shortcutText: "Ctrl+4"
                badge: sidebar.app.engine.state === EngineBridge.Ready ? sidebar.app.engine.modelName
                     : sidebar.app.engine.state === EngineBridge.Loading ? qsTr("loading…") : qsTr("none")
                onClicked: sidebar.pageRequested(3)
            }
        }
    }
}
