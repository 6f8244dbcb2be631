import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio.Ui

// A labelled slider with its value, for one sampling setting.
ColumnLayout {
    id: field
    required property string label
    required property real value
    property real from: 0
    property real to: 1
    property real stepSize: 0.01
    property int decimals: 2
    property string hint: ""
    property string offText: ""   // shown instead of the value when it equals `offValue`
    property real offValue: -1
    signal moved(real value)
    spacing: 2
    RowLayout {
        Layout.fillWidth: true
        Text { text: field.label; color: Theme.text; font.pixelSize: Theme.fontBody; Layout.fillWidth: true }
        Text {
            text: field.offText.length && Math.abs(field.value - field.offValue) < 1e-9 ? field.offText : field.value.toFixed(field.decimals)
            color: Theme.textMuted
            font.pixelSize: Theme.fontSmall + 1
        }
    }
    Slider {
        id: slider
        Layout.fillWidth: true
        from: field.from
        to: field.to
        stepSize: field.stepSize
        value: field.value
        onMoved: field.moved(value)
        background: Rectangle {
            x: slider.leftPadding
            y: slider.topPadding + slider.availableHeight / 2 - height / 2
            width: slider.availableWidth
            height: 4
            radius: 2
            color: Theme.border
            Rectangle { width: slider.visualPosition * parent.width; height: parent.height; radius: 2; color: Theme.accent }
        }
        handle: Rectangle {
            x: slider.leftPadding + slider.visualPosition * (slider.availableWidth - width)
            y: slider.topPadding + slider.availableHeight / 2 - height / 2
            width: 16; height: 16; radius: 8
            color: Theme.surface
            border.color: Theme.accent
            border.width: 2
        }
    }
    Text {
        visible: field.hint.length > 0
        Layout.fillWidth: true
        text: field.hint
        wrapMode: Text.Wrap
        color: Theme.textFaint
        font.pixelSize: Theme.fontSmall
    }
}
