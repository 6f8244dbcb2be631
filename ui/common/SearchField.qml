import QtQuick
import QtQuick.Controls
import Folio.Ui

// A rounded search box with a magnifier and a clear button.
TextField {
    id: field
    leftPadding: 34
    rightPadding: text.length ? 32 : Theme.m
    implicitHeight: 36
    font.pixelSize: Theme.fontBody
    color: Theme.text
    placeholderTextColor: Theme.textFaint
    selectionColor: Theme.accentSoft
    selectedTextColor: Theme.text
    background: Rectangle {
        radius: Theme.radius
        color: Theme.surface
        border.width: 1
        border.color: field.activeFocus ? Theme.accent : Theme.border
    }
    Icon {
        glyph: "search"
        size: 16
        anchors.left: parent.left
        anchors.leftMargin: Theme.m
        anchors.verticalCenter: parent.verticalCenter
    }
    IconButton {
        visible: field.text.length > 0
        iconName: "close"
        iconSize: 14
        implicitWidth: 24
        implicitHeight: 24
        tip: qsTr("Clear")
        anchors.right: parent.right
        anchors.rightMargin: Theme.xs
        anchors.verticalCenter: parent.verticalCenter
        onClicked: field.clear()
    }
    Keys.onEscapePressed: clear()
}
