import QtQuick
import QtQuick.Layouts
import Qt.labs.qmlmodels
import Folio
import Folio.Ui

// A reply's Markdown parts (split in C++), one small component per kind.
ColumnLayout {
    id: parts
    required property var parts
    required property AppController app
    spacing: Theme.m

    Repeater {
        model: parts.parts
        delegate: DelegateChooser {
            role: "kind"
            DelegateChoice { roleValue: "prose"; ProseBlock { Layout.fillWidth: true } }
            DelegateChoice { roleValue: "heading"; HeadingBlock { Layout.fillWidth: true } }
            DelegateChoice { roleValue: "quote"; QuoteBlock { Layout.fillWidth: true } }
            DelegateChoice { roleValue: "code"; CodeBlock { Layout.fillWidth: true; app: parts.app } }
        }
    }
}
