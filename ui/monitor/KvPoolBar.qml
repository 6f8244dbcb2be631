import QtQuick
import QtQuick.Layouts
import Folio
import Folio.Ui

// The KV pool as one bar: used, cached (reusable prefixes) and free blocks.
Card {
    id: card
    required property MonitorModel monitor
    readonly property var kv: monitor.stats.kv  // the engine's KvCounters
    readonly property real total: Math.max(1, kv.blocksTotal)
    implicitHeight: 150
    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.l
        spacing: Theme.s
        RowLayout {
            Layout.fillWidth: true
            FieldLabel { text: qsTr("KV cache pool"); Layout.fillWidth: true }
            Text {
                objectName: "kvPoolSize"
                // The element type decides how many blocks a byte budget holds (FP8: 2x fp16, 4x fp32).
                text: qsTr("%1 blocks × %2 tokens · %3 · %4 per block").arg(card.kv.blocksTotal).arg(card.kv.blockSize)
                      .arg(card.monitor.stats.kvCacheDtype).arg(card.monitor.formatBytes(card.monitor.stats.kvBytesPerBlock))
                color: Theme.textMuted
                font.pixelSize: Theme.fontSmall
            }
        }
        Rectangle {
            Layout.fillWidth: true
            height: 14
            radius: 7
            color: Theme.surfaceAlt
            clip: true
            Row {
                anchors.fill: parent
                Rectangle { width: parent.width * card.kv.blocksUsed / card.total; height: parent.height; color: Theme.plotKv }
                Rectangle { width: parent.width * card.kv.blocksCached / card.total; height: parent.height; color: Theme.plotKv; opacity: 0.4 }
            }
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.l
            component Legend: Row {
                required property string label
                required property real value
                required property color swatch
                property real alpha: 1
                spacing: Theme.xs + 2
                Rectangle { width: 10; height: 10; radius: 3; anchors.verticalCenter: parent.verticalCenter; color: parent.swatch; opacity: parent.alpha; border.color: Theme.border }
                Text { text: parent.value + " " + parent.label; color: Theme.textMuted; font.pixelSize: Theme.fontSmall }
            }
            Legend { label: qsTr("used"); value: card.kv.blocksUsed; swatch: Theme.plotKv }
            Legend { label: qsTr("cached"); value: card.kv.blocksCached; swatch: Theme.plotKv; alpha: 0.4 }
            Legend { label: qsTr("free"); value: card.kv.blocksFree; swatch: Theme.surfaceAlt }
            Item { Layout.fillWidth: true }
            Text {
                text: qsTr("peak %1 used · fragmentation %2%").arg(card.monitor.stats.peakBlocksUsed).arg((card.kv.fragmentation * 100).toFixed(1))
                color: Theme.textFaint
                font.pixelSize: Theme.fontSmall
            }
        }
        // The prefix cache since the model was loaded.
        Text {
            objectName: "prefixCacheLine"
            Layout.fillWidth: true
            elide: Text.ElideRight
            text: qsTr("Prefix cache: %1 of %2 prompt tokens reused (%3%) · %4 blocks copied on write · %5 cached blocks evicted")
                  .arg(card.kv.prefixHitTokens).arg(card.kv.prefixLookupTokens)
                  .arg((card.kv.prefixHitRate * 100).toFixed(0)).arg(card.kv.cowCopies).arg(card.kv.evictions)
            color: Theme.textMuted
            font.pixelSize: Theme.fontSmall
        }
    }
}
