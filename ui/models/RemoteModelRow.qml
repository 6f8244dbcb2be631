import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio.Ui

// A model on the Hub (recommended or found by search): its name, facts, whether it fits, what Folio
// cannot run yet, and Download.
Card {
    id: row
    required property string repo
    property string facts: ""
    property string note: ""
    property string fits: "unknown"
    property string fitText: ""
    property string problem: ""
    signal downloadRequested()
    implicitHeight: col.implicitHeight + 2 * Theme.m
    RowLayout {
        anchors.fill: parent
        anchors.leftMargin: Theme.l
        anchors.rightMargin: Theme.m
        spacing: Theme.m
        ColumnLayout {
            id: col
            Layout.fillWidth: true
            Layout.topMargin: Theme.m
            Layout.bottomMargin: Theme.m
            spacing: 2
            Text { text: row.repo; color: Theme.text; font.pixelSize: Theme.fontBody; font.weight: Font.Medium; elide: Text.ElideMiddle; Layout.fillWidth: true }
            Text { text: row.facts; color: Theme.textMuted; font.pixelSize: Theme.fontSmall; elide: Text.ElideRight; Layout.fillWidth: true }
            Text { text: row.note; visible: text.length > 0; color: Theme.textMuted; font.pixelSize: Theme.fontSmall; wrapMode: Text.Wrap; Layout.fillWidth: true }
            Text {
                text: row.fitText
                visible: text.length > 0
                color: row.fits === "no" ? Theme.danger : Theme.textFaint
                font.pixelSize: Theme.fontSmall
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }
            Text {
                text: qsTr("Not runnable by Folio yet: %1").arg(row.problem)
                visible: row.problem.length > 0
                color: Theme.warning
                font.pixelSize: Theme.fontSmall
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }
        }
        FitChip { fits: row.fits }
        PillButton {
            objectName: "download_" + row.repo
            implicitHeight: 32
            iconName: "download"
            text: qsTr("Download")
            onClicked: row.downloadRequested()
        }
    }
}
