import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio.Ui

// A full-text search hit: the chat's title and the matching words in context.
ItemDelegate {
    id: hit
    required property var conversationId
    required property string title
    required property string role
    required property string snippet
    signal chosen()
    onClicked: chosen()
    leftPadding: Theme.s + 2
    rightPadding: Theme.s
    topPadding: Theme.s
    bottomPadding: Theme.s
    contentItem: ColumnLayout {
        spacing: 2
        Text {
            Layout.fillWidth: true
            text: hit.title
            elide: Text.ElideRight
            color: Theme.text
            font.pixelSize: Theme.fontSmall + 1
            font.weight: Font.Medium
        }
        Text {
            Layout.fillWidth: true
            text: (hit.role === "user" ? qsTr("You: ") : "") + hit.snippet
            textFormat: Text.StyledText
            maximumLineCount: 2
            wrapMode: Text.Wrap
            elide: Text.ElideRight
            color: Theme.textMuted
            font.pixelSize: Theme.fontSmall
        }
    }
    background: Rectangle { radius: Theme.radiusSmall; color: hit.hovered ? Theme.hover : "transparent" }
}
