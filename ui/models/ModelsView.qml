import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio
import Folio.Ui

// The Models page: the local library (open a folder, the demo model, everything in the hub cache,
// with "will it fit") and Download (recommended models, Hub search, downloads in progress, the token).
Item {
    id: view
    required property AppController app
    readonly property EngineBridge engine: app.engine
    // The person asked to go and chat (loading a model never changes the view by itself).
    signal chatRequested()

    component PageTab: TabButton {
        id: tabButton
        width: implicitWidth
        font.pixelSize: Theme.fontBody
        font.weight: Font.Medium
        contentItem: Text {
            text: tabButton.text
            font: tabButton.font
            color: tabButton.checked ? Theme.text : Theme.textMuted
            horizontalAlignment: Text.AlignHCenter
            verticalAlignment: Text.AlignVCenter
        }
        background: Rectangle {
            implicitHeight: 32
            radius: height / 2
            color: tabButton.checked ? Theme.selected : tabButton.hovered ? Theme.hover : "transparent"
        }
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 0
        RowLayout {
            Layout.fillWidth: true
            Layout.preferredHeight: 56
            Layout.leftMargin: Theme.xl
            Layout.rightMargin: Theme.xl
            spacing: Theme.l
            Text { text: qsTr("Models"); color: Theme.text; font.pixelSize: Theme.fontLarge; font.weight: Font.DemiBold }
            TabBar {
                id: tabs
                objectName: "modelsTabs"
                Layout.alignment: Qt.AlignVCenter
                background: Item {}
                spacing: Theme.xs
                PageTab { objectName: "libraryTabButton"; text: qsTr("Library") }
                PageTab {
                    objectName: "downloadTabButton"
                    text: view.app.downloads.activeCount > 0 ? qsTr("Download (%1)").arg(view.app.downloads.activeCount) : qsTr("Download")
                }
            }
            Item { Layout.fillWidth: true }
            Text { text: qsTr("Backend"); color: Theme.textMuted; font.pixelSize: Theme.fontSmall + 1 }
            ThemedComboBox {
                implicitHeight: 32
                model: ["auto", "cuda", "cpu"]
                currentIndex: Math.max(0, model.indexOf(view.app.library.backend))
                onActivated: view.app.library.backend = currentText
            }
            // Applied at the next load: FP8 weights converted at load, and the KV cache's type.
            Text { text: qsTr("Weights"); color: Theme.textMuted; font.pixelSize: Theme.fontSmall + 1 }
            ThemedComboBox {
                objectName: "quantizationBox"
                implicitHeight: 32
                model: ["none", "fp8"]
                currentIndex: Math.max(0, model.indexOf(view.app.library.quantization))
                onActivated: view.app.library.quantization = currentText
            }
            Text { text: qsTr("KV cache"); color: Theme.textMuted; font.pixelSize: Theme.fontSmall + 1 }
            ThemedComboBox {
                objectName: "kvCacheDtypeBox"
                implicitHeight: 32
                model: ["auto", "fp8", "fp8_e5m2"]
                currentIndex: Math.max(0, model.indexOf(view.app.library.kvCacheDtype))
                onActivated: view.app.library.kvCacheDtype = currentText
            }
        }
        Rectangle { Layout.fillWidth: true; height: 1; color: Theme.border }

        StackLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            currentIndex: tabs.currentIndex
            LibraryTab { app: view.app; onChatRequested: view.chatRequested() }
            DownloadTab { app: view.app }
        }
    }
}
