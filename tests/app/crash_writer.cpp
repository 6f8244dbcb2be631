// Child process for tst_crash: streams a reply into the history through the app's ReplyJournal, as the
// app does while a model generates, and reports progress on stdout until the parent kills it.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTextStream>
#include <QTimer>

#include "app/gui/store/chat_store.h"
#include "app/gui/store/reply_journal.h"

using namespace folio::app;

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (argc < 2) return 2;
    ChatStore store(QString::fromLocal8Bit(argv[1]));
    const qint64 c = store.createConversation("crash", "", {}, "");
    MessageRecord user{.conversationId = c, .parentId = 0, .role = "user", .content = "Tell me a long story"};
    store.addMessage(user);
    ReplyJournal journal(&store);
    MessageRecord reply;
    reply.conversationId = c;
    reply.parentId = user.id;
    const qint64 id = journal.begin(reply);
    QTextStream out(stdout);
    out << "reply " << id << Qt::endl;
    QElapsedTimer clock;
    clock.start();
    int n = 0;
    int length = 0;
    QObject::connect(&journal, &ReplyJournal::flushed, [&] {
        out << "flushed " << length << " " << clock.elapsed() << Qt::endl;
    });
    QTimer tokens;
    QObject::connect(&tokens, &QTimer::timeout, [&] {
        const QString delta = QStringLiteral("word%1 ").arg(n++);
        journal.append(id, delta);
        length += int(delta.size());
        out << "appended " << length << " " << clock.elapsed() << Qt::endl;
    });
    tokens.start(5);
    return app.exec();
}
