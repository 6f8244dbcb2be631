import QtQuick
import QtQuick.Layouts
import Folio
import Folio.Ui

// A model loading, shown above whichever view the person is in: loading never takes them elsewhere.
Card {
    id: status
    required property AppController app
    implicitHeight: col.implicitHeight + 2 * Theme.m
    ColumnLayout {
        id: col
        anchors.fill: parent
        anchors.margins: Theme.m
        spacing: Theme.s
        Text {
            text: qsTr("Loading %1…").arg(status.app.library.displayName(status.app.engine.loadingSpec))
            color: Theme.text
            font.pixelSize: Theme.fontBody
            font.weight: Font.DemiBold
        }
        LoadProgressBar {
            Layout.fillWidth: true
            engine: status.app.engine
        }
    }
}
