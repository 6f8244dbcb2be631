import QtQuick
import Folio.Ui

// Paragraphs, lists, emphasis, inline code and links. Images were turned into links in C++, and
// QML's network access is blocked, so nothing remote is ever loaded.
TextEdit {
    objectName: "proseBlock"
    required text  // the role, into TextEdit's own property
    textFormat: TextEdit.MarkdownText
    wrapMode: TextEdit.Wrap
    readOnly: true
    selectByMouse: true
    color: Theme.text
    selectionColor: Theme.accentSoft
    selectedTextColor: Theme.text
    font.pixelSize: Theme.fontBody + 1
    onLinkActivated: (link) => Qt.openUrlExternally(link)
    HoverHandler { enabled: parent.hoveredLink.length > 0; cursorShape: Qt.PointingHandCursor }
}
