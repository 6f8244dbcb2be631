import QtQuick
import QtQuick.Layouts
import Folio
import Folio.Ui

// A chat with no messages: a greeting and a few starters, or, without a model, where to get one.
Item {
    id: empty
    required property AppController app
    signal modelsRequested()
    signal suggestionChosen(string text)
    readonly property bool ready: app.engine.state === EngineBridge.Ready

    ColumnLayout {
        anchors.centerIn: parent
        width: Math.min(parent.width - 2 * Theme.xl, 560)
        spacing: Theme.l
        Image {
            Layout.alignment: Qt.AlignHCenter
            source: "qrc:/folio/icons/folio.svg"
            sourceSize: Qt.size(56, 56)
            opacity: 0.95
        }
        Text {
            Layout.alignment: Qt.AlignHCenter
            text: empty.ready ? qsTr("What can I help with?") : qsTr("Welcome to Folio")
            color: Theme.text
            font.pixelSize: Theme.fontDisplay
            font.weight: Font.DemiBold
        }
        Text {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.Wrap
            color: Theme.textMuted
            font.pixelSize: Theme.fontBody
            text: empty.ready
                ? qsTr("Chatting with %1 on %2. Every chat can answer at the same time.").arg(empty.app.engine.modelName).arg(empty.app.engine.device)
                : qsTr("Folio runs language models on this computer. Load a model to begin, or try the demo model right away.")
        }
        Flow {
            visible: empty.ready
            Layout.fillWidth: true
            Layout.topMargin: Theme.s
            spacing: Theme.s
            Repeater {
                model: [qsTr("Tell me a short story about a robot who learns to paint"),
                        qsTr("Explain paged attention like I'm new to GPUs"),
                        qsTr("Write a Python function that merges two sorted lists"),
                        qsTr("Give me three names for a cosy bookshop")]
                delegate: PillButton {
                    required property string modelData
                    text: modelData
                    implicitHeight: 34
                    onClicked: empty.suggestionChosen(modelData)
                }
            }
        }
        PillButton {
            visible: !empty.ready
            Layout.alignment: Qt.AlignHCenter
            primary: true
            iconName: "model"
            text: qsTr("Choose a model")
            onClicked: empty.modelsRequested()
        }
    }
}
