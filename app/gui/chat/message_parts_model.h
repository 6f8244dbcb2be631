#pragma once
// One reply's parts, as QML shows them (a small component each): a thinking model's reasoning first
// ("Thinking…" / "Thought for 12 s"), then its answer's Markdown parts (prose, headings, quotes,
// code blocks). Updated in place while the reply streams: only the text that arrived since the last
// update is parsed, a part that grew is one dataChanged, a new part one rowsInserted, so the
// delegates already on screen (a code block and its copy button) stay the same items.
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

#include <vector>

#include "app/gui/store/reply_split.h"
#include "app/text/markdown_parts.h"

namespace folio::app {

class MessagePartsModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the message list")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
public:
    enum Role {
        KindRole = Qt::UserRole + 1,  // "think", "prose", "heading", "code", "quote"
        TextRole,                     // think: the reasoning; code: verbatim; prose/quote: Markdown; heading: plain
        LanguageRole,                 // code: the fence's info string
        LevelRole,                    // heading: 1..6
        OpenRole,                     // think: still thinking; code: the closing fence has not arrived
        SummaryRole,                  // think: "Thinking…" or "Thought for 12 s"
    };

    explicit MessagePartsModel(QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    // The reply as it stands. Called again as it grows; rows change in place.
    void setReply(const ReasoningSplit& reply, qint64 reasoningMs);

signals:
    void countChanged();

private:
    struct Think {
        QString text;
        bool open = false;
        qint64 ms = 0;
        bool operator==(const Think&) const = default;
    };
    int offset() const { return hasThink_ ? 1 : 0; }
    void setThink(bool has, const Think& think);
    void setParts(const std::vector<text::MarkdownPart>& parts, size_t unchanged);

    bool hasThink_ = false;
    Think think_;
    std::vector<text::MarkdownPart> parts_;  // UTF-8: converted to QString when a view reads a role
    text::MarkdownStream stream_;
};

}  // namespace folio::app
