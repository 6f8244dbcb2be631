import QtQuick
import QtQuick.Layouts
import Qt.labs.qmlmodels
import Folio
import Folio.Ui

// A reply's parts (split in C++, updated in place while it streams), one small component per kind:
// the reasoning of a thinking model first, then the answer's Markdown.
ColumnLayout {
    id: parts
    required property MessagePartsModel parts
    required property AppController app
    spacing: Theme.m

    Repeater {
        model: parts.parts
        delegate: DelegateChooser {
            role: "kind"
            DelegateChoice { roleValue: "think"; ThinkBlock { Layout.fillWidth: true } }
            DelegateChoice { roleValue: "prose"; ProseBlock { Layout.fillWidth: true } }
            DelegateChoice { roleValue: "heading"; HeadingBlock { Layout.fillWidth: true } }
            DelegateChoice { roleValue: "quote"; QuoteBlock { Layout.fillWidth: true } }
            DelegateChoice { roleValue: "code"; CodeBlock { Layout.fillWidth: true; app: parts.app } }
        }
    }
}
