import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Folio
import Folio.Ui

// One message. The user's sit in a bubble on the right (editable: edit and resend makes a branch);
// replies take the full reading width, rendered part by part, with their actions underneath.
Item {
    id: msg
    required property var messageId
    required property string role
    required property string content
    required property MessagePartsModel parts  // replies only (null for the user's messages)
    required property string status
    required property string details
    required property string author
    required property bool imported
    required property string error
    required property bool canContinue
    required property int siblingIndex
    required property int siblingCount
    required property int draftIndex  // 1-based; a reply asked for as several drafts
    required property int draftCount
    required property bool isLast
    required property AppController app
    property bool compact: false
    property bool editing: false
    readonly property bool isUser: role === "user"

    implicitHeight: column.implicitHeight
    HoverHandler { id: hover }

    ColumnLayout {
        id: column
        width: parent.width
        spacing: Theme.s

        // Who wrote it (replies only; the bubble says enough for the user).
        RowLayout {
            visible: !msg.isUser
            spacing: Theme.s
            Rectangle {
                width: 22; height: 22; radius: 11
                color: msg.imported ? Theme.surfaceAlt : Theme.accentSoft
                Icon { anchors.centerIn: parent; glyph: msg.imported ? "import" : "sparkle"; size: 13; color: msg.imported ? Theme.textMuted : Theme.accent }
            }
            Text {
                objectName: "messageAuthor"
                text: msg.author
                color: Theme.textMuted
                font.pixelSize: Theme.fontSmall + 1
                font.weight: Font.DemiBold
            }
            // The drafts of this reply (streaming at once): the one shown is what the chat goes on with.
            BranchSwitcher {
                objectName: "draftSwitcher"
                visible: !msg.isUser && msg.draftCount > 1
                index: msg.draftIndex
                count: msg.draftCount
                previousTip: qsTr("Previous draft")
                nextTip: qsTr("Next draft")
                onStep: (delta) => msg.app.chat.switchDraft(msg.messageId, delta)
            }
            Text {
                visible: !msg.isUser && msg.draftCount > 1
                text: qsTr("drafts")
                color: Theme.textFaint
                font.pixelSize: Theme.fontSmall
            }
            Chip {
                visible: msg.status === "interrupted"
                text: qsTr("interrupted")
                tint: Theme.warning
                fill: Theme.warningSoft
            }
            Chip {
                visible: msg.status === "error"
                text: qsTr("failed")
                tint: Theme.danger
                fill: Theme.dangerSoft
            }
        }

        // The user's bubble.
        Rectangle {
            visible: msg.isUser && !msg.editing
            Layout.alignment: Qt.AlignRight
            Layout.maximumWidth: msg.width * 0.82
            implicitWidth: userText.implicitWidth + 2 * Theme.l
            implicitHeight: userText.implicitHeight + 2 * Theme.m
            radius: Theme.radiusLarge
            color: Theme.userBubble
            TextEdit {
                id: userText
                x: Theme.l
                y: Theme.m
                width: Math.min(implicitWidth, msg.width * 0.82 - 2 * Theme.l)
                text: msg.content
                textFormat: TextEdit.PlainText
                wrapMode: TextEdit.Wrap
                readOnly: true
                selectByMouse: true
                color: Theme.text
                selectionColor: Theme.accentSoft
                font.pixelSize: Theme.fontBody
            }
        }

        // Editing a past user message.
        ColumnLayout {
            visible: msg.editing
            Layout.fillWidth: true
            spacing: Theme.s
            StyledTextArea { id: editor; Layout.fillWidth: true; Layout.minimumHeight: 80 }
            RowLayout {
                Layout.alignment: Qt.AlignRight
                spacing: Theme.s
                Text { text: qsTr("Sending starts a new branch; the old one is kept."); color: Theme.textFaint; font.pixelSize: Theme.fontSmall }
                PillButton { text: qsTr("Cancel"); onClicked: msg.editing = false }
                PillButton {
                    text: qsTr("Send")
                    primary: true
                    onClicked: { msg.app.chat.editAndResend(msg.messageId, editor.text); msg.editing = false }
                }
            }
        }

        // The reply, part by part.
        MessageParts {
            visible: !msg.isUser
            Layout.fillWidth: true
            parts: msg.parts
            app: msg.app
        }
        // Why a reply failed, kept with it (the banner above the chat goes away).
        Rectangle {
            objectName: "messageError"
            visible: !msg.isUser && msg.status === "error"
            Layout.fillWidth: true
            implicitHeight: errorRow.implicitHeight + 2 * Theme.m
            radius: Theme.radius
            color: Theme.dangerSoft
            RowLayout {
                id: errorRow
                anchors.fill: parent
                anchors.margins: Theme.m
                spacing: Theme.s
                Icon { glyph: "alert"; size: 15; color: Theme.danger; Layout.alignment: Qt.AlignTop }
                Text {
                    Layout.fillWidth: true
                    text: msg.error.length ? msg.error : qsTr("This reply failed; the reason was not recorded.")
                    textFormat: Text.PlainText
                    wrapMode: Text.Wrap
                    color: Theme.text
                    font.pixelSize: Theme.fontBody
                }
            }
        }
        // Before the first token arrives (a thinking model's reasoning shows as a part).
        Text {
            visible: !msg.isUser && msg.status === "streaming" && msg.parts !== null && msg.parts.count === 0
            text: qsTr("Thinking…")
            color: Theme.textFaint
            font.pixelSize: Theme.fontBody
            font.italic: true
        }

        MessageActions {
            Layout.fillWidth: true
            Layout.alignment: msg.isUser ? Qt.AlignRight : Qt.AlignLeft
            // In the narrow side-by-side columns only replies carry actions.
            visible: !msg.editing && msg.status !== "streaming" && !(msg.compact && msg.isUser)
            // A user message's actions appear on hover, so the conversation reads calmly.
            opacity: !msg.isUser || hover.hovered ? 1 : 0
            Behavior on opacity { NumberAnimation { duration: Theme.animation } }
            isUser: msg.isUser
            status: msg.status
            canContinue: msg.canContinue
            details: msg.details
            siblingIndex: msg.siblingIndex
            siblingCount: msg.siblingCount
            compact: msg.compact
            onCopyRequested: msg.app.chat.copyToClipboard(msg.content)
            onEditRequested: { editor.text = msg.content; msg.editing = true; editor.forceActiveFocus() }
            onRegenerateRequested: msg.app.chat.regenerate(msg.messageId)
            onContinueRequested: msg.app.chat.continueReply(msg.messageId)
            onBranchRequested: (step) => msg.app.chat.switchBranch(msg.messageId, step)
        }
    }
}
