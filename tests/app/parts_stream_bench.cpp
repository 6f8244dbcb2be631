// parts_stream_bench: what a streaming reply costs the GUI thread (a benchmark-style run that prints
// a table, not a test).
//
// A scripted source streams a long Markdown reply (about 2000 tokens: prose, headings and several
// code blocks) into the app's own chat path: GenerationHub -> ReplyJournal -> MessageListModel, shown
// by the real MessageDelegate in a ListView that stays at the bottom, as ChatView does. Every 16 ms
// one chunk of tokens arrives (the bridge's per-frame coalescing). It measures
//   - update: the time the chunk takes to reach the views (hub, journal, model, QML bindings, and any
//     delegate the views make), on the GUI thread;
//   - frame: the time from the start of a frame (afterAnimating) to frameSwapped (polish, layout,
//     sync, render; with the software backend all on the GUI thread);
//   - delegates: how many part delegates (prose, heading, quote, code) and how many code blocks were
//     created during the stream, against how many the finished reply has.
// Run it under Xvfb or offscreen, with QT_QUICK_BACKEND=software for a figure that does not depend on
// a GPU driver:
//   QT_QPA_PLATFORM=offscreen QT_QUICK_BACKEND=software build/tests/app/parts_stream_bench [--tokens N] [--per-chunk N]
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QHash>
#include <QPointer>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSet>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "app/gui/chat/generation_hub.h"
#include "app/gui/chat/message_list_model.h"
#include "app/gui/shell/app_controller.h"
#include "app/gui/shell/log_model.h"
#include "app/gui/shell/qml_setup.h"
#include "app/gui/store/chat_store.h"
#include "app/gui/store/reply_journal.h"
#include "tests/app/scripted_replies.h"

using namespace folio::app;

namespace {

// A reply like a model's answer to "show me how": prose, a heading, then code blocks of 18-26 lines
// with prose between them. Tokens are words and the spaces before them, as a BPE vocabulary makes them.
QStringList scriptedTokens(int target) {
    QStringList tokens;
    auto words = [&](const QString& text) {
        const QStringList w = text.split(' ');
        for (int i = 0; i < w.size(); ++i) tokens << (i ? " " + w[i] : w[i]);
    };
    int block = 0;
    while (tokens.size() < target) {
        words(QStringLiteral("Here is step %1 of the parser. It reads the header first, checks every offset against "
                             "the file size, and only then maps the tensors.").arg(block + 1));
        tokens << "\n\n";
        words(QStringLiteral("## Step %1").arg(block + 1));
        tokens << "\n\n" << "```" << "cpp" << "\n";
        for (int line = 0; line < 18 + block % 3 * 4; ++line) {
            words(QStringLiteral("    const int64_t offset_%1 = read_u64(header, %2);  // bytes from the start").arg(line).arg(line * 8));
            tokens << "\n";
        }
        tokens << "```" << "\n\n";
        words(QStringLiteral("The loop above never trusts a length it has not checked; a bad file is refused with the "
                             "tensor's name."));
        tokens << "\n\n";
        ++block;
    }
    tokens.resize(target);
    return tokens;
}

struct Summary {
    double p50 = 0, p95 = 0, max = 0, sum = 0;
};

Summary summarize(std::vector<double> v) {
    Summary s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.p50 = v[v.size() / 2];
    s.p95 = v[std::min(v.size() - 1, size_t(double(v.size()) * 0.95))];
    s.max = v.back();
    for (double x : v) s.sum += x;
    return s;
}

// The visual tree (delegates are not always QObject children of the item that shows them).
QList<QQuickItem*> itemsUnder(QQuickItem* root) {
    QList<QQuickItem*> out;
    QList<QQuickItem*> todo{root};
    while (!todo.isEmpty()) {
        QQuickItem* item = todo.takeLast();
        out << item;
        todo << item->childItems();
    }
    return out;
}

// Counts items by objectName as they appear, and remembers each one (so a recreated delegate counts
// again even if the allocator hands it the same address).
class DelegateCounter {
public:
    explicit DelegateCounter(QStringList names) : names_(std::move(names)) {}
    void scan(QQuickItem* root) {
        for (QQuickItem* item : itemsUnder(root)) {
            const QString n = item->objectName();
            if (!names_.contains(n) || seen_.contains(item)) continue;
            seen_.insert(item);
            QObject::connect(item, &QObject::destroyed, [this, item] { seen_.remove(item); });
            ++created_[n];
        }
    }
    int created(const QString& name) const { return created_.value(name); }
    int alive(QQuickItem* root, const QString& name) const {
        int n = 0;
        for (QQuickItem* item : itemsUnder(root)) n += item->objectName() == name && item->isVisible() ? 1 : 0;
        return n;
    }

private:
    QStringList names_;
    QSet<QObject*> seen_;
    QHash<QString, int> created_;
};

const char* kScene = R"(
import QtQuick
import QtQuick.Controls
import Folio
import Folio.Ui
Window {
    id: root
    width: 1000; height: 800; visible: true
    required property AppController app
    required property MessageListModel messages
    color: Theme.window
    ListView {
        id: list
        anchors.fill: parent
        model: root.messages
        spacing: Theme.xl
        topMargin: Theme.xl
        bottomMargin: Theme.xl
        onContentHeightChanged: Qt.callLater(positionViewAtEnd)
        delegate: MessageDelegate {
            width: Math.min(ListView.view.width - 2 * Theme.xl, Theme.readingWidth)
            x: (ListView.view.width - width) / 2
            app: root.app
        }
    }
}
)";

}  // namespace

int main(int argc, char** argv) {
    QGuiApplication qapp(argc, argv);
    QCommandLineParser cli;
    cli.setApplicationDescription("Streams a scripted long code reply through the chat path and times the GUI thread.");
    cli.addHelpOption();
    QCommandLineOption tokensOpt("tokens", "Tokens in the reply (default 2000).", "N", "2000");
    QCommandLineOption chunkOpt("per-chunk", "Tokens per 16 ms chunk (default 8, about 500 tok/s).", "N", "8");
    cli.addOption(tokensOpt);
    cli.addOption(chunkOpt);
    cli.process(qapp);
    const int total = cli.value(tokensOpt).toInt();
    const int perChunk = std::max(1, cli.value(chunkOpt).toInt());

    QTemporaryDir dir;
    LogModel log;
    AppOptions options;
    options.dataDir = dir.path();
    AppController app(options, &log);  // no model is loaded: only its store and actions are used
    ReplyJournal journal(app.store());
    test::ScriptedReplies replies;
    GenerationHub hub(app.store(), &journal, &replies);
    MessageListModel messages(app.store(), &hub);

    QQmlEngine engine;
    setupQml(engine);
    QQmlComponent component(&engine);
    component.setData(kScene, QUrl("qrc:/parts_stream_bench.qml"));
    QObject* object = component.createWithInitialProperties(
        {{"app", QVariant::fromValue(&app)}, {"messages", QVariant::fromValue(&messages)}});
    auto* window = qobject_cast<QQuickWindow*>(object);
    if (!window) {
        std::fprintf(stderr, "parts_stream_bench: the scene did not load: %s\n", qPrintable(component.errorString()));
        return 1;
    }

    const qint64 c = app.store()->createConversation("bench", "", {}, "");
    MessageRecord user{.conversationId = c, .parentId = 0, .role = "user", .content = "Show me a safe header parser."};
    app.store()->addMessage(user);
    messages.setConversationId(c);
    hub.startReply(c, user.id);
    const quint64 ticket = replies.requests.last().ticket;

    const QStringList tokens = scriptedTokens(total);
    const QStringList names = {"proseBlock", "headingBlock", "quoteBlock", "codeBlock"};
    DelegateCounter counter(names);
    std::vector<double> updateMs, frameMs;
    QElapsedTimer frameClock;
    bool streaming = false;
    QObject::connect(window, &QQuickWindow::afterAnimating, [&] { frameClock.start(); });
    QObject::connect(window, &QQuickWindow::frameSwapped, [&] {
        if (streaming && frameClock.isValid()) frameMs.push_back(double(frameClock.nsecsElapsed()) / 1e6);
        counter.scan(window->contentItem());
    });

    int next = 0;
    QTimer chunks;
    chunks.setInterval(16);
    QObject::connect(&chunks, &QTimer::timeout, [&] {
        streaming = true;
        QString text;
        int n = 0;
        for (; n < perChunk && next < tokens.size(); ++n) text += tokens[next++];
        QElapsedTimer t;
        t.start();
        emit replies.delta(ticket, text, n, 0);
        counter.scan(window->contentItem());  // delegates made by this update
        updateMs.push_back(double(t.nsecsElapsed()) / 1e6);
        if (next >= tokens.size()) {
            chunks.stop();
            // Let the last frames render, then end the reply and report.
            QTimer::singleShot(300, [&] {
                streaming = false;
                replies.end(ticket, total);
                qapp.processEvents();
                counter.scan(window->contentItem());
                qapp.quit();
            });
        }
    });
    QTimer::singleShot(500, [&] { chunks.start(); });  // after the first frames
    qapp.exec();

    const Summary u = summarize(updateMs), f = summarize(frameMs);
    int finalParts = 0;
    for (const QString& n : names) finalParts += counter.alive(window->contentItem(), n);
    std::printf("parts_stream_bench: %d tokens in %zu chunks of %d (one per 16 ms), platform %s, backend %s\n", total,
                updateMs.size(), perChunk, qPrintable(QGuiApplication::platformName()),
                qPrintable(QQuickWindow::sceneGraphBackend().isEmpty() ? QStringLiteral("default") : QQuickWindow::sceneGraphBackend()));
    std::printf("| figure | p50 ms | p95 ms | max ms | total ms | count |\n|---|---|---|---|---|---|\n");
    std::printf("| update (chunk to views) | %.2f | %.2f | %.2f | %.0f | %zu |\n", u.p50, u.p95, u.max, u.sum, updateMs.size());
    std::printf("| frame (animate to swap) | %.2f | %.2f | %.2f | %.0f | %zu |\n", f.p50, f.p95, f.max, f.sum, frameMs.size());
    std::printf("| part delegates created | | | | | %d (the finished reply shows %d) |\n",
                counter.created("proseBlock") + counter.created("headingBlock") + counter.created("quoteBlock") +
                    counter.created("codeBlock"),
                finalParts);
    std::printf("| code blocks created | | | | | %d (the finished reply shows %d) |\n", counter.created("codeBlock"),
                counter.alive(window->contentItem(), "codeBlock"));
    delete object;
    return 0;
}
