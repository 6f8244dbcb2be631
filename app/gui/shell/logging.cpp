#include "app/gui/shell/logging.h"

#include <QDir>
#include <QMetaObject>
#include <QPointer>
#include <mutex>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/dist_sink.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "app/gui/shell/log_model.h"

namespace folio::app {
namespace {

class UiSink : public spdlog::sinks::base_sink<std::mutex> {
public:
    explicit UiSink(LogModel* model) : model_(model) { set_level(spdlog::level::warn); }

protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        const QString level = msg.level >= spdlog::level::err ? QStringLiteral("error") : QStringLiteral("warning");
        const QString text = QString::fromUtf8(msg.payload.data(), qsizetype(msg.payload.size()));
        // Qt's own messages (QML binding warnings and the like) are for the log file, not the user.
        if (text.startsWith(QLatin1String("qt: "))) return;
        QPointer<LogModel> model = model_;
        if (!model) return;
        QMetaObject::invokeMethod(model, [model, level, text] { if (model) model->add(level, text); },
                                  Qt::QueuedConnection);
    }
    void flush_() override {}

private:
    QPointer<LogModel> model_;
};

void qtMessages(QtMsgType type, const QMessageLogContext&, const QString& text) {
    const std::string s = text.toStdString();
    switch (type) {
    case QtDebugMsg: spdlog::debug("qt: {}", s); break;
    case QtInfoMsg: spdlog::info("qt: {}", s); break;
    case QtWarningMsg: spdlog::warn("qt: {}", s); break;
    case QtCriticalMsg: spdlog::error("qt: {}", s); break;
    case QtFatalMsg: spdlog::critical("qt: {}", s); spdlog::shutdown(); std::abort();
    }
}

}  // namespace

QString setupLogging(const QString& dataDir, LogModel* ui) {
    QDir().mkpath(dataDir);
    const QString file = QDir(dataDir).filePath("folio.log");
    auto sinks = std::make_shared<spdlog::sinks::dist_sink_mt>();
    sinks->add_sink(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    try {
        sinks->add_sink(std::make_shared<spdlog::sinks::rotating_file_sink_mt>(file.toStdString(), 5 << 20, 3));
    } catch (const spdlog::spdlog_ex& e) {
        fprintf(stderr, "folio: cannot write the log file %s: %s\n", qPrintable(file), e.what());
    }
    if (ui) sinks->add_sink(std::make_shared<UiSink>(ui));
    auto logger = std::make_shared<spdlog::logger>("folio", sinks);
    logger->set_pattern("%Y-%m-%d %H:%M:%S.%e %^%l%$ %v");
    logger->flush_on(spdlog::level::info);  // low volume: every line reaches the file at once
    spdlog::set_default_logger(logger);
    qInstallMessageHandler(qtMessages);
    return file;
}

}  // namespace folio::app
