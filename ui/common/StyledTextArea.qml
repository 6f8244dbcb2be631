import QtQuick
import QtQuick.Controls
import Folio.Ui

// A multi-line field in the theme (system prompts, editing a message).
TextArea {
    id: area
    wrapMode: TextEdit.Wrap
    font.pixelSize: Theme.fontBody
    color: Theme.text
    placeholderTextColor: Theme.textFaint
    selectionColor: Theme.accentSoft
    selectedTextColor: Theme.text
    padding: Theme.m
    background: Rectangle {
        radius: Theme.radius
        color: Theme.surface
        border.width: 1
        border.color: area.activeFocus ? Theme.accent : Theme.border
    }
}
