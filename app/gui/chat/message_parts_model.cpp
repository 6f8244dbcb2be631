#include "app/gui/chat/message_parts_model.h"

#include <algorithm>

#include "app/gui/chat/thread_guard.h"

namespace folio::app {

MessagePartsModel::MessagePartsModel(QObject* parent) : QAbstractListModel(parent) {}

int MessagePartsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : offset() + int(parts_.size());
}

QHash<int, QByteArray> MessagePartsModel::roleNames() const {
    return {{KindRole, "kind"}, {TextRole, "text"}, {LanguageRole, "language"},
            {LevelRole, "level"}, {OpenRole, "open"}, {SummaryRole, "summary"}};
}

QVariant MessagePartsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    if (hasThink_ && index.row() == 0) {
        switch (role) {
        case KindRole: return QStringLiteral("think");
        case TextRole: return think_.text;
        case OpenRole: return think_.open;
        case SummaryRole: return think_.open ? tr("Thinking…") : thoughtFor(think_.ms);
        case LanguageRole: return QString();
        case LevelRole: return 0;
        default: return {};
        }
    }
    const text::MarkdownPart& p = parts_[size_t(index.row() - offset())];
    switch (role) {
    case KindRole: return QString::fromLatin1(text::kind_name(p.kind));
    case TextRole: return QString::fromStdString(p.text);
    case LanguageRole: return QString::fromStdString(p.language);
    case LevelRole: return p.level;
    case OpenRole: return p.open;
    case SummaryRole: return QString();
    default: return {};
    }
}

void MessagePartsModel::setReply(const ReasoningSplit& reply, qint64 reasoningMs) {
    requireOwnThread(this, "MessagePartsModel::setReply");
    setThink(reply.hasReasoning, Think{reply.reasoning, reply.thinking, reasoningMs});
    const size_t closedBefore = stream_.closed_parts();
    const std::vector<text::MarkdownPart>& parts = stream_.update(reply.answer.toStdString());
    // Parts the stream had closed before are untouched, unless it started over (the text changed).
    setParts(parts, stream_.restarted() ? 0 : closedBefore);
}

void MessagePartsModel::setThink(bool has, const Think& think) {
    if (has && !hasThink_) {
        beginInsertRows({}, 0, 0);
        hasThink_ = true;
        think_ = think;
        endInsertRows();
        emit countChanged();
    } else if (!has && hasThink_) {
        beginRemoveRows({}, 0, 0);
        hasThink_ = false;
        think_ = {};
        endRemoveRows();
        emit countChanged();
    } else if (has && !(think == think_)) {
        QList<int> roles{TextRole};
        if (think.open != think_.open || think.ms != think_.ms) roles << OpenRole << SummaryRole;
        think_ = think;
        emit dataChanged(index(0), index(0), roles);
    }
}

void MessagePartsModel::setParts(const std::vector<text::MarkdownPart>& parts, size_t unchanged) {
    const int off = offset();
    const size_t common = std::min(parts_.size(), parts.size());
    size_t i = std::min(unchanged, common);
    // Same kind at the same place: the delegate stays, its changed roles update.
    for (; i < common && parts_[i].kind == parts[i].kind; ++i) {
        text::MarkdownPart& old = parts_[i];
        const text::MarkdownPart& now = parts[i];
        if (old == now) continue;
        QList<int> roles;
        if (old.text != now.text) roles << TextRole;
        if (old.language != now.language) roles << LanguageRole;
        if (old.level != now.level) roles << LevelRole;
        if (old.open != now.open) roles << OpenRole;
        old = now;
        emit dataChanged(index(off + int(i)), index(off + int(i)), roles);
    }
    const size_t before = parts_.size();
    if (i < parts_.size()) {  // a part changed kind (a line became a fence) or went away
        beginRemoveRows({}, off + int(i), off + int(parts_.size()) - 1);
        parts_.resize(i);
        endRemoveRows();
    }
    if (i < parts.size()) {
        beginInsertRows({}, off + int(i), off + int(parts.size()) - 1);
        parts_.insert(parts_.end(), parts.begin() + std::ptrdiff_t(i), parts.end());
        endInsertRows();
    }
    if (parts_.size() != before) emit countChanged();
}

}  // namespace folio::app
