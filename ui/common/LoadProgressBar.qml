import QtQuick
import QtQuick.Layouts
import Folio
import Folio.Ui

// How far a model load has come: a bar for the current phase (sliding when the phase is not
// counted) and, under it, what the engine is doing ("mapping weights · 12 / 23 layers").
ColumnLayout {
    id: root
    required property EngineBridge engine
    readonly property bool counted: engine.loadDetail.length > 0
    spacing: Theme.xs

    Rectangle {
        id: track
        objectName: "loadProgressBar"
        Layout.fillWidth: true
        implicitHeight: 6
        radius: 3
        color: Theme.surfaceAlt
        clip: true
        Rectangle {
            visible: root.counted
            width: track.width * root.engine.loadProgress
            height: parent.height
            radius: 3
            color: Theme.accent
        }
        Rectangle {
            id: slider
            visible: !root.counted
            width: track.width * 0.3
            height: parent.height
            radius: 3
            color: Theme.accent
            NumberAnimation on x {
                running: slider.visible
                loops: Animation.Infinite
                from: -slider.width
                to: track.width
                duration: 1200
            }
        }
    }
    Text {
        objectName: "loadPhase"
        Layout.fillWidth: true
        text: root.engine.loadPhase + (root.counted ? " · " + root.engine.loadDetail : "")
        color: Theme.textMuted
        font.pixelSize: Theme.fontSmall + 1
        elide: Text.ElideRight
    }
}
