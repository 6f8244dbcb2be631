// The chat layer between the views and the engine: sending, streaming into the list models and the
// store, branches (regenerate, edit, switch), stop, continue, several conversations at once,
// side-by-side, search and filter models, the monitor model. Replies are played back by the test.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/chat/chat_actions.h"
#include "app/gui/chat/conversation_list_model.h"
#include "app/gui/chat/generation_hub.h"
#include "app/gui/chat/message_list_model.h"
#include "app/gui/chat/sampling_presets.h"
#include "app/gui/chat/search_results_model.h"
#include "app/gui/compare/compare_model.h"
#include "app/gui/monitor/monitor_model.h"
#include "app/gui/store/chat_store.h"
#include "app/gui/store/reply_journal.h"
#include "app/gui/store/transcript_io.h"
#include "tests/app/scripted_replies.h"

using namespace folio::app;
using folio::app::test::ScriptedReplies;

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

private:
    QVariantMap part(int row, int i) const { return messages_->data(messages_->index(row), MessageListModel::PartsRole).toList().at(i).toMap(); }
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
    QCOMPARE(r.messages, (QList<QPair<QString, QString>>{{"system", "Be brief."}, {"user", "Show me code"}}));
    QCOMPARE(r.sampling, presetNamed("Precise").settings);
    QCOMPARE(messages_->rowCount(), 2);
    QVERIFY(messages_->generating());
    QCOMPARE(role(1, MessageListModel::StatusRole), QString("streaming"));
    QCOMPARE(store_->conversation(c).title, QString("Show me code"));

    replies_->say(r.ticket, "Here:\n```py\nprint(");
    QCOMPARE(role(1, MessageListModel::ContentRole), QString("Here:\n```py\nprint("));
    QCOMPARE(part(1, 1).value("kind").toString(), QString("code"));
    QVERIFY(part(1, 1).value("open").toBool());  // the fence is still open while streaming
    replies_->say(r.ticket, "1)\n```\nDone.");
    QCOMPARE(part(1, 1).value("open").toBool(), false);
    QCOMPARE(part(1, 2).value("text").toString(), QString("Done."));
    // Saved while streaming, before the reply ends.
    QTRY_COMPARE_WITH_TIMEOUT(store_->message(reply).content, QString("Here:\n```py\nprint(1)\n```\nDone."), 1000);
    QCOMPARE(store_->message(reply).status, MessageStatus::Streaming);

    replies_->end(r.ticket, 9);
    QVERIFY(!messages_->generating());
    const MessageRecord m = store_->message(reply);
    QCOMPARE(m.status, MessageStatus::Complete);
    QCOMPARE(m.stats.generatedTokens, 9);
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
    QCOMPARE(replies_->requests.last().messages, (QList<QPair<QString, QString>>{{"user", "Name a colour"}}));
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
    QCOMPARE(replies_->requests.last().messages, (QList<QPair<QString, QString>>{{"user", "Name a fruit"}}));
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
    a.stats.generatedTokens = 5;
    store_->addMessage(a);
    messages_->setConversationId(c);
    QCOMPARE(role(1, MessageListModel::StatusRole), QString("interrupted"));
    QVERIFY(messages_->data(messages_->index(1), MessageListModel::CanContinueRole).toBool());
    QCOMPARE(actions_->continueReply(a.id), a.id);
    // The partial reply is the final message, for the engine to go on with (not a new turn after it).
    const GenerationRequest& r = replies_->requests.last();
    QCOMPARE(r.messages, (QList<QPair<QString, QString>>{{"user", "Count"}, {"assistant", "1 2 3"}}));
    QVERIFY(r.continueFinal);
    replies_->say(r.ticket, " 4 5");
    replies_->end(r.ticket, 3);
    QCOMPARE(store_->message(a.id).content, QString("1 2 3 4 5"));
    QCOMPARE(store_->message(a.id).status, MessageStatus::Complete);
    QCOMPARE(store_->message(a.id).stats.generatedTokens, 8);  // the whole reply's tokens
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
    cut.stats.generatedTokens = 2;
    cut.stats.finishReason = "length";
    emit replies_->finished(cut);
    QVERIFY(messages_->data(messages_->index(1), MessageListModel::CanContinueRole).toBool());
    QVERIFY(role(1, MessageListModel::DetailsRole).contains("max tokens reached"));
    actions_->continueReply(reply);
    QVERIFY(replies_->requests.last().continueFinal);
    QCOMPARE(replies_->requests.last().messages.last(), qMakePair(QString("assistant"), QString("Once upon")));
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
    QCOMPARE(replies_->requests.last().messages, (QList<QPair<QString, QString>>{{"user", "Hi"}}));
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
        QCOMPARE(r.messages.first(), qMakePair(QString("system"), QString("You are a poet.")));
        QCOMPARE(r.messages.last(), qMakePair(QString("user"), QString("A haiku about rain")));
    }
    QCOMPARE(tags.size(), 3);
    QCOMPARE(replies_->requests[2].sampling, presetNamed("Deterministic").settings);
    // Shared-prefix figures come from the engine's per-sequence stats.
    StatsSnapshot s;
    s.prefixHitRate = 0.5;
    for (int i = 0; i < 3; ++i) {
        s.sequences << SequenceSnapshot{replies_->requests[i].tag, "decoding", 30, 2, 3, 2, 0, 10};
    }
    monitor.apply(s);
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
    StatsSnapshot s;
    s.backend = "cpu";
    s.blocksTotal = 100;
    s.blocksUsed = 10;
    s.kvCacheDtype = "fp8_e4m3";
    s.kvBytesPerBlock = 5120;
    s.decodeTokS = 42;
    s.memoryUsed = quint64(3) << 30;
    s.sequences << SequenceSnapshot{"c7", "decoding", 12, 3, 2, 1, 0, 40};
    QSignalSpy updated(&monitor, &MonitorModel::updated);
    monitor.apply(s);
    QCOMPARE(updated.count(), 1);
    QVERIFY(!monitor.gpu());
    QCOMPARE(monitor.memoryLabel(), QString("Process memory"));
    QCOMPARE(monitor.memoryUsedGiB(), 3.0);
    QCOMPARE(monitor.kvCacheDtype(), QString("fp8_e4m3"));  // the KV pool's element type and block size
    QCOMPARE(monitor.kvBytesPerBlock(), 5120.0);
    QCOMPARE(monitor.decodeSeries()->values(), QList<qreal>{42});
    QCOMPARE(monitor.sequences()->data(monitor.sequences()->index(0), SequenceStatsModel::TitleRole).toString(), QString("Seven"));
    // No engine step since the last snapshot: the engine is idle, whatever rate its last step left.
    s.batchSeqs = 3;
    monitor.apply(s);
    QCOMPARE(monitor.decodeTokS(), 0.0);
    QCOMPARE(monitor.batchSize(), 0);
    QCOMPARE(monitor.decodeSeries()->values(), (QList<qreal>{42, 0}));
    s.steps += 10;
    monitor.apply(s);
    QCOMPARE(monitor.decodeTokS(), 42.0);
    QCOMPARE(monitor.batchSize(), 3);
    for (int i = 0; i < MonitorModel::kSamples + 10; ++i) monitor.apply(s);
    QCOMPARE(monitor.decodeSeries()->values().size(), MonitorModel::kSamples);  // a 60 s window
    s.backend = "cuda";
    monitor.apply(s);
    QCOMPARE(monitor.memoryLabel(), QString("VRAM"));

    // The pool's history counters pass through as the engine reports them.
    s.peakBlocksUsed = 31;
    s.cowCopies = 2;
    s.evictions = 5;
    s.prefixHitTokens = 48;
    s.prefixLookupTokens = 96;
    monitor.apply(s);
    QCOMPARE(monitor.peakBlocksUsed(), 31);
    QCOMPARE(monitor.cowCopies(), 2);
    QCOMPARE(monitor.evictions(), 5);
    QCOMPARE(monitor.prefixHitTokens(), 48);
    QCOMPARE(monitor.prefixLookupTokens(), 96);

    // A finished reply stays in the per-conversation table with its final prefill and decode speeds,
    // after the running ones, until its conversation runs again.
    SequenceStatsModel* seqs = monitor.sequences();
    ReplyStats done;
    done.promptTokens = 20;
    done.generatedTokens = 64;
    done.prefillTokS = 900;
    done.decodeTokS = 120;
    monitor.recordFinished(9, done);
    QCOMPARE(seqs->rowCount(), 2);
    QCOMPARE(seqs->data(seqs->index(0), SequenceStatsModel::TagRole).toString(), QString("c7"));
    QCOMPARE(seqs->data(seqs->index(1), SequenceStatsModel::StateRole).toString(), QString("finished"));
    QCOMPARE(seqs->data(seqs->index(1), SequenceStatsModel::PrefillRole).toDouble(), 900.0);
    QCOMPARE(seqs->data(seqs->index(1), SequenceStatsModel::DecodeRole).toDouble(), 120.0);
    QCOMPARE(seqs->find(9), nullptr);  // not in the engine
    monitor.recordFinished(7, done);   // c7 ended: no longer listed as running
    QCOMPARE(seqs->rowCount(), 2);
    QCOMPARE(seqs->data(seqs->index(0), SequenceStatsModel::TagRole).toString(), QString("c7"));
    QCOMPARE(seqs->data(seqs->index(0), SequenceStatsModel::StateRole).toString(), QString("finished"));
    s.sequences = {SequenceSnapshot{"c9", "prefilling", 30, 0, 2, 0, 0, 0}};
    monitor.apply(s);  // c9 runs again: its live row replaces the finished one
    QCOMPARE(seqs->rowCount(), 2);
    QCOMPARE(seqs->data(seqs->index(0), SequenceStatsModel::StateRole).toString(), QString("prefilling"));
    QCOMPARE(seqs->data(seqs->index(1), SequenceStatsModel::TagRole).toString(), QString("c7"));
    for (int c = 100; c < 120; ++c) monitor.recordFinished(c, done);
    QCOMPARE(seqs->rowCount(), 1 + SequenceStatsModel::kFinishedRows);
}

QTEST_GUILESS_MAIN(ChatModelsTest)
#include "tst_chat_models.moc"
