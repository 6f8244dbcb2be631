import QtQuick
import QtQuick.Controls
import Folio.Ui

// A quiet square button with an icon and a tooltip.
ToolButton {
    id: control
    required property string iconName
    property string tip: ""
    property color tint: Theme.textMuted
    property int iconSize: 18
    implicitWidth: 32
    implicitHeight: 32
    padding: 0
    icon.source: "qrc:/folio/icons/" + iconName + ".svg"
    icon.width: iconSize
    icon.height: iconSize
    icon.color: hovered ? Theme.text : tint
    display: AbstractButton.IconOnly
    Accessible.name: tip
    ToolTip.visible: hovered && tip.length > 0
    ToolTip.delay: 500
    ToolTip.text: tip
    background: Rectangle {
        radius: Theme.radiusSmall
        color: control.down ? Theme.selected : control.hovered ? Theme.hover : "transparent"
    }
}
