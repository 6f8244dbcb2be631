import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio
import Folio.Ui

// Getting a model without leaving Folio: downloads in progress, the recommended models, Hub search
// with filters for what Folio runs, and the access token.
ScrollView {
    id: tab
    required property AppController app
    property string startError: ""
    contentWidth: availableWidth

    // The new row appears at the top of the page: show it.
    function download(repo, revision) {
        startError = tab.app.downloads.start(repo, revision)
        if (startError.length === 0) tab.ScrollBar.vertical.position = 0
    }

    ColumnLayout {
        width: Math.min(tab.availableWidth - 2 * Theme.xl, 760)
        x: (tab.availableWidth - width) / 2
        spacing: Theme.m
        Item { height: Theme.s }

        RowLayout {
            Layout.fillWidth: true
            visible: tab.app.downloads.count > 0
            FieldLabel { text: qsTr("Downloads"); Layout.fillWidth: true }
            Text { text: qsTr("Chats keep working while models download."); color: Theme.textFaint; font.pixelSize: Theme.fontSmall }
        }
        Repeater {
            model: tab.app.downloads
            delegate: DownloadRow {
                Layout.fillWidth: true
                onPauseRequested: tab.app.downloads.pause(index)
                onResumeRequested: tab.app.downloads.resume(index)
                onCancelRequested: tab.app.downloads.cancel(index)
                onDismissRequested: tab.app.downloads.dismiss(index)
                onLoadRequested: tab.app.loadModel(path)
            }
        }
        Text {
            visible: tab.startError.length > 0
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: tab.startError
            color: Theme.danger
            font.pixelSize: Theme.fontBody
        }

        RowLayout {
            Layout.fillWidth: true
            Layout.topMargin: Theme.s
            FieldLabel { text: tab.app.catalog.title.length ? tab.app.catalog.title : qsTr("Recommended"); Layout.fillWidth: true }
            Text { text: tab.app.fitter.deviceText; color: Theme.textFaint; font.pixelSize: Theme.fontSmall }
            ComboBox {
                objectName: "contextBox"
                implicitHeight: 28
                model: tab.app.fitter.contextChoices
                displayText: currentValue === 0 ? qsTr("full context") : qsTr("%1K tokens").arg(currentValue / 1024)
                delegate: ItemDelegate {
                    required property var modelData
                    width: ListView.view.width
                    text: modelData === 0 ? qsTr("full context") : qsTr("%1K tokens").arg(modelData / 1024)
                }
                Component.onCompleted: currentIndex = Math.max(0, tab.app.fitter.contextChoices.indexOf(tab.app.fitter.context))
                onActivated: tab.app.fitter.context = currentValue
            }
        }
        Text {
            visible: tab.app.catalog.error.length > 0
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: tab.app.catalog.error
            color: Theme.danger
        }
        Repeater {
            model: tab.app.catalog
            delegate: RemoteModelRow {
                required property var model
                Layout.fillWidth: true
                repo: model.repo
                facts: model.facts
                note: model.note
                fits: model.fits
                fitText: model.fitText
                problem: model.problem
                onDownloadRequested: tab.download(model.repo, model.revision)
            }
        }

        FieldLabel { text: qsTr("Search the Hugging Face Hub"); Layout.topMargin: Theme.m }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s
            SearchField {
                id: searchField
                objectName: "hubSearchField"
                Layout.fillWidth: true
                placeholderText: qsTr("a model name, e.g. llama 8b instruct")
                onAccepted: tab.app.hubSearch.search(text, formatBox.currentText, sizeBox.currentValue)
            }
            ComboBox {
                id: formatBox
                objectName: "formatBox"
                implicitHeight: 36
                model: tab.app.hubSearch.formats
            }
            ComboBox {
                id: sizeBox
                implicitHeight: 36
                textRole: "text"
                valueRole: "gb"
                model: [{ text: qsTr("any size"), gb: 0 }, { text: qsTr("up to 8 GB"), gb: 8 },
                        { text: qsTr("up to 16 GB"), gb: 16 }, { text: qsTr("up to 24 GB"), gb: 24 }]
            }
            PillButton {
                objectName: "hubSearchButton"
                iconName: "search"
                text: qsTr("Search")
                enabled: !tab.app.hubSearch.busy
                onClicked: tab.app.hubSearch.search(searchField.text, formatBox.currentText, sizeBox.currentValue)
            }
        }
        Text {
            visible: tab.app.hubSearch.busy || tab.app.hubSearch.error.length > 0
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: tab.app.hubSearch.busy ? qsTr("Searching…") : tab.app.hubSearch.error
            color: tab.app.hubSearch.busy ? Theme.textMuted : Theme.danger
            font.pixelSize: Theme.fontBody
        }
        Repeater {
            model: tab.app.hubSearch
            delegate: RemoteModelRow {
                required property var model
                Layout.fillWidth: true
                repo: model.repo
                facts: model.facts
                fits: model.fits
                fitText: model.fitText
                onDownloadRequested: tab.download(model.repo, "main")
            }
        }

        FieldLabel { text: qsTr("Hugging Face account"); Layout.topMargin: Theme.m }
        TokenCard { Layout.fillWidth: true; app: tab.app }
        Item { height: Theme.xl }
    }
}
