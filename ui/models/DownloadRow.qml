import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio.Ui

// A download: progress bar, bytes, speed, time left, the files in flight, the latest notice or
// error, and pause / resume / cancel, or Load once verified.
Card {
    id: row
    required property int index
    required property string repo
    required property string revision
    required property string state
    required property double progress
    required property string bytesText
    required property string speedText
    required property string etaText
    required property string filesText
    required property string message
    required property string path
    readonly property bool running: state === "listing" || state === "downloading"
    signal pauseRequested()
    signal resumeRequested()
    signal cancelRequested()
    signal dismissRequested()
    signal loadRequested()
    implicitHeight: col.implicitHeight + 2 * Theme.m
    border.color: state === "failed" ? Theme.danger : Theme.border
    ColumnLayout {
        id: col
        anchors.fill: parent
        anchors.margins: Theme.m
        anchors.leftMargin: Theme.l
        spacing: Theme.xs
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s
            Text {
                text: row.revision === "main" ? row.repo : row.repo + "@" + row.revision
                color: Theme.text; font.pixelSize: Theme.fontBody; font.weight: Font.Medium
                elide: Text.ElideMiddle; Layout.fillWidth: true
            }
            Chip {
                objectName: "downloadState_" + row.repo
                text: row.state === "listing" ? qsTr("listing files") : row.state === "downloading" ? qsTr("downloading")
                      : row.state === "paused" ? qsTr("paused") : row.state === "done" ? qsTr("verified")
                      : row.state === "failed" ? qsTr("failed") : qsTr("cancelled")
                tint: row.state === "done" ? Theme.success : row.state === "failed" ? Theme.danger : Theme.textMuted
            }
            // Dismiss sits left of the pause/resume and cancel buttons so that those two never move
            // under the pointer when a download stops.
            IconButton {
                visible: row.state === "done" || row.state === "failed" || row.state === "cancelled"
                objectName: "dismiss_" + row.repo
                iconName: "close"; iconSize: 14; tip: qsTr("Remove from the list")
                onClicked: row.dismissRequested()
            }
            IconButton {
                visible: row.running || row.state === "paused" || row.state === "failed"
                objectName: (row.running ? "pause_" : "resume_") + row.repo
                iconName: row.running ? "pause" : "play"
                iconSize: 16
                tip: row.running ? qsTr("Pause (the data so far is kept)") : row.state === "failed" ? qsTr("Try again") : qsTr("Resume")
                onClicked: row.running ? row.pauseRequested() : row.resumeRequested()
            }
            IconButton {
                visible: row.running || row.state === "paused" || row.state === "failed"
                objectName: "cancel_" + row.repo
                iconName: "stop"; iconSize: 16; tip: qsTr("Cancel and delete the partial data")
                onClicked: confirmCancel.open()
            }
            PillButton {
                visible: row.state === "done"
                objectName: "loadDownloaded_" + row.repo
                implicitHeight: 30
                primary: true
                text: qsTr("Load")
                onClicked: row.loadRequested()
            }
        }
        ProgressBar {
            Layout.fillWidth: true
            visible: row.state !== "done" && row.state !== "cancelled"
            indeterminate: row.progress < 0 && row.running
            value: Math.max(0, row.progress)
            background: Rectangle { implicitHeight: 6; radius: 3; color: Theme.surfaceAlt }
            contentItem: Item {
                Rectangle {
                    width: parent.width * Math.max(0, row.progress); height: 6; radius: 3
                    color: row.state === "failed" ? Theme.danger : row.running ? Theme.accent : Theme.textFaint
                }
            }
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.m
            Text { text: row.bytesText; color: Theme.textMuted; font.pixelSize: Theme.fontSmall }
            Text { text: row.speedText; visible: text.length > 0; color: Theme.textMuted; font.pixelSize: Theme.fontSmall }
            Text { text: row.etaText; visible: text.length > 0; color: Theme.textMuted; font.pixelSize: Theme.fontSmall }
            Item { Layout.fillWidth: true }
        }
        Text { text: row.filesText; visible: text.length > 0 && row.running; color: Theme.textFaint; font.pixelSize: Theme.fontSmall; elide: Text.ElideRight; Layout.fillWidth: true }
        Text {
            objectName: "downloadMessage_" + row.repo
            text: row.message
            visible: text.length > 0
            color: row.state === "failed" ? Theme.danger : Theme.textMuted
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
    }
    // Cancelling deletes what was downloaded (pausing keeps it): asked first.
    ConfirmDialog {
        id: confirmCancel
        objectName: "confirmCancel_" + row.repo
        title: qsTr("Cancel this download?")
        message: qsTr("What was downloaded of %1 (%2) will be deleted. Pause instead to finish it later.")
                 .arg(row.repo).arg(row.bytesText)
        confirmText: qsTr("Cancel download")
        onConfirmed: row.cancelRequested()
    }
}
