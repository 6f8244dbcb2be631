import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio.Ui

// A text button: `primary` is the accent-filled call to action, otherwise an outlined one.
Button {
    id: control
    property bool primary: false
    property bool destructive: false
    property string iconName: ""
    implicitHeight: 36
    leftPadding: Theme.l
    rightPadding: Theme.l
    font.pixelSize: Theme.fontBody
    font.weight: Font.Medium
    icon.source: iconName.length ? "qrc:/folio/icons/" + iconName + ".svg" : ""
    icon.width: 16
    icon.height: 16
    icon.color: contentColor
    readonly property color contentColor: primary ? Theme.accentText : destructive ? Theme.danger : Theme.text
    contentItem: RowLayout {
        spacing: Theme.s
        Icon {
            visible: control.iconName.length > 0
            glyph: control.iconName.length ? control.iconName : "plus"
            size: 16
            color: control.contentColor
        }
        Text {
            Layout.fillWidth: true
            text: control.text
            font: control.font
            color: control.contentColor
            elide: Text.ElideRight
            horizontalAlignment: control.iconName.length ? Text.AlignLeft : Text.AlignHCenter
        }
    }
    background: Rectangle {
        radius: height / 2
        color: control.primary ? (control.hovered ? Theme.accentHover : Theme.accent)
                               : (control.down ? Theme.selected : control.hovered ? Theme.hover : Theme.surface)
        border.width: control.primary ? 0 : 1
        border.color: control.destructive ? Theme.danger : Theme.border
        opacity: control.enabled ? 1 : 0.45
    }
}
