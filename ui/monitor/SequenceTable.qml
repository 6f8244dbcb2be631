import QtQuick
import QtQuick.Layouts
import Folio
import Folio.Ui

// Per-conversation breakdown: each sequence in the engine with its state, tokens, KV blocks (and how
// many are shared) and its prefill and decode speeds; then recently finished replies with their
// final figures and time to first token (for a remote server: as the client measured them).
Card {
    id: card
    required property SequenceStatsModel sequences
    readonly property var widths: [0, 90, 80, 80, 110, 90, 90, 90]
    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.l
        spacing: Theme.s
        FieldLabel { text: qsTr("Conversations in the engine") }
        RowLayout {
            Layout.fillWidth: true
            Repeater {
                model: [qsTr("Conversation"), qsTr("State"), qsTr("Prompt"), qsTr("Generated"), qsTr("KV blocks"), qsTr("Prefill tok/s"), qsTr("Decode tok/s"), qsTr("First token")]
                delegate: Text {
                    required property string modelData
                    required property int index
                    Layout.fillWidth: index === 0
                    Layout.preferredWidth: card.widths[index]
                    horizontalAlignment: index === 0 ? Text.AlignLeft : Text.AlignRight
                    text: modelData
                    color: Theme.textFaint
                    font.pixelSize: Theme.fontSmall
                }
            }
        }
        ListView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: card.sequences
            delegate: RowLayout {
                required property string title
                required property string phase
                required property int promptTokens
                required property int generatedTokens
                required property int blocks
                required property int sharedBlocks
                required property real prefillTokS
                required property real decodeTokS
                required property real ttftMs
                width: ListView.view.width
                height: 28
                Text { Layout.fillWidth: true; text: title; elide: Text.ElideRight; color: Theme.text; font.pixelSize: Theme.fontSmall + 1 }
                Text { Layout.preferredWidth: card.widths[1]; horizontalAlignment: Text.AlignRight; text: phase; color: phase === "decoding" ? Theme.accent : phase === "finished" ? Theme.textFaint : Theme.textMuted; font.pixelSize: Theme.fontSmall + 1 }
                Text { Layout.preferredWidth: card.widths[2]; horizontalAlignment: Text.AlignRight; text: promptTokens; color: Theme.text; font.pixelSize: Theme.fontSmall + 1 }
                Text { Layout.preferredWidth: card.widths[3]; horizontalAlignment: Text.AlignRight; text: generatedTokens; color: Theme.text; font.pixelSize: Theme.fontSmall + 1 }
                Text { Layout.preferredWidth: card.widths[4]; horizontalAlignment: Text.AlignRight; text: phase === "finished" ? qsTr("freed") : blocks + (sharedBlocks > 0 ? qsTr(" (%1 shared)").arg(sharedBlocks) : ""); color: phase === "finished" ? Theme.textFaint : Theme.text; font.pixelSize: Theme.fontSmall + 1 }
                Text { Layout.preferredWidth: card.widths[5]; horizontalAlignment: Text.AlignRight; text: prefillTokS > 0 ? prefillTokS.toFixed(0) : "–"; color: Theme.text; font.pixelSize: Theme.fontSmall + 1 }
                Text { Layout.preferredWidth: card.widths[6]; horizontalAlignment: Text.AlignRight; text: decodeTokS > 0 ? decodeTokS.toFixed(1) : "–"; color: Theme.text; font.pixelSize: Theme.fontSmall + 1 }
                Text { Layout.preferredWidth: card.widths[7]; horizontalAlignment: Text.AlignRight; text: ttftMs > 0 ? qsTr("%1 ms").arg(ttftMs.toFixed(0)) : "–"; color: Theme.text; font.pixelSize: Theme.fontSmall + 1 }
            }
            Text {
                anchors.centerIn: parent
                visible: card.sequences.count === 0
                text: qsTr("Nothing has run yet. Send a prompt (or several) to see each conversation here.")
                color: Theme.textFaint
                font.pixelSize: Theme.fontSmall + 1
            }
        }
    }
}
