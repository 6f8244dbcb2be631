// crash_trials: kill Folio with SIGKILL while replies stream, many times, and check what the history
// kept (a script-style run that prints a table, not a test).
//
// Each trial starts a child that is the app without its window: the AppController of app/gui (the
// store, the reply journal, the generation hub, the engine bridge, wired as the app wires them) on
// a real model (stories260K), sending prompts in eight chats at once (so that each streams at a
// chat's pace on a CPU) and starting a new chat whenever a reply
// ends. The child prints every change of a reply's text as the views would show it (the hub's
// replyChanged, the text the hub holds), with the monotonic time. At a random moment the parent
// kills it, opens the database as the app does at start and checks: it opens without being moved
// aside, PRAGMA integrity_check says ok, every reply's saved text is a prefix of what was shown, and
// holds everything that was shown more than 500 ms before the kill. The lag of a reply is how long
// before the kill the first text that did not reach the database was shown.
//
//   crash_trials [--trials 100] [--chats 8] [--model DIR] [--data-dir DIR] [--min-ms 200] [--max-ms 3000]
#include <QCoreApplication>
#include <QDir>
#include <QGuiApplication>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <csignal>
#include <ctime>
#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/cli_args.h"
#include "app/cli/command_line.h"
#include "app/gui/chat/generation_hub.h"
#include "app/gui/shell/app_controller.h"
#include "app/gui/shell/log_model.h"
#include "app/gui/store/chat_store.h"

using namespace folio::app;

namespace {

const char* kUsage =
    "usage: crash_trials [--trials N] [--chats N] [--model DIR|dummy:NAME] [--data-dir DIR] [--min-ms MS] [--max-ms MS]\n"
    "       crash_trials --child DATA_DIR MODEL CHATS     (what each trial runs)\n"
    "\n"
    "Kills the app's data path (AppController on stories260K, N chats streaming, default 8) with SIGKILL at a\n"
    "random moment between MIN and MAX ms (default 200 and 3000) after the first reply text, N times\n"
    "(default 100) on one history database, and checks after each kill that the database opens, passes\n"
    "PRAGMA integrity_check and holds every reply text shown more than 500 ms before the kill. Prints a\n"
    "table; exit status 1 when any trial lost text or the database.\n";

constexpr qint64 kAllowedLagMs = 500;

// CLOCK_MONOTONIC: one clock for both processes.
qint64 now_ms() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return qint64(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

void emit_line(const QJsonObject& o) {
    const QByteArray line = QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
    std::fwrite(line.constData(), 1, size_t(line.size()), stdout);
    std::fflush(stdout);
}

// ---- the child: the app without its window ----
int run_child(const QString& dataDir, const QString& model, int chats) {
    LogModel log;
    AppOptions options;
    options.dataDir = dataDir;
    options.model = model;
    options.backend = QStringLiteral("cpu");
    AppController app(options, &log);
    QHash<qint64, int> shownLength;  // reply -> characters already reported
    auto startChat = [&] {
        const qint64 c = app.chat()->newConversation();
        const ConversationRecord rec = app.store()->conversation(c);
        SamplingSettings s = rec.sampling;
        s.maxTokens = 400;  // up to the end of stories260K's 512-token context
        app.store()->updateSettings(c, rec.systemPrompt, s, rec.preset);
        app.settings()->reload();
        app.chat()->send(c, QStringLiteral("Tell me a story about a dog and a cat."));
    };
    QObject::connect(app.hub(), &GenerationHub::replyChanged, [&](qint64, qint64 messageId) {
        const QString text = app.hub()->liveText(messageId);
        const int before = shownLength.value(messageId);
        if (text.size() <= before) return;
        shownLength[messageId] = int(text.size());
        emit_line({{"t", now_ms()}, {"id", messageId}, {"add", text.mid(before)}});
    });
    QObject::connect(app.hub(), &GenerationHub::replyFinished, [&](qint64, qint64 messageId) {
        emit_line({{"t", now_ms()}, {"id", messageId}, {"end", true}});
        startChat();
    });
    QObject::connect(app.engine(), &EngineBridge::stateChanged, [&] {
        if (app.engine()->state() == EngineBridge::State::Ready) {
            emit_line({{"t", now_ms()}, {"ready", true}});
            for (int i = 0; i < chats; ++i) startChat();
        } else if (app.engine()->state() == EngineBridge::State::Failed) {
            std::fprintf(stderr, "crash_trials child: %s\n", qPrintable(app.engine()->lastError()));
            QCoreApplication::exit(1);
        }
    });
    app.start();
    return QCoreApplication::exec();
}

// ---- the parent ----
struct Shown {
    qint64 t;
    int length;  // of the reply's text after this change
};
struct ReplyLog {
    QString text;           // everything shown
    std::vector<Shown> shown;
    bool ended = false;
};

struct TrialResult {
    bool opened = false, intact = false;
    int replies = 0, interrupted = 0, lost = 0;  // lost: replies missing text shown > 500 ms before the kill
    qint64 shownChars = 0;                       // characters shown in all the trial's replies
    qint64 lagMs = 0;                            // the worst reply's lag
    qint64 killAfterMs = 0;
    QString problem;
};

TrialResult run_trial(const QString& self, const QString& dataDir, const QString& model, int chats, int minMs, int maxMs) {
    TrialResult r;
    QProcess child;
    child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    child.start(self, {"--child", dataDir, model, QString::number(chats)});
    if (!child.waitForStarted()) {
        r.problem = "the child did not start";
        return r;
    }
    QHash<qint64, ReplyLog> replies;
    QByteArray buffer;
    qint64 firstText = -1, deadline = -1;
    auto parse = [&] {
        int nl;
        while ((nl = buffer.indexOf('\n')) >= 0) {
            const QJsonObject o = QJsonDocument::fromJson(buffer.left(nl)).object();
            buffer.remove(0, nl + 1);
            if (!o.contains("id")) continue;
            ReplyLog& log = replies[o.value("id").toInteger()];
            if (o.value("end").toBool()) {
                log.ended = true;
                continue;
            }
            log.text += o.value("add").toString();
            log.shown.push_back({o.value("t").toInteger(), int(log.text.size())});
            if (firstText < 0) {
                firstText = o.value("t").toInteger();
                deadline = firstText + minMs + QRandomGenerator::global()->bounded(maxMs - minMs + 1);
            }
        }
    };
    const qint64 giveUp = now_ms() + 60000;
    while (child.state() == QProcess::Running && (deadline < 0 || now_ms() < deadline) && now_ms() < giveUp) {
        child.waitForReadyRead(deadline < 0 ? 50 : int(std::clamp<qint64>(deadline - now_ms(), 1, 50)));
        buffer += child.readAllStandardOutput();
        parse();
    }
    if (child.state() != QProcess::Running) {
        r.problem = "the child ended by itself (exit code " + QString::number(child.exitCode()) + ")";
        return r;
    }
    if (deadline < 0) {
        child.kill();
        child.waitForFinished();
        r.problem = "no reply text within 60 s";
        return r;
    }
    ::kill(pid_t(child.processId()), SIGKILL);
    const qint64 killedAt = now_ms();
    child.waitForFinished(10000);
    buffer += child.readAllStandardOutput();  // what it printed before it died
    parse();
    r.killAfterMs = killedAt - firstText;

    // Opened as the app opens it at start (streaming replies become interrupted).
    ChatStore store(QDir(dataDir).filePath("history.db"));
    r.opened = store.recoveryMessage().isEmpty();
    if (!r.opened) r.problem = store.recoveryMessage();
    QSqlQuery q(store.database());
    r.intact = q.exec("PRAGMA integrity_check") && q.next() && q.value(0).toString() == "ok";
    for (auto it = replies.begin(); it != replies.end(); ++it) {
        const ReplyLog& log = it.value();
        if (log.shown.empty()) continue;
        ++r.replies;
        r.shownChars += log.text.size();
        const MessageRecord m = store.message(it.key());
        if (m.status == MessageStatus::Interrupted) ++r.interrupted;
        const int saved = int(m.content.size());
        int mustHave = 0;
        for (const Shown& s : log.shown)
            if (s.t <= killedAt - kAllowedLagMs) mustHave = s.length;
        const bool prefix = log.text.startsWith(m.content);
        if (!prefix || saved < mustHave) {
            ++r.lost;
            if (r.problem.isEmpty())
                r.problem = QStringLiteral("reply %1: saved %2 characters%3, %4 were shown 500 ms before the kill")
                                .arg(it.key()).arg(saved).arg(prefix ? "" : " that were never shown").arg(mustHave);
        }
        for (const Shown& s : log.shown) {
            if (s.length > saved) {  // the first text shown that the database does not hold
                r.lagMs = std::max(r.lagMs, killedAt - s.t);
                break;
            }
        }
    }
    return r;
}

int run(int argc, char** argv) {
    const folio::cli::Args args(argc, argv, 1, {"trials", "chats", "model", "data-dir", "min-ms", "max-ms", "child"}, {});
    if (args.has("child")) {
        if (args.positional().size() != 2) throw folio::cli::UsageError("--child DATA_DIR MODEL CHATS");
        return run_child(QString::fromStdString(*args.get("child")), QString::fromStdString(args.positional()[0]),
                         std::stoi(args.positional()[1]));
    }
    args.expect_no_positional();
    const int trials = args.get_int("trials", 100), minMs = args.get_int("min-ms", 200), maxMs = args.get_int("max-ms", 3000);
    const int chats = args.get_int("chats", 8);
    if (trials < 1 || chats < 1 || minMs < 0 || maxMs < minMs)
        throw folio::cli::UsageError("--trials and --chats must be positive and 0 <= --min-ms <= --max-ms");
    const QString model = QString::fromStdString(args.get_or("model", std::string(FOLIO_FIXTURES_DIR) + "/models/stories260K"));
    QTemporaryDir temp;
    const QString dataDir = args.has("data-dir") ? QString::fromStdString(*args.get("data-dir")) : temp.path();
    QDir().mkpath(dataDir);

    int opened = 0, intact = 0, lostTrials = 0, replies = 0, interrupted = 0;
    qint64 shownChars = 0;
    std::vector<qint64> lags, killTimes;
    for (int i = 1; i <= trials; ++i) {
        const TrialResult r = run_trial(QCoreApplication::applicationFilePath(), dataDir, model, chats, minMs, maxMs);
        opened += r.opened;
        intact += r.intact;
        lostTrials += r.lost > 0 || !r.opened || !r.intact;
        replies += r.replies;
        interrupted += r.interrupted;
        shownChars += r.shownChars;
        lags.push_back(r.lagMs);
        killTimes.push_back(r.killAfterMs);
        std::printf("trial %3d: killed %5lld ms after the first text, %2d replies (%d interrupted), lag %4lld ms%s%s\n", i,
                    (long long)r.killAfterMs, r.replies, r.interrupted, (long long)r.lagMs, r.problem.isEmpty() ? "" : ": ",
                    qPrintable(r.problem));
        std::fflush(stdout);
    }
    std::sort(lags.begin(), lags.end());
    std::sort(killTimes.begin(), killTimes.end());
    std::printf("\ncrash_trials: %s, %d chats streaming, %d trials on one history database\n", qPrintable(QDir(model).dirName()), chats, trials);
    std::printf("  %-34s %d of %d\n", "database opened (not moved aside)", opened, trials);
    std::printf("  %-34s %d of %d\n", "PRAGMA integrity_check ok", intact, trials);
    std::printf("  %-34s %d (%d interrupted at the kill), %lld characters shown\n", "replies checked", replies, interrupted,
                (long long)shownChars);
    std::printf("  %-34s %d\n", "trials that lost shown text", lostTrials);
    std::printf("  %-34s median %lld ms, worst %lld ms (allowed %lld)\n", "lag (shown, not yet saved)", (long long)lags[lags.size() / 2],
                (long long)lags.back(), (long long)kAllowedLagMs);
    std::printf("  %-34s %lld to %lld ms after the first reply text\n", "kills", (long long)killTimes.front(), (long long)killTimes.back());
    return lostTrials == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    // The child builds the app's objects (some are Qt Gui types) without a window.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    folio::cli::log_to_stderr();  // the child's stdout is its report
    return folio::cli::run_program("crash_trials", kUsage, [&] { return run(argc, argv); });
}
