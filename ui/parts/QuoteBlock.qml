import QtQuick
import Folio.Ui

// A block quote: muted text behind an accent bar.
Item {
    objectName: "quoteBlock"
    id: quote
    required property string text
    implicitHeight: body.implicitHeight + Theme.xs
    Rectangle { width: 3; height: parent.height; radius: 1.5; color: Theme.borderStrong }
    TextEdit {
        id: body
        x: Theme.l
        width: parent.width - Theme.l
        text: quote.text
        textFormat: TextEdit.MarkdownText
        wrapMode: TextEdit.Wrap
        readOnly: true
        selectByMouse: true
        color: Theme.textMuted
        selectionColor: Theme.accentSoft
        font.pixelSize: Theme.fontBody + 1
        font.italic: true
        onLinkActivated: (link) => Qt.openUrlExternally(link)
    }
}
