import QtQuick
import QtQuick.Layouts
import Folio.Ui

// A dismissible message across the top of a view: errors from the engine, the history store notice.
Rectangle {
    id: banner
    property string text: ""
    property string level: "error"  // "error" or "warning"
    signal dismissed()
    visible: text.length > 0
    color: level === "error" ? Theme.dangerSoft : Theme.warningSoft
    radius: Theme.radius
    implicitHeight: row.implicitHeight + 2 * Theme.m
    RowLayout {
        id: row
        anchors.fill: parent
        anchors.margins: Theme.m
        spacing: Theme.m
        Icon {
            glyph: "alert"
            color: banner.level === "error" ? Theme.danger : Theme.warning
            Layout.alignment: Qt.AlignTop
        }
        Text {
            Layout.fillWidth: true
            text: banner.text
            wrapMode: Text.Wrap
            color: Theme.text
            font.pixelSize: Theme.fontBody
            textFormat: Text.PlainText
        }
        IconButton {
            iconName: "close"
            tip: qsTr("Dismiss")
            Layout.alignment: Qt.AlignTop
            onClicked: banner.dismissed()
        }
    }
}
