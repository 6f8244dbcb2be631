import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio
import Folio.Ui

// A fenced code block: language label, copy button, monospaced text that scrolls sideways.
Rectangle {
    objectName: "codeBlock"
    id: code
    required property string text
    required property string language
    required property AppController app
    property bool copied: false
    implicitHeight: head.height + body.contentHeight + 2 * Theme.m + (scroller.ScrollBar.horizontal.visible ? 8 : 0)
    radius: Theme.radius
    color: Theme.codeBackground
    border.width: 1
    border.color: Theme.border
    clip: true

    Rectangle {
        id: head
        width: parent.width
        height: 34
        color: Theme.codeHeader
        radius: Theme.radius
        Rectangle { anchors.bottom: parent.bottom; width: parent.width; height: Theme.radius; color: parent.color }
        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: Theme.m
            anchors.rightMargin: Theme.xs
            Text {
                Layout.fillWidth: true
                text: code.language.length ? code.language : qsTr("code")
                color: Theme.textMuted
                font.pixelSize: Theme.fontSmall
                font.family: Theme.monoFamily
            }
            ToolButton {
                objectName: "copyCodeButton"
                implicitHeight: 28
                text: code.copied ? qsTr("Copied") : qsTr("Copy")
                icon.source: code.copied ? "qrc:/folio/icons/check.svg" : "qrc:/folio/icons/copy.svg"
                icon.width: 14
                icon.height: 14
                icon.color: code.copied ? Theme.success : Theme.textMuted
                font.pixelSize: Theme.fontSmall
                palette.buttonText: Theme.textMuted
                background: Rectangle { radius: Theme.radiusSmall; color: parent.hovered ? Theme.hover : "transparent" }
                onClicked: { code.app.chat.copyToClipboard(code.text); code.copied = true; resetCopied.restart() }
                Timer { id: resetCopied; interval: 1500; onTriggered: code.copied = false }
            }
        }
    }
    Flickable {
        id: scroller
        anchors.top: head.bottom
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.bottom: parent.bottom
        anchors.margins: Theme.m
        contentWidth: body.contentWidth
        contentHeight: body.contentHeight
        flickableDirection: Flickable.HorizontalFlick
        boundsBehavior: Flickable.StopAtBounds
        clip: true
        ScrollBar.horizontal: ScrollBar { policy: body.contentWidth > scroller.width ? ScrollBar.AsNeeded : ScrollBar.AlwaysOff }
        TextEdit {
            id: body
            text: code.text
            textFormat: TextEdit.PlainText
            readOnly: true
            selectByMouse: true
            color: Theme.text
            selectionColor: Theme.accentSoft
            font.family: Theme.monoFamily
            font.pixelSize: Theme.fontSmall + 1
        }
    }
}
