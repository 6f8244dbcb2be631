import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio
import Folio.Ui

// The engine at work: memory, the KV pool, throughput, batching, and per-conversation detail.
Item {
    id: view
    required property AppController app
    readonly property MonitorModel mon: app.monitor
    readonly property var stats: mon.stats  // the engine's EngineStats, as it came
    readonly property var server: mon.serverLoad  // a remote server's /metrics, when chats go there
    readonly property bool remote: mon.watchingServer
    // A server's figure, or a dash when it does not publish it (-1).
    function figure(x, digits) { return x < 0 ? "–" : x.toFixed(digits) }

    ColumnLayout {
        anchors.fill: parent
        spacing: 0
        RowLayout {
            Layout.fillWidth: true
            Layout.preferredHeight: 56
            Layout.leftMargin: Theme.xl
            Layout.rightMargin: Theme.xl
            spacing: Theme.s
            Text { text: qsTr("Monitor"); color: Theme.text; font.pixelSize: Theme.fontLarge; font.weight: Font.DemiBold }
            Item { Layout.fillWidth: true }
            Text {
                visible: view.app.engine.state !== EngineBridge.Ready
                text: qsTr("No model loaded: the figures start moving once one is.")
                color: Theme.textFaint
                font.pixelSize: Theme.fontSmall + 1
            }
            Chip { visible: view.app.engine.state === EngineBridge.Ready; text: view.app.engine.modelName + " · " + view.app.engine.quantization }
            Chip { visible: view.app.engine.state === EngineBridge.Ready; text: qsTr("context %1").arg(view.app.engine.contextLength) }
            Chip { visible: view.app.engine.state === EngineBridge.Ready; text: view.app.engine.backendName.toUpperCase() + " · " + view.app.engine.device; tint: Theme.accent; fill: Theme.accentSoft }
        }
        Rectangle { Layout.fillWidth: true; height: 1; color: Theme.border }

        ScrollView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            contentWidth: availableWidth
            GridLayout {
                width: parent.width - 2 * Theme.xl
                x: Theme.xl
                y: Theme.xl
                columns: 4
                columnSpacing: Theme.m
                rowSpacing: Theme.m

                StatCard {
                    visible: !view.remote
                    objectName: "memoryCard"
                    Layout.fillWidth: true
                    caption: view.mon.memoryLabel
                    value: view.mon.formatBytes(view.stats.memory.usedBytes)
                    unit: view.stats.memory.totalBytes > 0 ? qsTr("of %1").arg(view.mon.formatBytes(view.stats.memory.totalBytes)) : ""
                    note: qsTr("weights %1 · KV %2").arg(view.mon.formatBytes(view.stats.memory.weightsBytes)).arg(view.mon.formatBytes(view.stats.memory.kvBytes))
                }
                StatCard {
                    visible: !view.remote
                    objectName: "decodeCard"
                    Layout.fillWidth: true
                    caption: qsTr("Decode")
                    value: view.stats.decodeTokS.toFixed(1)
                    unit: qsTr("tok/s")
                    note: qsTr("prefill %1 tok/s").arg(view.stats.prefillTokS.toFixed(0))
                }
                StatCard {
                    visible: !view.remote
                    Layout.fillWidth: true
                    caption: qsTr("Batch")
                    value: view.stats.batchSeqs
                    unit: qsTr("sequences")
                    note: qsTr("%1 tokens · step %2 ms").arg(view.stats.batchTokens).arg(view.stats.stepMs.toFixed(1))
                }
                StatCard {
                    visible: !view.remote
                    Layout.fillWidth: true
                    caption: qsTr("Queue")
                    value: view.stats.waiting
                    unit: qsTr("waiting")
                    note: qsTr("%1 running · %2 preemptions").arg(view.stats.running).arg(view.stats.preemptions)
                }

                KvPoolBar { visible: !view.remote; Layout.columnSpan: 4; Layout.fillWidth: true; monitor: view.mon }

                // Chats go to a server: what its /metrics reports (vLLM's or folio-server's).
                Text {
                    objectName: "serverStatus"
                    visible: view.remote && view.mon.serverStatus.length > 0
                    Layout.columnSpan: 4
                    Layout.fillWidth: true
                    text: view.mon.serverStatus
                    color: Theme.textMuted
                    wrapMode: Text.Wrap
                }
                StatCard {
                    objectName: "serverRequestsCard"
                    visible: view.remote
                    Layout.fillWidth: true
                    caption: qsTr("Server requests")
                    value: view.figure(view.server.running, 0)
                    unit: qsTr("running")
                    note: qsTr("%1 waiting").arg(view.figure(view.server.waiting, 0))
                }
                StatCard {
                    objectName: "serverKvCard"
                    visible: view.remote
                    Layout.fillWidth: true
                    caption: qsTr("Server KV cache")
                    value: view.figure(view.server.kvUsage < 0 ? -1 : 100 * view.server.kvUsage, 1)
                    unit: qsTr("% in use")
                    note: view.server.flavour.length > 0 ? qsTr("from %1 metrics").arg(view.server.flavour) : ""
                }
                StatCard {
                    objectName: "serverPrefixCard"
                    visible: view.remote
                    Layout.fillWidth: true
                    caption: qsTr("Prefix-cache hits")
                    value: view.figure(view.server.prefixHitRate < 0 ? -1 : 100 * view.server.prefixHitRate, 1)
                    unit: "%"
                    note: qsTr("of prompt tokens looked up")
                }
                StatCard {
                    objectName: "serverThroughputCard"
                    visible: view.remote
                    Layout.fillWidth: true
                    caption: qsTr("Server throughput")
                    value: view.figure(view.server.generationTokS, 1)
                    unit: qsTr("tok/s generated")
                    note: qsTr("prompt %1 tok/s").arg(view.figure(view.server.promptTokS, 0))
                }

                PlotCard { Layout.columnSpan: 2; Layout.fillWidth: true; Layout.preferredHeight: 150; caption: view.remote ? qsTr("Server tokens/s generated") : qsTr("Decode tokens/s"); series: view.mon.decodeSeries; lineColor: Theme.plotDecode; unit: "tok/s" }
                PlotCard { Layout.columnSpan: 2; Layout.fillWidth: true; Layout.preferredHeight: 150; caption: view.remote ? qsTr("Server prompt tokens/s") : qsTr("Prefill tokens/s"); series: view.mon.prefillSeries; lineColor: Theme.plotPrefill; unit: "tok/s"; decimals: 0 }
                PlotCard { Layout.columnSpan: 2; Layout.fillWidth: true; Layout.preferredHeight: 150; visible: !view.remote; caption: qsTr("KV blocks in use"); series: view.mon.kvSeries; lineColor: Theme.plotKv; decimals: 0 }
                PlotCard { Layout.columnSpan: view.remote ? 4 : 1; Layout.fillWidth: true; Layout.preferredHeight: 150; caption: view.remote ? qsTr("Server requests running") : qsTr("Batch size"); series: view.mon.batchSeries; lineColor: Theme.plotBatch; decimals: 0 }
                PlotCard { Layout.columnSpan: 1; Layout.fillWidth: true; Layout.preferredHeight: 150; visible: !view.remote; caption: view.mon.memoryLabel; series: view.mon.memorySeries; lineColor: Theme.plotMemory; unit: "GiB"; decimals: 2 }

                SequenceTable { Layout.columnSpan: 3; Layout.fillWidth: true; Layout.preferredHeight: 220; sequences: view.mon.sequences }
                LogList { Layout.columnSpan: 1; Layout.fillWidth: true; Layout.preferredHeight: 220; log: view.app.log }
                Item { Layout.columnSpan: 4; height: Theme.l }
            }
        }
    }
    Text {
        anchors.centerIn: parent
        visible: !view.mon.live
        text: view.app.engine.state === EngineBridge.Ready ? qsTr("Waiting for the first figures…") : ""
        color: Theme.textFaint
    }
}
