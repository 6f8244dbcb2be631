// Child process for tst_crash: the app's own path from the engine to the history. It loads a model
// into the EngineBridge (the engine on its worker thread, which gathers tokens for 16 ms), and lets
// the GenerationHub stream replies into the ReplyJournal (written every 250 ms), as the app is wired
// (app_controller.cpp). Three replies at a time, each in a new conversation, a new one as each ends,
// until the parent kills it. Several at once keep the journal's timer running (it stops when no reply
// is open), so it writes every 250 ms even where one reply alone would end in less than that.
// With DRAFTS > 1 (third argument) every reply has that many drafts streaming at once (one engine
// request for them all, sampled at temperature 0.8 so that they differ).
// It reports on stdout what the GUI thread saw:
//   reply <id>                             a reply started
//   appended <id> <length> <ms> <base64>   text of reply <id> arrived (its length so far, the delta)
//   draft <id> <i> <length> <ms> <base64>  the same for draft i of a reply with drafts
//   finished <id>                          a reply ended
//   flushed <ms>                           the journal wrote what it had
#include <QCoreApplication>

#include <algorithm>
#include <QElapsedTimer>
#include <QTextStream>

#include "app/gui/bridge/engine_bridge.h"
#include "app/gui/chat/chat_actions.h"
#include "app/gui/chat/generation_hub.h"
#include "app/gui/chat/sampling_presets.h"
#include "app/gui/store/chat_store.h"
#include "app/gui/store/reply_journal.h"

using namespace folio::app;

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (argc < 3) {
        QTextStream(stderr) << "usage: folio_crash_app_writer HISTORY_DB MODEL_DIR [DRAFTS]\n";
        return 2;
    }
    const int drafts = argc > 3 ? std::max(1, QByteArray(argv[3]).toInt()) : 1;
    ChatStore store(QString::fromLocal8Bit(argv[1]));
    ReplyJournal journal(&store);  // the app's interval (250 ms)
    EngineBridge bridge;
    GenerationHub hub(&store, &journal, &bridge);
    ChatActions actions(&store, &hub);
    QTextStream out(stdout);
    QElapsedTimer clock;
    clock.start();

    QHash<qint64, int> length;         // reply -> characters the hub has seen
    QHash<QString, int> draftLength;   // "reply/draft" -> characters seen
    QObject::connect(&hub, &GenerationHub::replyStarted, [&](qint64, qint64 id) { out << "reply " << id << Qt::endl; });
    QObject::connect(&hub, &GenerationHub::replyChanged, [&](qint64, qint64 id) {
        const QString text = hub.liveText(id);
        const QString delta = text.mid(length.value(id));
        length[id] = int(text.size());
        out << "appended " << id << " " << text.size() << " " << clock.elapsed() << " "
            << delta.toUtf8().toBase64() << Qt::endl;
        for (int i = 0; drafts > 1 && i < journal.draftCount(id); ++i) {
            const QString d = journal.split(id, i).answer;
            const QString key = QString::number(id) + "/" + QString::number(i);
            if (d.size() == draftLength.value(key)) continue;
            out << "draft " << id << " " << i << " " << d.size() << " " << clock.elapsed() << " "
                << d.mid(draftLength.value(key)).toUtf8().toBase64() << Qt::endl;
            draftLength[key] = int(d.size());
        }
    });
    QObject::connect(&journal, &ReplyJournal::flushed, [&] { out << "flushed " << clock.elapsed() << Qt::endl; });

    const auto next = [&] {
        const qint64 c = actions.newConversation(QStringLiteral("crash"), QStringLiteral("Deterministic"));
        SamplingSettings s = presetNamed("Deterministic").settings;
        s.maxTokens = 400;
        if (drafts > 1) {
            s.temperature = 0.8;
            s.seed = 7;
            store.setDrafts(c, drafts);
        }
        store.updateSettings(c, {}, s, QStringLiteral("Deterministic"));
        actions.send(c, QStringLiteral("Once upon a time, there was a little girl"));
    };
    QObject::connect(&hub, &GenerationHub::replyFinished, [&](qint64, qint64 id) {
        out << "finished " << id << Qt::endl;
        next();
    });
    QObject::connect(&bridge, &EngineBridge::stateChanged, [&] {
        if (bridge.state() == EngineBridge::State::Ready && hub.activeCount() == 0) {
            for (int i = 0; i < 3; ++i) next();
        }
        if (bridge.state() == EngineBridge::State::Failed) {
            QTextStream(stderr) << "loading failed: " << bridge.lastError() << "\n";
            QCoreApplication::exit(3);
        }
    });
    bridge.loadModel(QString::fromLocal8Bit(argv[2]), QStringLiteral("cpu"));
    return app.exec();
}
