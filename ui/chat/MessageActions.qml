import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio.Ui

// The row under a message: branch switcher, copy, edit (user) or regenerate/continue (reply), and
// the reply's figures.
RowLayout {
    id: actions
    required property bool isUser
    required property string status
    required property bool canContinue
    required property string details
    required property int siblingIndex
    required property int siblingCount
    property bool compact: false
    signal copyRequested()
    signal editRequested()
    signal regenerateRequested()
    signal continueRequested()
    signal branchRequested(int step)
    spacing: 2
    layoutDirection: isUser ? Qt.RightToLeft : Qt.LeftToRight

    BranchSwitcher {
        visible: actions.siblingCount > 1
        index: actions.siblingIndex
        count: actions.siblingCount
        onStep: (s) => actions.branchRequested(s)
    }
    IconButton { iconName: "copy"; iconSize: 15; implicitWidth: 28; implicitHeight: 28; tip: qsTr("Copy"); onClicked: actions.copyRequested() }
    IconButton { visible: actions.isUser; iconName: "edit"; iconSize: 15; implicitWidth: 28; implicitHeight: 28; tip: qsTr("Edit and resend"); onClicked: actions.editRequested() }
    IconButton {
        objectName: "regenerateButton"
        visible: !actions.isUser
        iconName: "regenerate"; iconSize: 15; implicitWidth: 28; implicitHeight: 28
        tip: qsTr("Regenerate (keeps this reply as a branch)")
        onClicked: actions.regenerateRequested()
    }
    PillButton {
        objectName: "continueButton"
        visible: !actions.isUser && actions.canContinue
        implicitHeight: 28
        ToolTip.visible: hovered
        ToolTip.delay: 600
        ToolTip.text: qsTr("Go on with this reply where it stopped")
        iconName: "play"
        text: qsTr("Continue")
        onClicked: actions.continueRequested()
    }
    Text {
        visible: !actions.isUser && actions.details.length > 0 && !actions.compact
        Layout.leftMargin: Theme.s
        Layout.fillWidth: true
        text: actions.details
        elide: Text.ElideRight
        color: Theme.textFaint
        font.pixelSize: Theme.fontSmall
    }
    Item { visible: actions.isUser; Layout.fillWidth: true }
}
