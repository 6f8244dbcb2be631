import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio
import Folio.Ui

// The window: sidebar (chats, search, navigation) and one of four views.
ApplicationWindow {
    id: window
    required property AppController app
    // 0 chat, 1 side by side, 2 monitor, 3 models. Chosen once at the start (Models when there is
    // neither a chat nor a model, loaded or about to be), then only by the person: a model that
    // finishes loading never moves them out of the view they are in.
    property int page: 0
    Component.onCompleted: {
        page = app.engine.state === EngineBridge.NoModel && !app.modelAtStart && app.allConversations.count === 0 ? 3 : 0
        if (app.themeMode !== "system") ColorScheme.mode = app.themeMode
        // The size it had when the app last ran.
        if (app.windowSize.width > 0) {
            width = Math.max(minimumWidth, app.windowSize.width)
            height = Math.max(minimumHeight, app.windowSize.height)
        }
    }

    width: 1280
    height: 800
    minimumWidth: 960
    minimumHeight: 600
    visible: true
    // Saved a moment after a resize stops (not at every step of a drag; a killed app keeps it too).
    Timer { id: saveSize; interval: 400; onTriggered: window.app.windowSize = Qt.size(window.width, window.height) }
    onWidthChanged: saveSize.restart()
    onHeightChanged: saveSize.restart()
    title: app.currentTitle.length && page === 0 ? app.currentTitle + " — Folio" : "Folio"
    color: Theme.window
    font.pixelSize: Theme.fontBody
    // The Basic style's own controls (menus, combo boxes, spin boxes, tooltips) take the theme too.
    palette.window: Theme.surface
    palette.windowText: Theme.text
    palette.base: Theme.surface
    palette.alternateBase: Theme.surfaceAlt
    palette.text: Theme.text
    palette.button: Theme.surfaceAlt
    palette.buttonText: Theme.text
    palette.brightText: Theme.text
    palette.highlight: Theme.accent
    palette.highlightedText: Theme.accentText
    palette.light: Theme.hover
    palette.midlight: Theme.border
    palette.mid: Theme.borderStrong
    palette.dark: Theme.textMuted
    palette.shadow: Theme.dark ? "#000000" : "#40000000"
    palette.toolTipBase: Theme.dark ? "#33353b" : "#2b2b2e"
    palette.toolTipText: "#f2f2f4"
    palette.placeholderText: Theme.textFaint

    function keysToVisiblePage() {
        const current = pages.children[window.page]
        for (let item = window.activeFocusItem; item; item = item.parent)
            if (item === current || item === sidebar) return
        current.forceActiveFocus()
    }

    Connections {
        target: ColorScheme
        function onChanged() { if (window.app.themeMode !== ColorScheme.mode) window.app.themeMode = ColorScheme.mode }
    }

    Shortcut { sequence: StandardKey.New; onActivated: { window.page = 0; window.app.newChat() } }
    Shortcut { sequences: ["Ctrl+K", StandardKey.Find]; onActivated: sidebar.focusSearch() }
    Shortcut { sequence: "Esc"; enabled: window.app.generatingCount > 0; onActivated: {
            if (window.page === 1) window.app.compare.stopAll()
            else window.app.chat.stop(window.app.currentConversationId)
        } }
    Shortcut { sequence: "Ctrl+1"; onActivated: window.page = 0 }
    Shortcut { sequence: "Ctrl+2"; onActivated: window.page = 1 }
    Shortcut { sequence: "Ctrl+3"; onActivated: window.page = 2 }
    Shortcut { sequence: "Ctrl+4"; onActivated: window.page = 3 }

    RowLayout {
        anchors.fill: parent
        spacing: 0

        Sidebar {
            id: sidebar
            app: window.app
            page: window.page
            Layout.fillHeight: true
            Layout.preferredWidth: Theme.sidebarWidth
            onPageRequested: (p) => window.page = p
            onConversationChosen: (id) => { window.page = 0; window.app.currentConversationId = id }
        }
        Rectangle { Layout.fillHeight: true; width: 1; color: Theme.border }

        ColumnLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: 0
            Banner {
                objectName: "storeNotice"
                Layout.fillWidth: true
                Layout.margins: Theme.m
                Layout.bottomMargin: 0
                level: "warning"
                text: window.app.storeNotice
                onDismissed: window.app.dismissStoreNotice()
            }
            Banner {
                objectName: "errorBanner"
                Layout.fillWidth: true
                Layout.margins: Theme.m
                Layout.bottomMargin: 0
                level: window.app.log.latestLevel
                text: window.app.log.latest
                onDismissed: window.app.log.dismissLatest()
            }
            LoadStatus {
                objectName: "loadStatus"
                Layout.fillWidth: true
                Layout.margins: Theme.m
                Layout.bottomMargin: 0
                app: window.app
                // The Models view shows the same in its own status card.
                visible: window.app.engine.state === EngineBridge.Loading && window.page !== 3
            }
            StackLayout {
                id: pages
                Layout.fillWidth: true
                Layout.fillHeight: true
                currentIndex: window.page
                // A hidden item keeps the keyboard unless told otherwise, and a hidden message box
                // would send what was typed on another page: the page that goes away gives the
                // keyboard to the one that comes (which may hand it on, as Chats does to its
                // message box).
                onCurrentIndexChanged: window.keysToVisiblePage()
                ChatView { id: chatView; app: window.app; onModelsRequested: window.page = 3; onCompareRequested: window.page = 1 }
                CompareView { objectName: "compareView"; app: window.app }
                MonitorView { objectName: "monitorView"; app: window.app }
                ModelsView { objectName: "modelsView"; app: window.app; onChatRequested: window.page = 0 }
            }
        }
    }
}
