import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QtQuick.Dialogs
import Folio
import Folio.Ui

// Title of the chat on screen, the model and preset it uses, export/import and the settings toggle.
Rectangle {
    id: header
    required property AppController app
    property bool settingsOpen: false
    signal toggleSettings()
    signal compareRequested()
    // A missing QML module would make the file dialogs crash: then the items that open them are off
    // (the error banner says what to install).
    readonly property bool dialogsWork: app.fileDialogProblem.length === 0
    implicitHeight: 56
    color: "transparent"

    RowLayout {
        anchors.fill: parent
        anchors.leftMargin: Theme.xl
        anchors.rightMargin: Theme.m
        spacing: Theme.s
        Text {
            Layout.fillWidth: true
            text: header.app.currentConversationId > 0 ? header.app.currentTitle : qsTr("New chat")
            elide: Text.ElideRight
            color: Theme.text
            font.pixelSize: Theme.fontLarge
            font.weight: Font.DemiBold
        }
        Chip {
            visible: header.app.engine.state === EngineBridge.Ready
            text: header.app.engine.modelName + " · " + header.app.engine.quantization
        }
        Chip {
            visible: header.app.currentConversationId > 0
            text: header.app.settings.preset
            tint: Theme.accent
            fill: Theme.accentSoft
        }
        IconButton {
            objectName: "addToCompareButton"
            iconName: "columns"
            tip: qsTr("Add this chat to side by side (up to 4)")
            enabled: header.app.currentConversationId > 0 && header.app.compare.count < 4
            onClicked: if (header.app.compare.addConversation(header.app.currentConversationId)) header.compareRequested()
        }
        IconButton {
            iconName: "export"
            tip: qsTr("Export or import")
            enabled: true
            onClicked: menu.open()
            Menu {
                id: menu
                y: parent.height
                MenuItem { text: qsTr("Export as Markdown…"); enabled: header.dialogsWork && header.app.currentConversationId > 0; onTriggered: { saveDialog.json = false; saveDialog.open() } }
                MenuItem { text: qsTr("Export as JSON…"); enabled: header.dialogsWork && header.app.currentConversationId > 0; onTriggered: { saveDialog.json = true; saveDialog.open() } }
                MenuSeparator {}
                MenuItem { text: qsTr("Import JSON…"); enabled: header.dialogsWork; onTriggered: openDialog.open() }
            }
        }
        IconButton {
            objectName: "settingsButton"
            iconName: "sliders"
            tip: qsTr("Chat settings: system prompt and sampling")
            tint: header.settingsOpen ? Theme.accent : Theme.textMuted
            onClicked: header.toggleSettings()
        }
    }
    Rectangle { anchors.bottom: parent.bottom; width: parent.width; height: 1; color: Theme.border }

    FileDialog {
        id: saveDialog
        objectName: "exportDialog"
        property bool json: false
        fileMode: FileDialog.SaveFile
        nameFilters: json ? [qsTr("JSON (*.json)")] : [qsTr("Markdown (*.md)")]
        defaultSuffix: json ? "json" : "md"
        onAccepted: json ? header.app.chat.exportJson(header.app.currentConversationId, selectedFile)
                         : header.app.chat.exportMarkdown(header.app.currentConversationId, selectedFile)
    }
    FileDialog {
        id: openDialog
        objectName: "importDialog"
        fileMode: FileDialog.OpenFile
        nameFilters: [qsTr("Folio conversation (*.json)")]
        onAccepted: {
            const id = header.app.chat.importJson(selectedFile)
            if (id > 0) header.app.currentConversationId = id
        }
    }
}
