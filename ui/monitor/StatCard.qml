import QtQuick
import QtQuick.Layouts
import Folio.Ui

// A figure with a caption and an optional line underneath.
Card {
    id: card
    required property string caption
    required property string value
    property string unit: ""
    property string note: ""
    implicitHeight: 96
    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.l
        spacing: 2
        FieldLabel { text: card.caption }
        Item { Layout.fillHeight: true }
        RowLayout {
            spacing: Theme.xs
            Text {
                text: card.value
                color: Theme.text
                font.pixelSize: Theme.fontTitle + 4
                font.weight: Font.DemiBold
            }
            Text { text: card.unit; color: Theme.textMuted; font.pixelSize: Theme.fontBody; Layout.alignment: Qt.AlignBaseline }
        }
        Text { visible: card.note.length > 0; text: card.note; color: Theme.textFaint; font.pixelSize: Theme.fontSmall; elide: Text.ElideRight; Layout.fillWidth: true }
    }
}
