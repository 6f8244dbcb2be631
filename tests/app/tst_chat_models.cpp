// The chat layer between the views and the engine: sending, streaming into the list models (parts
// updated in place) and the store, thinking models (reasoning parts, what the template gets, the
// thinking switch), branches (regenerate, edit, switch), stop, continue, several conversations at
// once, side-by-side, search and filter models, the monitor model over the engine's stats. Replies
// are played back by the test.
#include <QAbstractItemModelTester>
#include <QQmlContext>
#include <QQmlEngine>
#include <QQmlExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/bridge/engine_request.h"
#include "app/gui/chat/chat_actions.h"
#include "app/gui/chat/conversation_list_model.h"
#include "app/gui/chat/conversation_settings.h"
#include "app/gui/chat/generation_hub.h"
#include "app/gui/chat/message_list_model.h"
#include "app/gui/chat/message_parts_model.h"
#include "app/gui/chat/sampling_presets.h"
#include "app/gui/chat/search_results_model.h"
#include "app/gui/compare/compare_model.h"
#include "app/gui/monitor/monitor_model.h"
#include "app/gui/store/chat_store.h"
#include "app/gui/store/reply_journal.h"
#include "app/gui/store/transcript_io.h"
#include "engine/chat/chat_prompt.h"
#include "engine/tokenizer/tokenizer_config.h"
#include "tests/app/fixtures_qt.h"
#include "tests/app/scripted_replies.h"

using namespace folio::app;
using folio::app::test::ScriptedReplies;
using Messages = std::vector<folio::ChatMessage>;

namespace {

// What the engine's prompt builder renders for a request, with the Qwen3 template (tiny-qwen3's
// tokenizer_config.json, the real Qwen3 one).
std::string qwen3Prompt(const GenerationRequest& r) {
    const folio::TokenizerConfig tc =
        folio::load_tokenizer_config(folio::test::qtFixturePath("models/tiny-qwen3").toStdString());
    const folio::Request req = toEngineRequest(r);
    return folio::render_chat_prompt(folio::ModelConfig{}, tc, nullptr, req.messages, true, req.chat_template_kwargs).text;
}

}  // namespace

class ChatModelsTest : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void sendStreamsIntoModelAndStore();
    void regenerateEditAndSwitchBranches();
    void stopIsImmediateAndDropsLateText();
    void conversationsStreamIndependently();
    void continueInterruptedReply();
    void continueAfterMaxTokensOrStop();
    void continueWithNoTextStartsAfresh();
    void failedReplyIsMarked();
    void importedRepliesSayTheyAreImported();
    void quitMarksRunningRepliesInterrupted();
    void sideBySideSendsToEveryColumn();
    void filterAndSearchModels();
    void monitorModelFollowsSnapshots();
    void partsUpdateInPlaceWhileStreaming();
    void reasoningStreamsIntoAThinkPart();
    void replyCutWhileThinking();
    void historyLeavesReasoningToTheTemplate();
    void thinkingSwitchReachesTheTemplate();
    void draftsStreamIntoTheirOwnSlots();
    void switchingDraftsChangesTheHistory();
    void draftsSetting();
    void stoppingDraftsEndsThemAll();

private:
    MessagePartsModel* parts(int row) const {
        return qobject_cast<MessagePartsModel*>(messages_->data(messages_->index(row), MessageListModel::PartsRole).value<QObject*>());
    }
    QVariant part(int row, int i, int role) const {
        MessagePartsModel* p = parts(row);
        return p ? p->data(p->index(i), role) : QVariant();
    }
    QString role(int row, int r) const { return messages_->data(messages_->index(row), r).toString(); }

    std::unique_ptr<QTemporaryDir> dir_;
    std::unique_ptr<ChatStore> store_;
    std::unique_ptr<ReplyJournal> journal_;
    std::unique_ptr<ScriptedReplies> replies_;
    std::unique_ptr<GenerationHub> hub_;
    std::unique_ptr<ChatActions> actions_;
    std::unique_ptr<MessageListModel> messages_;
};

void ChatModelsTest::init() {
    dir_ = std::make_unique<QTemporaryDir>();
    store_ = std::make_unique<ChatStore>(dir_->filePath("h.db"));
    journal_ = std::make_unique<ReplyJournal>(store_.get(), 100);
    replies_ = std::make_unique<ScriptedReplies>();
    hub_ = std::make_unique<GenerationHub>(store_.get(), journal_.get(), replies_.get());
    hub_->setModelName("stories260K");
    actions_ = std::make_unique<ChatActions>(store_.get(), hub_.get());
    messages_ = std::make_unique<MessageListModel>(store_.get(), hub_.get());
}

void ChatModelsTest::cleanup() {
    messages_.reset();
    actions_.reset();
    hub_.reset();
    replies_.reset();
    journal_.reset();
    store_.reset();
    dir_.reset();
}

void ChatModelsTest::sendStreamsIntoModelAndStore() {
    const qint64 c = actions_->newConversation({}, "Precise", "Be brief.");
    messages_->setConversationId(c);
    const qint64 reply = actions_->send(c, "  Show me code  ");
    QVERIFY(reply > 0);
    QCOMPARE(replies_->requests.size(), 1);
    const GenerationRequest& r = replies_->requests[0];
    QCOMPARE(r.tag, QStringLiteral("c%1").arg(c));
    QCOMPARE(r.messages, (Messages{{"system", "Be brief."}, {"user", "Show me code"}}));
    QVERIFY(r.enableThinking);
    QCOMPARE(r.sampling, presetNamed("Precise").settings);
    QCOMPARE(messages_->rowCount(), 2);
    QVERIFY(messages_->generating());
    QCOMPARE(role(1, MessageListModel::StatusRole), QString("streaming"));
    QCOMPARE(store_->conversation(c).title, QString("Show me code"));

    replies_->say(r.ticket, "Here:\n```py\nprint(");
    QCOMPARE(role(1, MessageListModel::ContentRole), QString("Here:\n```py\nprint("));
    QCOMPARE(part(1, 1, MessagePartsModel::KindRole).toString(), QString("code"));
    QVERIFY(part(1, 1, MessagePartsModel::OpenRole).toBool());  // the fence is still open while streaming
    replies_->say(r.ticket, "1)\n```\nDone.");
    QCOMPARE(part(1, 1, MessagePartsModel::OpenRole).toBool(), false);
    QCOMPARE(part(1, 2, MessagePartsModel::TextRole).toString(), QString("Done."));
    // Saved while streaming, before the reply ends.
    QTRY_COMPARE_WITH_TIMEOUT(store_->message(reply).content, QString("Here:\n```py\nprint(1)\n```\nDone."), 1000);
    QCOMPARE(store_->message(reply).status, MessageStatus::Streaming);

    replies_->end(r.ticket, 9);
    QVERIFY(!messages_->generating());
    const MessageRecord m = store_->message(reply);
    QCOMPARE(m.status, MessageStatus::Complete);
    QCOMPARE(m.stats.timings.generated_tokens, 9);
    QCOMPARE(m.model, QString("stories260K"));
    QCOMPARE(role(1, MessageListModel::StatusRole), QString("complete"));
    QVERIFY(role(1, MessageListModel::DetailsRole).contains("9 tokens"));
}

void ChatModelsTest::regenerateEditAndSwitchBranches() {
    const qint64 c = actions_->newConversation();
    messages_->setConversationId(c);
    const qint64 first = actions_->send(c, "Name a colour");
    replies_->say(replies_->requests.last().ticket, "Blue");
    replies_->end(replies_->requests.last().ticket);
    const qint64 userId = store_->message(first).parentId;

    // Regenerate: the history sent is the branch up to the user message, not the old reply.
    const qint64 second = actions_->regenerate(first);
    QCOMPARE(replies_->requests.last().messages, (Messages{{"user", "Name a colour"}}));
    replies_->say(replies_->requests.last().ticket, "Green");
    replies_->end(replies_->requests.last().ticket);
    QCOMPARE(messages_->lastText(), QString("Green"));
    QCOMPARE(messages_->data(messages_->index(1), MessageListModel::SiblingCountRole).toInt(), 2);
    QCOMPARE(messages_->data(messages_->index(1), MessageListModel::SiblingIndexRole).toInt(), 2);

    actions_->switchBranch(second, -1);
    QCOMPARE(messages_->lastText(), QString("Blue"));
    actions_->switchBranch(first, +1);
    QCOMPARE(messages_->lastText(), QString("Green"));

    // Edit the user message: a new branch from the root; the old one stays reachable.
    actions_->editAndResend(userId, "Name a fruit");
    QCOMPARE(replies_->requests.last().messages, (Messages{{"user", "Name a fruit"}}));
    replies_->say(replies_->requests.last().ticket, "Pear");
    replies_->end(replies_->requests.last().ticket);
    QCOMPARE(messages_->rowCount(), 2);
    QCOMPARE(role(0, MessageListModel::ContentRole), QString("Name a fruit"));
    QCOMPARE(messages_->data(messages_->index(0), MessageListModel::SiblingCountRole).toInt(), 2);
    actions_->switchBranch(messages_->data(messages_->index(0), MessageListModel::MessageIdRole).toLongLong(), -1);
    QCOMPARE(role(0, MessageListModel::ContentRole), QString("Name a colour"));
    QCOMPARE(messages_->lastText(), QString("Green"));  // the newest leaf of that branch
}

void ChatModelsTest::stopIsImmediateAndDropsLateText() {
    const qint64 c = actions_->newConversation();
    messages_->setConversationId(c);
    const qint64 reply = actions_->send(c, "Go");
    const quint64 ticket = replies_->requests.last().ticket;
    replies_->say(ticket, "One two");
    QSignalSpy generating(messages_.get(), &MessageListModel::generatingChanged);
    actions_->stop(c);
    QCOMPARE(generating.count(), 1);
    QVERIFY(!messages_->generating());
    QCOMPARE(replies_->cancelled, QList<quint64>{ticket});
    replies_->say(ticket, " three");  // already in flight when the engine was told
    replies_->end(ticket);
    QCOMPARE(messages_->lastText(), QString("One two"));
    const MessageRecord m = store_->message(reply);
    QCOMPARE(m.content, QString("One two"));
    QCOMPARE(m.stats.finishReason, QString("cancelled"));
    QCOMPARE(m.status, MessageStatus::Complete);
}

void ChatModelsTest::conversationsStreamIndependently() {
    const qint64 a = actions_->newConversation(), b = actions_->newConversation();
    MessageListModel other(store_.get(), hub_.get());
    messages_->setConversationId(a);
    other.setConversationId(b);
    actions_->send(a, "A?");
    actions_->send(b, "B?");
    QVERIFY(hub_->isGenerating(a) && hub_->isGenerating(b));
    // A second prompt to a busy conversation is refused, not queued behind its own reply.
    QSignalSpy refused(actions_.get(), &ChatActions::error);
    QCOMPARE(actions_->send(a, "again"), 0);
    QCOMPARE(refused.count(), 1);
    const quint64 ta = replies_->requests[0].ticket, tb = replies_->requests[1].ticket;
    for (int i = 0; i < 3; ++i) {
        replies_->say(ta, QStringLiteral("a%1 ").arg(i));
        replies_->say(tb, QStringLiteral("b%1 ").arg(i));
    }
    QCOMPARE(messages_->lastText(), QString("a0 a1 a2 "));
    QCOMPARE(other.lastText(), QString("b0 b1 b2 "));
    replies_->end(tb);
    QVERIFY(hub_->isGenerating(a) && !hub_->isGenerating(b));
    replies_->end(ta);
    QCOMPARE(hub_->activeCount(), 0);
}

void ChatModelsTest::continueInterruptedReply() {
    const qint64 c = actions_->newConversation();
    MessageRecord u{.conversationId = c, .parentId = 0, .role = "user", .content = "Count"};
    store_->addMessage(u);
    MessageRecord a{.conversationId = c, .parentId = u.id, .role = "assistant", .content = "1 2 3"};
    a.status = MessageStatus::Interrupted;
    a.stats.timings.generated_tokens = 5;
    store_->addMessage(a);
    messages_->setConversationId(c);
    QCOMPARE(role(1, MessageListModel::StatusRole), QString("interrupted"));
    QVERIFY(messages_->data(messages_->index(1), MessageListModel::CanContinueRole).toBool());
    QCOMPARE(actions_->continueReply(a.id), a.id);
    // The partial reply is the final message, for the engine to go on with (not a new turn after it).
    const GenerationRequest& r = replies_->requests.last();
    QCOMPARE(r.messages, (Messages{{"user", "Count"}, {"assistant", "1 2 3"}}));
    QVERIFY(r.continueFinal);
    replies_->say(r.ticket, " 4 5");
    replies_->end(r.ticket, 3);
    QCOMPARE(store_->message(a.id).content, QString("1 2 3 4 5"));
    QCOMPARE(store_->message(a.id).status, MessageStatus::Complete);
    QCOMPARE(store_->message(a.id).stats.timings.generated_tokens, 8);  // the whole reply's tokens
    QCOMPARE(store_->allMessages(c).size(), 2);  // continued in place, no new message
    QVERIFY(!messages_->data(messages_->index(1), MessageListModel::CanContinueRole).toBool());
}

void ChatModelsTest::continueAfterMaxTokensOrStop() {
    const qint64 c = actions_->newConversation();
    messages_->setConversationId(c);
    const qint64 reply = actions_->send(c, "Tell a long story");
    quint64 ticket = replies_->requests.last().ticket;
    replies_->say(ticket, "Once upon");
    GenerationEnd cut;
    cut.ticket = ticket;
    cut.stats.timings.generated_tokens = 2;
    cut.stats.finishReason = "length";
    emit replies_->finished(cut);
    QVERIFY(messages_->data(messages_->index(1), MessageListModel::CanContinueRole).toBool());
    QVERIFY(role(1, MessageListModel::DetailsRole).contains("max tokens reached"));
    actions_->continueReply(reply);
    QVERIFY(replies_->requests.last().continueFinal);
    QCOMPARE(replies_->requests.last().messages.back(), folio::ChatMessage("assistant", "Once upon"));
    ticket = replies_->requests.last().ticket;
    replies_->say(ticket, " a time");
    actions_->stop(c);  // stopped by the user: can be continued again
    QCOMPARE(store_->message(reply).content, QString("Once upon a time"));
    QVERIFY(messages_->data(messages_->index(1), MessageListModel::CanContinueRole).toBool());
    // A reply that ended by itself has nothing to continue.
    const qint64 done = actions_->send(c, "Thanks");
    replies_->say(replies_->requests.last().ticket, "You are welcome.");
    replies_->end(replies_->requests.last().ticket);
    QVERIFY(!GenerationHub::canContinue(store_->message(done)));
    MessageRecord full = store_->message(done);
    full.stats.finishReason = "context";  // no room left in the context to go on
    QVERIFY(!GenerationHub::canContinue(full));
    full.stats.finishReason = "length";
    QVERIFY(GenerationHub::canContinue(full));
}

void ChatModelsTest::continueWithNoTextStartsAfresh() {
    const qint64 c = actions_->newConversation();
    const qint64 reply = actions_->send(c, "Hi");
    hub_->interruptAll();  // killed before the first token
    QCOMPARE(store_->message(reply).status, MessageStatus::Interrupted);
    QVERIFY(!GenerationHub::canContinue(store_->message(reply)));
    actions_->continueReply(reply);
    QVERIFY(!replies_->requests.last().continueFinal);
    QCOMPARE(replies_->requests.last().messages, (Messages{{"user", "Hi"}}));
    replies_->say(replies_->requests.last().ticket, "Hello");
    replies_->end(replies_->requests.last().ticket);
    QCOMPARE(store_->message(reply).content, QString("Hello"));
}

void ChatModelsTest::failedReplyIsMarked() {
    const qint64 c = actions_->newConversation();
    messages_->setConversationId(c);
    QSignalSpy errors(hub_.get(), &GenerationHub::error);
    const qint64 reply = actions_->send(c, "Hi");
    replies_->end(replies_->requests.last().ticket, 0, true, "prompt is longer than the model's context (4096 tokens)");
    QCOMPARE(errors.count(), 1);
    QVERIFY(errors.first().first().toString().contains("context"));
    QCOMPARE(store_->message(reply).status, MessageStatus::Error);
    // The reason stays with the reply (in the database and the list), not only in the banner.
    QCOMPARE(store_->message(reply).error, QString("prompt is longer than the model's context (4096 tokens)"));
    QCOMPARE(role(1, MessageListModel::StatusRole), QString("error"));
    QCOMPARE(role(1, MessageListModel::ErrorRole), QString("prompt is longer than the model's context (4096 tokens)"));
    QVERIFY(!messages_->data(messages_->index(1), MessageListModel::CanContinueRole).toBool());  // no text
    // Regenerating keeps the failed reply, with its reason, as a branch.
    actions_->regenerate(reply);
    replies_->say(replies_->requests.last().ticket, "Hello");
    replies_->end(replies_->requests.last().ticket);
    QCOMPARE(role(1, MessageListModel::ErrorRole), QString());
    QCOMPARE(store_->message(reply).error, QString("prompt is longer than the model's context (4096 tokens)"));
}

void ChatModelsTest::importedRepliesSayTheyAreImported() {
    const QByteArray json = R"({"format": "folio-conversation", "version": 1, "title": "Imported notes",
        "messages": [
          {"id": 1, "role": "user", "content": "Show me a list", "parent": null},
          {"id": 2, "role": "assistant", "content": "- one\n- two", "parent": 1},
          {"id": 3, "role": "assistant", "content": "- three", "parent": 1, "model": "SomeModel-7B",
           "decode_tok_s": 99.5, "ttft_ms": 12, "generated_tokens": 40}
        ], "active_leaf": 2})";
    const qint64 c = folio::app::importJson(*store_, json);
    messages_->setConversationId(c);
    QCOMPARE(messages_->rowCount(), 2);
    QVERIFY(messages_->data(messages_->index(1), MessageListModel::ImportedRole).toBool());
    QCOMPARE(role(1, MessageListModel::AuthorRole), QString("Imported"));
    QCOMPARE(role(1, MessageListModel::DetailsRole), QString("from an imported file, not generated here"));
    // A model named in the file is shown as the file's claim, and its figures are not shown at all.
    actions_->switchBranch(messages_->data(messages_->index(1), MessageListModel::MessageIdRole).toLongLong(), +1);
    QCOMPARE(role(1, MessageListModel::AuthorRole), QString("Imported · SomeModel-7B"));
    QVERIFY(!role(1, MessageListModel::DetailsRole).contains("tok/s"));
    // A reply made here in the imported chat is not imported.
    actions_->send(c, "More");
    replies_->end(replies_->requests.last().ticket, 3);
    QCOMPARE(role(3, MessageListModel::AuthorRole), QString("stories260K"));
    QVERIFY(!messages_->data(messages_->index(3), MessageListModel::ImportedRole).toBool());
}

void ChatModelsTest::quitMarksRunningRepliesInterrupted() {
    const qint64 c = actions_->newConversation();
    const qint64 reply = actions_->send(c, "Hi");
    replies_->say(replies_->requests.last().ticket, "Hel");
    hub_->interruptAll();
    QCOMPARE(store_->message(reply).status, MessageStatus::Interrupted);
    QCOMPARE(store_->message(reply).content, QString("Hel"));
    QCOMPARE(replies_->cancelled.size(), 1);
}

void ChatModelsTest::sideBySideSendsToEveryColumn() {
    MonitorModel monitor([](qint64) { return QString(); });
    CompareModel cmp(store_.get(), hub_.get(), actions_.get(), &monitor);
    cmp.startNew(3, "You are a poet.");
    QCOMPARE(cmp.rowCount(), 3);
    QCOMPARE(cmp.data(cmp.index(1), CompareModel::PresetRole).toString(), QString("Precise"));
    cmp.setPreset(2, "Deterministic");
    QCOMPARE(cmp.send("A haiku about rain"), 3);
    QVERIFY(cmp.generating());
    QCOMPARE(replies_->requests.size(), 3);
    QSet<QString> tags;
    for (const GenerationRequest& r : replies_->requests) {
        tags << r.tag;
        QCOMPARE(r.messages.front(), folio::ChatMessage("system", "You are a poet."));
        QCOMPARE(r.messages.back(), folio::ChatMessage("user", "A haiku about rain"));
    }
    QCOMPARE(tags.size(), 3);
    QCOMPARE(replies_->requests[2].sampling, presetNamed("Deterministic").settings);
    // Shared-prefix figures come from the engine's per-sequence stats.
    folio::EngineStats s;
    s.kv.prefix_lookup_tokens = 60;
    s.kv.prefix_hit_tokens = 30;
    for (int i = 0; i < 3; ++i) {
        folio::SequenceStats q;
        q.tag = replies_->requests[i].tag.toStdString();
        q.state = folio::SequenceStats::State::Decoding;
        q.prompt_tokens = 30;
        q.generated_tokens = 2;
        q.blocks = 3;
        q.shared_blocks = 2;
        q.decode_tok_s = 10;
        s.sequences.push_back(q);
    }
    monitor.apply(s);
    QCOMPARE(cmp.prefixHitRate(), 0.5);
    QCOMPARE(cmp.sharedBlocks(), 2);
    QCOMPARE(cmp.data(cmp.index(0), CompareModel::SharedBlocksRole).toInt(), 2);
    for (int i = 0; i < 3; ++i) {
        replies_->say(replies_->requests[i].ticket, QStringLiteral("poem %1").arg(i));
        replies_->end(replies_->requests[i].ticket);
        auto* column = qobject_cast<MessageListModel*>(cmp.data(cmp.index(i), CompareModel::MessagesRole).value<QObject*>());
        QVERIFY(column);
        QCOMPARE(column->lastText(), QStringLiteral("poem %1").arg(i));
    }
    QVERIFY(!cmp.generating());
}

void ChatModelsTest::filterAndSearchModels() {
    actions_->newConversation("Rust lifetimes");
    const qint64 c = actions_->newConversation("Pasta <recipes>");
    actions_->send(c, "How long to boil <tagliatelle>?");
    replies_->end(replies_->requests.last().ticket);
    ConversationListModel list(store_.get(), hub_.get());
    ConversationFilterModel filter(&list);
    QCOMPARE(filter.rowCount(), 2);
    filter.setFilterText("rust");
    QCOMPARE(filter.rowCount(), 1);
    QCOMPARE(filter.data(filter.index(0, 0), ConversationListModel::TitleRole).toString(), QString("Rust lifetimes"));
    filter.setFilterText("");
    QCOMPARE(filter.rowCount(), 2);

    SearchResultsModel search(store_.get());
    search.setQuery("tagliat");
    QCOMPARE(search.rowCount(), 1);
    const QString snippet = search.data(search.index(0), SearchResultsModel::SnippetRole).toString();
    QVERIFY2(snippet.contains("&lt;<b>tagliatelle</b>&gt;"), qPrintable(snippet));  // escaped, then marked
    QCOMPARE(search.data(search.index(0), SearchResultsModel::TitleRole).toString(), QString("Pasta <recipes>"));
}

void ChatModelsTest::monitorModelFollowsSnapshots() {
    MonitorModel monitor([](qint64 id) { return id == 7 ? QString("Seven") : QString(); });
    folio::EngineStats s;
    s.backend = "cpu";
    s.kv.blocks_total = 100;
    s.kv.blocks_used = 10;
    s.kv_cache_dtype = "fp8_e4m3";
    s.kv_bytes_per_block = 5120;
    s.decode_tok_s = 42;
    s.memory.device_used = uint64_t(3) << 30;
    folio::SequenceStats c7;
    c7.tag = "c7";
    c7.state = folio::SequenceStats::State::Decoding;
    c7.prompt_tokens = 12;
    c7.generated_tokens = 3;
    c7.blocks = 2;
    c7.shared_blocks = 1;
    c7.decode_tok_s = 40;
    s.sequences = {c7};
    QSignalSpy updated(&monitor, &MonitorModel::updated);
    monitor.apply(s);
    QCOMPARE(updated.count(), 1);
    QVERIFY(!monitor.gpu());
    QCOMPARE(monitor.memoryLabel(), QString("Process memory"));
    QCOMPARE(monitor.memorySeries()->values(), QList<qreal>{3.0});
    QCOMPARE(monitor.decodeSeries()->values(), QList<qreal>{42});
    QCOMPARE(monitor.sequences()->data(monitor.sequences()->index(0), SequenceStatsModel::TitleRole).toString(), QString("Seven"));
    QCOMPARE(monitor.sequences()->data(monitor.sequences()->index(0), SequenceStatsModel::StateRole).toString(), QString("decoding"));
    // QML reads the engine's struct through the gadgets: monitor.stats.kv.blocksUsed and so on.
    QQmlEngine qml;
    qml.rootContext()->setContextProperty("monitor", &monitor);
    const auto read = [&](const char* expression) {
        QQmlExpression e(qml.rootContext(), nullptr, QString::fromLatin1(expression));
        const QVariant v = e.evaluate();
        if (e.hasError()) qWarning() << e.error();
        return v;
    };
    QCOMPARE(read("monitor.stats.kv.blocksUsed").toLongLong(), 10);
    QCOMPARE(read("monitor.stats.kv.blocksTotal").toLongLong(), 100);
    QCOMPARE(read("monitor.stats.decodeTokS").toDouble(), 42.0);
    QCOMPARE(read("monitor.stats.memory.usedBytes").toDouble(), double(uint64_t(3) << 30));
    QCOMPARE(read("monitor.stats.backend").toString(), QString("cpu"));
    QCOMPARE(read("monitor.stats.kvCacheDtype").toString(), QString("fp8_e4m3"));  // the KV pool's element type and block size
    QCOMPARE(read("monitor.stats.kvBytesPerBlock").toDouble(), 5120.0);
    // No engine step since the last snapshot: the engine is idle, whatever rate its last step left.
    s.last_batch_seqs = 3;
    monitor.apply(s);
    QCOMPARE(monitor.stats().decode_tok_s, 0.0);
    QCOMPARE(monitor.stats().last_batch_seqs, 0);
    QCOMPARE(read("monitor.stats.batchSeqs").toInt(), 0);
    QCOMPARE(monitor.decodeSeries()->values(), (QList<qreal>{42, 0}));
    s.steps += 10;
    monitor.apply(s);
    QCOMPARE(monitor.stats().decode_tok_s, 42.0);
    QCOMPARE(read("monitor.stats.batchSeqs").toInt(), 3);
    for (int i = 0; i < MonitorModel::kSamples + 10; ++i) monitor.apply(s);
    QCOMPARE(monitor.decodeSeries()->values().size(), MonitorModel::kSamples);  // a 60 s window
    s.backend = "cuda";
    monitor.apply(s);
    QCOMPARE(monitor.memoryLabel(), QString("VRAM"));

    // The pool's counters pass through as the engine reports them.
    s.peak_blocks_used = 31;
    s.kv.cow_copies = 2;
    s.kv.evictions = 5;
    s.kv.prefix_hit_tokens = 48;
    s.kv.prefix_lookup_tokens = 96;
    s.kv.slots_allocated = 160;
    s.kv.slots_filled = 120;
    monitor.apply(s);
    QCOMPARE(read("monitor.stats.peakBlocksUsed").toLongLong(), 31);
    QCOMPARE(read("monitor.stats.kv.cowCopies").toLongLong(), 2);
    QCOMPARE(read("monitor.stats.kv.evictions").toLongLong(), 5);
    QCOMPARE(read("monitor.stats.kv.prefixHitTokens").toLongLong(), 48);
    QCOMPARE(read("monitor.stats.kv.prefixLookupTokens").toLongLong(), 96);
    QCOMPARE(read("monitor.stats.kv.prefixHitRate").toDouble(), 0.5);
    QCOMPARE(read("monitor.stats.kv.fragmentation").toDouble(), 0.25);

    // A finished reply stays in the per-conversation table with its final prefill and decode speeds,
    // after the running ones, until its conversation runs again.
    SequenceStatsModel* seqs = monitor.sequences();
    ReplyStats done;
    done.timings.prompt_tokens = 20;
    done.timings.generated_tokens = 64;
    done.timings.prefill_tok_s = 900;
    done.timings.decode_tok_s = 120;
    monitor.recordFinished(9, done);
    QCOMPARE(seqs->rowCount(), 2);
    QCOMPARE(seqs->data(seqs->index(0), SequenceStatsModel::TagRole).toString(), QString("c7"));
    QCOMPARE(seqs->data(seqs->index(1), SequenceStatsModel::StateRole).toString(), QString("finished"));
    QCOMPARE(seqs->data(seqs->index(1), SequenceStatsModel::PrefillRole).toDouble(), 900.0);
    QCOMPARE(seqs->data(seqs->index(1), SequenceStatsModel::DecodeRole).toDouble(), 120.0);
    QCOMPARE(seqs->data(seqs->index(1), SequenceStatsModel::GeneratedTokensRole).toInt(), 64);
    QCOMPARE(seqs->find(9), nullptr);  // not in the engine
    monitor.recordFinished(7, done);   // c7 ended: no longer listed as running
    QCOMPARE(seqs->rowCount(), 2);
    QCOMPARE(seqs->data(seqs->index(0), SequenceStatsModel::TagRole).toString(), QString("c7"));
    QCOMPARE(seqs->data(seqs->index(0), SequenceStatsModel::StateRole).toString(), QString("finished"));
    folio::SequenceStats c9;
    c9.tag = "c9";
    c9.state = folio::SequenceStats::State::Prefilling;
    c9.prompt_tokens = 30;
    c9.blocks = 2;
    s.sequences = {c9};
    monitor.apply(s);  // c9 runs again: its live row replaces the finished one
    QCOMPARE(seqs->rowCount(), 2);
    QCOMPARE(seqs->data(seqs->index(0), SequenceStatsModel::StateRole).toString(), QString("prefilling"));
    QCOMPARE(seqs->data(seqs->index(1), SequenceStatsModel::TagRole).toString(), QString("c7"));
    for (int c = 100; c < 120; ++c) monitor.recordFinished(c, done);
    QCOMPARE(seqs->rowCount(), 1 + SequenceStatsModel::kFinishedRows);
}

// A long reply streaming into the parts model: a part that grows is one dataChanged for its row, a
// new part one rowsInserted; nothing is reset, and the model object is the same from start to end,
// so the delegates on screen (a code block and its copy button) are never made again.
void ChatModelsTest::partsUpdateInPlaceWhileStreaming() {
    const qint64 c = actions_->newConversation();
    messages_->setConversationId(c);
    actions_->send(c, "Show me code");
    const quint64 ticket = replies_->requests.last().ticket;
    MessagePartsModel* p = parts(1);
    QVERIFY(p);
    QVERIFY(!parts(0));  // the user's message has none
    QAbstractItemModelTester tester(p, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserted(p, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(p, &QAbstractItemModel::rowsRemoved);
    QSignalSpy changed(p, &QAbstractItemModel::dataChanged);
    QSignalSpy reset(p, &QAbstractItemModel::modelReset);

    replies_->say(ticket, "Here is a loop:\n\n");
    QCOMPARE(p->rowCount(), 1);
    replies_->say(ticket, "```cpp\n");
    QCOMPARE(p->rowCount(), 2);
    QCOMPARE(part(1, 1, MessagePartsModel::KindRole).toString(), QString("code"));
    const int insertsBefore = int(inserted.count());
    changed.clear();
    for (int i = 0; i < 50; ++i) replies_->say(ticket, QStringLiteral("for (int i = 0; i < %1; ++i) {}\n").arg(i));
    QCOMPARE(inserted.count(), insertsBefore);  // the code block grew in place
    QCOMPARE(changed.count(), 50);
    for (const QList<QVariant>& args : std::as_const(changed)) {
        QCOMPARE(args.at(0).toModelIndex().row(), 1);  // only the code block's row
        QCOMPARE(args.at(2).value<QList<int>>(), QList<int>{MessagePartsModel::TextRole});
    }
    changed.clear();
    replies_->say(ticket, "```\nThat is all.");
    QCOMPARE(p->rowCount(), 3);
    QVERIFY(!part(1, 1, MessagePartsModel::OpenRole).toBool());
    // The fence closed: the code block's row changes (no longer open, no empty line still being written).
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.first().at(0).toModelIndex().row(), 1);
    QCOMPARE(changed.first().at(2).value<QList<int>>(), (QList<int>{MessagePartsModel::TextRole, MessagePartsModel::OpenRole}));
    replies_->end(ticket, 60);
    QCOMPARE(parts(1), p);  // the finished reply keeps the same parts model
    QCOMPARE(p->rowCount(), 3);
    QCOMPARE(reset.count(), 0);
    QCOMPARE(removed.count(), 0);
    // Text that turns a part into another kind (a line becomes a fence) replaces just that row.
    const qint64 c2 = actions_->newConversation();
    messages_->setConversationId(c2);
    actions_->send(c2, "More");
    const quint64 t2 = replies_->requests.last().ticket;
    replies_->say(t2, "Intro\n``");
    MessagePartsModel* q = parts(1);
    QCOMPARE(q->rowCount(), 1);
    QSignalSpy qRemoved(q, &QAbstractItemModel::rowsRemoved);
    replies_->say(t2, "`py\nx = 1");
    QCOMPARE(q->rowCount(), 2);
    QCOMPARE(qRemoved.count(), 0);  // "Intro" stays one prose part, its text changed
    QCOMPARE(q->data(q->index(0), MessagePartsModel::TextRole).toString(), QString("Intro"));
    QCOMPARE(q->data(q->index(1), MessagePartsModel::TextRole).toString(), QString("x = 1"));
}

// A thinking model's reply: "<think>" arrives token by token, the reasoning shows as a part above the
// answer while it thinks, becomes "Thought for N s" at </think>, and the store keeps it apart.
void ChatModelsTest::reasoningStreamsIntoAThinkPart() {
    const qint64 c = actions_->newConversation();
    messages_->setConversationId(c);
    const qint64 reply = actions_->send(c, "What is 2 + 2?");
    const quint64 ticket = replies_->requests.last().ticket;
    MessagePartsModel* p = parts(1);
    replies_->say(ticket, "<th");
    QCOMPARE(p->rowCount(), 0);  // could still be anything
    replies_->say(ticket, "ink>\nTwo");
    QCOMPARE(p->rowCount(), 1);
    QCOMPARE(part(1, 0, MessagePartsModel::KindRole).toString(), QString("think"));
    QVERIFY(part(1, 0, MessagePartsModel::OpenRole).toBool());
    QCOMPARE(part(1, 0, MessagePartsModel::SummaryRole).toString(), QString("Thinking…"));
    QCOMPARE(role(1, MessageListModel::ContentRole), QString());
    QTest::qWait(30);
    replies_->say(ticket, " and two.\n</th");
    QCOMPARE(part(1, 0, MessagePartsModel::TextRole).toString(), QString("Two and two."));
    QVERIFY(part(1, 0, MessagePartsModel::OpenRole).toBool());
    replies_->say(ticket, "ink>\n\nIt is **4**.");
    QCOMPARE(p->rowCount(), 2);
    QVERIFY(!part(1, 0, MessagePartsModel::OpenRole).toBool());
    QVERIFY(part(1, 0, MessagePartsModel::SummaryRole).toString().startsWith("Thought for"));
    QCOMPARE(part(1, 1, MessagePartsModel::TextRole).toString(), QString("It is **4**."));
    QCOMPARE(role(1, MessageListModel::ContentRole), QString("It is **4**."));
    const qint64 thought = hub_->liveReasoningMs(reply);
    QVERIFY2(thought >= 25 && thought < 5000, qPrintable(QString::number(thought)));  // first token to </think>
    replies_->end(ticket, 12);
    const MessageRecord m = store_->message(reply);
    QCOMPARE(m.content, QString("It is **4**."));
    QCOMPARE(m.reasoning, QString("Two and two."));
    QCOMPARE(m.reasoningMs, thought);
    QCOMPARE(parts(1), p);
    QCOMPARE(p->rowCount(), 2);
    // Read back later (another conversation, then this one again): the same parts from the store.
    messages_->setConversationId(actions_->newConversation());
    messages_->setConversationId(c);
    QCOMPARE(parts(1)->rowCount(), 2);
    QCOMPARE(part(1, 0, MessagePartsModel::SummaryRole).toString(), thoughtFor(thought));
    // A reply with no think block has no think part.
    actions_->send(c, "Thanks");
    replies_->say(replies_->requests.last().ticket, "You are welcome.");
    replies_->end(replies_->requests.last().ticket);
    QCOMPARE(parts(3)->rowCount(), 1);
    QCOMPARE(part(3, 0, MessagePartsModel::KindRole).toString(), QString("prose"));
    QCOMPARE(store_->message(store_->activePath(c).last().id).reasoning, QString());
}

// Stopped while thinking: the reasoning is kept, there is no answer to continue, and Continue starts
// the reply again in place without it.
void ChatModelsTest::replyCutWhileThinking() {
    const qint64 c = actions_->newConversation();
    messages_->setConversationId(c);
    const qint64 reply = actions_->send(c, "Prove it");
    replies_->say(replies_->requests.last().ticket, "<think>\nFirst, note that");
    actions_->stop(c);
    MessageRecord m = store_->message(reply);
    QCOMPARE(m.reasoning, QString("First, note that"));
    QCOMPARE(m.content, QString());
    QCOMPARE(part(1, 0, MessagePartsModel::KindRole).toString(), QString("think"));
    QVERIFY(!GenerationHub::canContinue(m));
    actions_->continueReply(reply);
    QVERIFY(!replies_->requests.last().continueFinal);
    QCOMPARE(replies_->requests.last().messages, (Messages{{"user", "Prove it"}}));
    QCOMPARE(store_->message(reply).reasoning, QString());  // the old thought goes with the fresh start
    replies_->say(replies_->requests.last().ticket, "<think>\nAgain.\n</think>\n\nDone.");
    replies_->end(replies_->requests.last().ticket);
    m = store_->message(reply);
    QCOMPARE(m.reasoning, QString("Again."));
    QCOMPARE(m.content, QString("Done."));
}

// The history a thinking reply leaves: its reasoning goes to the template as reasoning_content, and
// the Qwen3 template drops it from turns before the last user message, as transformers and vLLM
// leave it to; the prompt is exactly what Jinja2 renders (chat-templates/qwen3.json,
// reasoning_content_history.gen).
void ChatModelsTest::historyLeavesReasoningToTheTemplate() {
    const qint64 c = actions_->newConversation();
    messages_->setConversationId(c);
    actions_->send(c, "What is 2 + 2?");
    replies_->say(replies_->requests.last().ticket, "<think>\nTwo and two make four.\n</think>\n\n2 + 2 = 4.");
    replies_->end(replies_->requests.last().ticket);
    actions_->send(c, "And 3 + 3?");
    const GenerationRequest& r = replies_->requests.last();
    QCOMPARE(r.messages, (Messages{{"user", "What is 2 + 2?"}, {"assistant", "2 + 2 = 4.", "Two and two make four."},
                                   {"user", "And 3 + 3?"}}));
    QCOMPARE(qwen3Prompt(r), std::string("<|im_start|>user\nWhat is 2 + 2?<|im_end|>\n<|im_start|>assistant\n2 + 2 = 4.<|im_end|>\n"
                                         "<|im_start|>user\nAnd 3 + 3?<|im_end|>\n<|im_start|>assistant\n"));
}

// The chat's thinking switch reaches the template as enable_thinking: off, Qwen3's generation prompt
// closes an empty think block; on, it leaves the model to think.
void ChatModelsTest::thinkingSwitchReachesTheTemplate() {
    const qint64 c = actions_->newConversation();
    ConversationSettings settings(store_.get());
    settings.setConversationId(c);
    QVERIFY(settings.thinking());
    actions_->send(c, "Hello, how are you?");
    const std::string on = qwen3Prompt(replies_->requests.last());
    QVERIFY(replies_->requests.last().enableThinking);
    QCOMPARE(on, std::string("<|im_start|>user\nHello, how are you?<|im_end|>\n<|im_start|>assistant\n"));
    replies_->end(replies_->requests.last().ticket);
    settings.setThinking(false);
    QVERIFY(!store_->conversation(c).thinking);  // saved with the chat
    const qint64 userId = store_->activePath(c).first().id;
    actions_->regenerate(store_->activePath(c).last().id);
    QCOMPARE(store_->activePath(c).first().id, userId);
    QVERIFY(!replies_->requests.last().enableThinking);
    QCOMPARE(qwen3Prompt(replies_->requests.last()), on + "<think>\n\n</think>\n\n");
    // Another chat keeps its own switch.
    QVERIFY(store_->conversation(actions_->newConversation()).thinking);
}

// drafts = 3: one request with n = 3; each draft's text streams into its own slot (the parts model
// shows the chosen one), the switcher flips between them while they stream, the message ends with
// its last draft.
void ChatModelsTest::draftsStreamIntoTheirOwnSlots() {
    const qint64 c = actions_->newConversation();
    ConversationSettings settings(store_.get());
    settings.setConversationId(c);
    settings.setDrafts(3);
    QCOMPARE(store_->conversation(c).drafts, 3);
    messages_->setConversationId(c);
    QAbstractItemModelTester tester(messages_.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    const qint64 reply = actions_->send(c, "Name a colour");
    QCOMPARE(replies_->requests.size(), 1);  // one request, not three
    const GenerationRequest r = replies_->requests[0];
    QCOMPARE(r.n, 3);
    QCOMPARE(toEngineRequest(r).n, 3);
    QCOMPARE(messages_->data(messages_->index(1), MessageListModel::DraftCountRole).toInt(), 3);
    QCOMPARE(messages_->data(messages_->index(1), MessageListModel::DraftIndexRole).toInt(), 1);

    replies_->say(r.ticket, "Red", 0);
    replies_->say(r.ticket, "Blue", 1);
    replies_->say(r.ticket, "<think>\nhmm</think>Green", 2);
    replies_->say(r.ticket, " rose", 0);
    QCOMPARE(role(1, MessageListModel::ContentRole), QString("Red rose"));
    QCOMPARE(part(1, 0, MessagePartsModel::TextRole).toString(), QString("Red rose"));

    // Flip to the third draft mid-stream: its reasoning and answer render through the same parts model.
    actions_->switchDraft(reply, +1);
    actions_->switchDraft(reply, +1);
    actions_->switchDraft(reply, +1);  // past the last: stays
    QCOMPARE(messages_->data(messages_->index(1), MessageListModel::DraftIndexRole).toInt(), 3);
    QCOMPARE(role(1, MessageListModel::ContentRole), QString("Green"));
    QCOMPARE(part(1, 0, MessagePartsModel::KindRole).toString(), QString("think"));
    QCOMPARE(part(1, 0, MessagePartsModel::TextRole).toString(), QString("hmm"));
    QCOMPARE(part(1, 1, MessagePartsModel::TextRole).toString(), QString("Green"));
    replies_->say(r.ticket, " leaf", 2);
    QCOMPARE(role(1, MessageListModel::ContentRole), QString("Green leaf"));
    // Saved as they stream, each draft in its row, the chosen one as the message.
    QTRY_COMPARE_WITH_TIMEOUT(store_->message(reply).content, QString("Green leaf"), 1000);
    QCOMPARE(store_->drafts(reply)[1].content, QString("Blue"));

    replies_->end(r.ticket, 2, false, {}, 0);
    replies_->end(r.ticket, 1, false, {}, 1);
    QVERIFY(messages_->generating());  // a draft still streams
    QCOMPARE(store_->message(reply).status, MessageStatus::Streaming);
    replies_->say(r.ticket, "!", 1);  // text after a draft's end is dropped (the worker sends none)
    replies_->end(r.ticket, 4, false, {}, 2);
    QVERIFY(!messages_->generating());
    const MessageRecord m = store_->message(reply);
    QCOMPARE(m.status, MessageStatus::Complete);
    QCOMPARE(m.content, QString("Green leaf"));
    QCOMPARE(m.reasoning, QString("hmm"));
    QCOMPARE(m.chosenDraft, 2);
    QCOMPARE(m.stats.timings.generated_tokens, 7);  // all drafts' tokens
    QVERIFY(!GenerationHub::canContinue(m));
    const QList<DraftRecord> d = store_->drafts(reply);
    QCOMPARE(d.size(), 3);
    QCOMPARE(d[0].content, QString("Red rose"));
    QCOMPARE(d[0].generatedTokens, 2);
    QCOMPARE(d[1].content, QString("Blue"));
    QCOMPARE(d[2].finishReason, QString("stop"));
    QCOMPARE(messages_->data(messages_->index(1), MessageListModel::DraftIndexRole).toInt(), 3);
    // After the end, flipping back reads the stored draft.
    actions_->switchDraft(reply, -1);
    QCOMPARE(role(1, MessageListModel::ContentRole), QString("Blue"));
    QCOMPARE(part(1, 0, MessagePartsModel::KindRole).toString(), QString("prose"));
    QCOMPARE(store_->message(reply).chosenDraft, 1);
}

// The chosen draft is the reply the next turn's history sends; regenerating asks for drafts again.
void ChatModelsTest::switchingDraftsChangesTheHistory() {
    const qint64 c = actions_->newConversation();
    store_->setDrafts(c, 2);
    messages_->setConversationId(c);
    const qint64 reply = actions_->send(c, "Pick one");
    const quint64 t = replies_->requests.last().ticket;
    replies_->say(t, "Alpha", 0);
    replies_->say(t, "Beta", 1);
    replies_->end(t, 1, false, {}, 0);
    replies_->end(t, 1, false, {}, 1);
    actions_->send(c, "Why?");
    QCOMPARE(replies_->requests.last().messages, (Messages{{"user", "Pick one"}, {"assistant", "Alpha"}, {"user", "Why?"}}));
    QCOMPARE(replies_->requests.last().n, 2);
    replies_->end(replies_->requests.last().ticket, 0, false, {}, 0);
    replies_->end(replies_->requests.last().ticket, 0, false, {}, 1);

    actions_->switchDraft(reply, +1);
    QCOMPARE(store_->activePath(c)[1].content, QString("Beta"));
    actions_->regenerate(store_->activePath(c).last().id);  // the reply to "Why?" again
    QCOMPARE(replies_->requests.last().messages, (Messages{{"user", "Pick one"}, {"assistant", "Beta"}, {"user", "Why?"}}));
    QCOMPARE(replies_->requests.last().n, 2);
}

// The setting is clamped to 1..4 and saved per chat; a reply asks for that many (local or remote
// engine alike: tst_remote has a server answer them).
void ChatModelsTest::draftsSetting() {
    const qint64 c = actions_->newConversation();
    ConversationSettings settings(store_.get());
    settings.setConversationId(c);
    QCOMPARE(settings.drafts(), 1);
    settings.setDrafts(9);
    QCOMPARE(settings.drafts(), kMaxDrafts);
    settings.setDrafts(0);
    QCOMPARE(settings.drafts(), 1);
    settings.setDrafts(3);
    settings.setConversationId(actions_->newConversation());
    QCOMPARE(settings.drafts(), 1);  // per chat
    settings.setConversationId(c);
    QCOMPARE(settings.drafts(), 3);
    QVERIFY(settings.draftsNote().contains("3 drafts"));

    actions_->send(c, "Hello");
    QCOMPARE(replies_->requests.last().n, 3);
}

// Stop ends every draft at once (one cancel: the engine's first id ends them all); their text stays.
void ChatModelsTest::stoppingDraftsEndsThemAll() {
    const qint64 c = actions_->newConversation();
    store_->setDrafts(c, 2);
    messages_->setConversationId(c);
    const qint64 reply = actions_->send(c, "Go");
    const quint64 t = replies_->requests.last().ticket;
    replies_->say(t, "one", 0);
    replies_->say(t, "two", 1);
    replies_->end(t, 1, false, {}, 0);
    actions_->stop(c);
    QCOMPARE(replies_->cancelled, QList<quint64>{t});
    QVERIFY(!messages_->generating());
    replies_->say(t, " late", 1);  // dropped
    const QList<DraftRecord> d = store_->drafts(reply);
    QCOMPARE(d[0].finishReason, QString("stop"));
    QCOMPARE(d[1].content, QString("two"));
    QCOMPARE(d[1].finishReason, QString("cancelled"));
    QCOMPARE(store_->message(reply).status, MessageStatus::Complete);
    QCOMPARE(store_->message(reply).content, QString("one"));
}

QTEST_GUILESS_MAIN(ChatModelsTest)
#include "tst_chat_models.moc"
