import QtQuick
import QtQuick.Layouts
import Folio
import Folio.Ui

// A live plot of the last 60 seconds of one series, with its current value.
Card {
    id: card
    required property string caption
    required property TimeSeries series
    property string unit: ""
    property color lineColor: Theme.accent
    property int decimals: 1
    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.l
        spacing: Theme.s
        RowLayout {
            Layout.fillWidth: true
            FieldLabel { text: card.caption; Layout.fillWidth: true }
            Text {
                text: card.series.latest.toFixed(card.decimals) + (card.unit.length ? " " + card.unit : "")
                color: card.lineColor
                font.pixelSize: Theme.fontBody
                font.weight: Font.DemiBold
            }
        }
        SparkLine {
            Layout.fillWidth: true
            Layout.fillHeight: true
            series: card.series
            color: card.lineColor
            gridColor: Theme.gridLine
        }
        RowLayout {
            Layout.fillWidth: true
            Text { text: qsTr("60 s ago"); color: Theme.textFaint; font.pixelSize: Theme.fontSmall - 1; Layout.fillWidth: true }
            Text { text: qsTr("peak %1").arg(card.series.peak.toFixed(card.decimals)); color: Theme.textFaint; font.pixelSize: Theme.fontSmall - 1 }
            Text { text: qsTr("now"); color: Theme.textFaint; font.pixelSize: Theme.fontSmall - 1; Layout.leftMargin: Theme.m }
        }
    }
}
