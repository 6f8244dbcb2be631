import QtQuick
import QtQuick.Layouts
import Folio.Ui

// A thinking model's reasoning, above its answer: open while it thinks, folded to "Thought for N s"
// once it has answered (a click opens or folds it again).
Item {
    id: think
    objectName: "thinkBlock"
    required property string text
    required property bool open     // still thinking
    required property string summary
    // Follows `open` until the reader folds or unfolds it by hand.
    property bool expanded: open
    implicitHeight: column.implicitHeight

    ColumnLayout {
        id: column
        width: parent.width
        spacing: Theme.s
        Rectangle {
            objectName: "thinkHeader"
            implicitWidth: header.implicitWidth + 2 * Theme.m
            implicitHeight: header.implicitHeight + Theme.s
            radius: Theme.radiusSmall
            color: headerHover.hovered ? Theme.hover : "transparent"
            RowLayout {
                id: header
                anchors.centerIn: parent
                spacing: Theme.xs
                Icon { glyph: think.expanded ? "chevron-down" : "chevron-right"; size: 13; color: Theme.textMuted }
                Text {
                    objectName: "thinkSummary"
                    text: think.summary
                    color: Theme.textMuted
                    font.pixelSize: Theme.fontSmall + 1
                    font.italic: think.open
                }
            }
            HoverHandler { id: headerHover; cursorShape: Qt.PointingHandCursor }
            TapHandler { onTapped: think.expanded = !think.expanded }
        }
        Item {
            visible: think.expanded && think.text.length > 0
            Layout.fillWidth: true
            implicitHeight: body.implicitHeight
            Rectangle { width: 2; height: parent.height; radius: 1; color: Theme.border }
            TextEdit {
                id: body
                objectName: "thinkText"
                x: Theme.m
                width: parent.width - Theme.m
                text: think.text
                textFormat: TextEdit.PlainText
                wrapMode: TextEdit.Wrap
                readOnly: true
                selectByMouse: true
                color: Theme.textMuted
                selectionColor: Theme.accentSoft
                font.pixelSize: Theme.fontBody
            }
        }
    }
}
