import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio.Ui

// A row in the sidebar's navigation: icon, label, optional badge on the right.
ItemDelegate {
    id: item
    required property string iconName
    property bool active: false
    property string badge: ""
    property string shortcutText: ""
    Layout.fillWidth: true
    implicitHeight: 34
    leftPadding: Theme.s
    rightPadding: Theme.s
    ToolTip.visible: hovered && shortcutText.length > 0
    ToolTip.delay: 800
    ToolTip.text: shortcutText
    contentItem: RowLayout {
        spacing: Theme.s + 2
        Icon { glyph: item.iconName; color: item.active ? Theme.accent : Theme.textMuted }
        Text {
            Layout.fillWidth: true
            text: item.text
            color: item.active ? Theme.text : Theme.textMuted
            font.pixelSize: Theme.fontBody
            font.weight: item.active ? Font.DemiBold : Font.Normal
        }
        Text {
            visible: item.badge.length > 0
            text: item.badge
            color: Theme.textFaint
            font.pixelSize: Theme.fontSmall
            elide: Text.ElideRight
            Layout.maximumWidth: 120
        }
    }
    background: Rectangle {
        radius: Theme.radiusSmall
        color: item.active ? Theme.selected : item.hovered ? Theme.hover : "transparent"
    }
}
