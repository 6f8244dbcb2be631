import QtQuick
import QtQuick.Layouts
import Folio
import Folio.Ui

// Recent engine and app warnings and errors.
Card {
    id: card
    required property LogModel log
    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.l
        spacing: Theme.s
        FieldLabel { text: qsTr("Warnings and errors") }
        ListView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: card.log
            spacing: Theme.xs
            delegate: RowLayout {
                required property string level
                required property string text
                required property string time
                width: ListView.view.width
                Text { text: time; color: Theme.textFaint; font.pixelSize: Theme.fontSmall; font.family: Theme.monoFamily; Layout.alignment: Qt.AlignTop }
                Text { text: parent.text; Layout.fillWidth: true; wrapMode: Text.Wrap; color: level === "error" ? Theme.danger : Theme.warning; font.pixelSize: Theme.fontSmall }
            }
            Text {
                anchors.centerIn: parent
                visible: card.log.count === 0
                text: qsTr("All quiet.")
                color: Theme.textFaint
                font.pixelSize: Theme.fontSmall + 1
            }
        }
    }
}
