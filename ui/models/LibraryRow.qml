import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio.Ui

// A local model: its name, facts (family, parameters, format, size), whether it fits and why, what
// stops Folio from running it, and Load / Remove. A model Folio cannot run as it is (an unfinished
// download's snapshot lacks its weights) has no Load; deleting from the hub cache asks first.
Card {
    id: row
    required property int index
    required property string name
    required property string path
    required property string source
    required property string detail
    required property string facts
    required property string fits
    required property string fitText
    required property string problem
    required property string partialText
    readonly property bool loadable: problem.length === 0
    property bool current: false
    property bool busy: false
    signal loadRequested()
    signal removeRequested()
    implicitHeight: col.implicitHeight + 2 * Theme.m
    border.color: current ? Theme.accent : Theme.border
    RowLayout {
        anchors.fill: parent
        anchors.leftMargin: Theme.l
        anchors.rightMargin: Theme.m
        spacing: Theme.m
        Icon { glyph: row.source === "hub" ? "model" : "folder"; color: row.current ? Theme.accent : Theme.textMuted }
        ColumnLayout {
            id: col
            Layout.fillWidth: true
            Layout.topMargin: Theme.m
            Layout.bottomMargin: Theme.m
            spacing: 2
            Text { text: row.name; color: Theme.text; font.pixelSize: Theme.fontBody; font.weight: Font.Medium; elide: Text.ElideMiddle; Layout.fillWidth: true }
            Text { text: row.facts; color: Theme.textMuted; font.pixelSize: Theme.fontSmall; elide: Text.ElideRight; Layout.fillWidth: true }
            Text {
                text: row.fitText
                visible: text.length > 0
                color: row.fits === "no" ? Theme.danger : Theme.textMuted
                font.pixelSize: Theme.fontSmall
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }
            Text {
                text: qsTr("Folio cannot run it: %1").arg(row.problem)
                visible: row.problem.length > 0
                color: Theme.warning
                font.pixelSize: Theme.fontSmall
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }
            Text { text: row.partialText; visible: text.length > 0; color: Theme.textFaint; font.pixelSize: Theme.fontSmall }
            Text { text: row.detail; color: Theme.textFaint; font.pixelSize: Theme.fontSmall; elide: Text.ElideMiddle; Layout.fillWidth: true }
        }
        FitChip { fits: row.fits }
        Chip { visible: row.current; text: qsTr("loaded"); tint: Theme.success }
        IconButton {
            objectName: "remove_" + row.name
            iconName: "trash"
            iconSize: 16
            tip: row.source === "hub" ? qsTr("Delete from the hub cache") : qsTr("Remove from the list (the folder stays)")
            onClicked: row.source === "hub" ? confirmDelete.open() : row.removeRequested()
        }
        PillButton {
            objectName: "load_" + row.path
            visible: row.loadable
            implicitHeight: 32
            text: row.current ? qsTr("Reload") : qsTr("Load")
            enabled: !row.busy
            onClicked: row.loadRequested()
        }
    }
    ConfirmDialog {
        id: confirmDelete
        objectName: "confirmRemove_" + row.name
        title: qsTr("Delete this model?")
        message: qsTr("%1 (%2) will be deleted from the hub cache; getting it back means downloading it again.")
                 .arg(row.name).arg(row.facts)
        confirmText: qsTr("Delete")
        onConfirmed: row.removeRequested()
    }
}
