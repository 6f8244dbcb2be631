import QtQuick
import Folio.Ui

// A Markdown heading (# to ######).
Text {
    objectName: "headingBlock"
    required text  // the role, into Text's own property
    required property int level
    textFormat: Text.PlainText
    wrapMode: Text.Wrap
    color: Theme.text
    topPadding: level <= 2 ? Theme.s : Theme.xs
    font.pixelSize: level === 1 ? Theme.fontTitle + 2 : level === 2 ? Theme.fontTitle - 1 : Theme.fontLarge
    font.weight: Font.DemiBold
}
