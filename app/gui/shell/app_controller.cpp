#include "app/gui/shell/app_controller.h"

#include <QDir>
#include <QSettings>
#include <spdlog/spdlog.h>

#include "app/gui/bridge/engine_bridge.h"
#include "app/gui/chat/chat_actions.h"
#include "app/gui/chat/conversation_list_model.h"
#include "app/gui/chat/conversation_settings.h"
#include "app/gui/chat/generation_hub.h"
#include "app/gui/chat/message_list_model.h"
#include "app/gui/chat/sampling_presets.h"
#include "app/gui/chat/search_results_model.h"
#include "app/gui/compare/compare_model.h"
#include "app/gui/models/catalog_model.h"
#include "app/gui/models/download_list_model.h"
#include "app/gui/models/hub_account.h"
#include "app/gui/models/hub_search_model.h"
#include "app/gui/models/local_model_list.h"
#include "app/gui/models/model_fitter.h"
#include "app/gui/models/model_library.h"
#include "app/gui/monitor/monitor_model.h"
#include "app/gui/shell/log_model.h"
#include "app/gui/store/chat_store.h"
#include "app/gui/store/reply_journal.h"
#include "app/gui/store/store_error.h"

namespace folio::app {

AppController::AppController(const AppOptions& options, LogModel* log, QObject* parent)
    : QObject(parent), options_(options), log_(log) {
    QDir().mkpath(options_.dataDir);
    const QString dbPath = QDir(options_.dataDir).filePath("history.db");
    try {
        store_ = std::make_unique<ChatStore>(dbPath);
        storeNotice_ = store_->recoveryMessage();
        if (store_->interruptedAtOpen() > 0) {
            spdlog::info("{} replies were interrupted when Folio last stopped", store_->interruptedAtOpen());
        }
    } catch (const StoreError& e) {
        // Keep the file as it is and run on a temporary history, saying so: never drop data silently.
        storeNotice_ = tr("Your chat history could not be opened: %1. Folio is running with a temporary history "
                          "that will not be saved.").arg(e.message());
        store_ = std::make_unique<ChatStore>(QStringLiteral(":memory:"));
    }
    if (!storeNotice_.isEmpty()) spdlog::error("{}", storeNotice_.toStdString());

    journal_ = std::make_unique<ReplyJournal>(store_.get());
    bridge_ = std::make_unique<EngineBridge>();
    hub_ = std::make_unique<GenerationHub>(store_.get(), journal_.get(), bridge_.get());
    actions_ = std::make_unique<ChatActions>(store_.get(), hub_.get());
    conversationList_ = std::make_unique<ConversationListModel>(store_.get(), hub_.get());
    conversationFilter_ = std::make_unique<ConversationFilterModel>(conversationList_.get());
    search_ = std::make_unique<SearchResultsModel>(store_.get());
    messages_ = std::make_unique<MessageListModel>(store_.get(), hub_.get());
    settings_ = std::make_unique<ConversationSettings>(store_.get());
    presets_ = std::make_unique<SamplingPresetModel>();
    monitor_ = std::make_unique<MonitorModel>([this](qint64 id) { return conversationList_->titleOf(id); });
    compare_ = std::make_unique<CompareModel>(store_.get(), hub_.get(), actions_.get(), monitor_.get());
    library_ = std::make_unique<ModelLibrary>(QDir(options_.dataDir).filePath("settings.ini"));
    const QString settingsFile = QDir(options_.dataDir).filePath("settings.ini");
    hubAccount_ = std::make_unique<HubAccount>(settingsFile, hub::process_environment());
    fitter_ = std::make_unique<ModelFitter>();
    localModels_ = std::make_unique<LocalModelListModel>(hubAccount_.get(), library_.get(), fitter_.get());
    downloads_ = std::make_unique<DownloadListModel>(hubAccount_.get(), settingsFile);
    catalog_ = std::make_unique<CatalogModel>(QStringLiteral(":/folio/catalog/recommended.json"), fitter_.get());
    hubSearch_ = std::make_unique<HubSearchModel>(hubAccount_.get(), fitter_.get());
    localServer_ = std::make_unique<LocalServer>(bridge_.get(), settingsFile);
    remote_ = std::make_unique<RemoteConnection>(bridge_.get(), settingsFile);
    connect(downloads_.get(), &DownloadListModel::downloadFinished, localModels_.get(), &LocalModelListModel::refresh);
    connect(library_.get(), &ModelLibrary::changed, fitter_.get(), [this] { fitter_->probe(library_->backend()); });
    // What the loaded model holds is free for another one (loading it replaces this one).
    connect(bridge_.get(), &EngineBridge::statsUpdated, fitter_.get(),
            [this](const folio::EngineStats& s) { fitter_->setOursInUse(s.memory.weights + s.memory.kv_cache); });

    connect(bridge_.get(), &EngineBridge::statsUpdated, monitor_.get(), &MonitorModel::apply);
    connect(bridge_.get(), &EngineBridge::modelReady, this, [this](const ModelInfo& info) {
        hub_->setModelName(info.name);
        if (info.backend != QLatin1String("remote")) library_->remember(info.spec);  // a server: RemoteConnection keeps it
        monitor_->reset();
        // A server's load comes from its /metrics (info.device is its base URL).
        if (info.backend == QLatin1String("remote")) monitor_->watchServer(info.device, remote_->apiKey());
    });
    connect(bridge_.get(), &EngineBridge::stateChanged, monitor_.get(), [this] {
        if (bridge_->state() != EngineBridge::State::Ready || bridge_->backendName() != QLatin1String("remote")) monitor_->stopWatchingServer();
    });
    connect(hub_.get(), &GenerationHub::error, this, [](const QString& m) { spdlog::error("{}", m.toStdString()); });
    connect(actions_.get(), &ChatActions::error, this, [](const QString& m) { spdlog::error("{}", m.toStdString()); });
    connect(hub_.get(), &GenerationHub::generatingChanged, this, &AppController::generatingCountChanged);
    connect(hub_.get(), &GenerationHub::replyFinished, search_.get(), &SearchResultsModel::refresh);
    connect(hub_.get(), &GenerationHub::replyFinished, monitor_.get(), [this](qint64 c, qint64 messageId) {
        const MessageRecord m = store_->message(messageId);
        if (m.status != MessageStatus::Error) monitor_->recordFinished(c, m.stats);
    });
    connect(actions_.get(), &ChatActions::conversationsChanged, this, [this] {
        conversationList_->reload();
        search_->refresh();
        if (currentConversationId_ && store_->conversation(currentConversationId_).id == 0) setCurrentConversationId(0);
        emit currentConversationChanged();
    });
    const auto conversations = store_->conversations();
    if (!conversations.isEmpty()) setCurrentConversationId(conversations.front().id);
}

AppController::~AppController() {
    hub_->interruptAll();
    journal_->flush();
}

void AppController::start() {
    const QString backend = options_.backend.isEmpty() ? library_->backend() : options_.backend;
    if (!options_.backend.isEmpty()) library_->setBackend(options_.backend);
    fitter_->probe(backend);
    localModels_->refresh();
    // Chats went to a server when the app last ran: connect to it again (a --model given wins).
    if (options_.model.isEmpty() && remote_->restore()) return;
    const QString spec = options_.model.isEmpty() ? library_->lastModel() : options_.model;
    if (!spec.isEmpty()) bridge_->loadModel(spec, backend, library_->quantization(), library_->kvCacheDtype());
}

void AppController::setCurrentConversationId(qint64 id) {
    if (id == currentConversationId_) return;
    currentConversationId_ = id;
    messages_->setConversationId(id);
    settings_->setConversationId(id);
    emit currentConversationChanged();
    if (id > 0) emit conversationOpened(id);
}

QString AppController::currentTitle() const { return conversationList_->titleOf(currentConversationId_); }

int AppController::generatingCount() const { return hub_->activeCount(); }

QString AppController::themeMode() const {
    return QSettings(QDir(options_.dataDir).filePath("settings.ini"), QSettings::IniFormat).value("ui/theme", "system").toString();
}

void AppController::setThemeMode(const QString& mode) {
    QSettings(QDir(options_.dataDir).filePath("settings.ini"), QSettings::IniFormat).setValue("ui/theme", mode);
    emit themeModeChanged();
}

QSize AppController::windowSize() const {
    return QSettings(QDir(options_.dataDir).filePath("settings.ini"), QSettings::IniFormat).value("ui/windowSize").toSize();
}

void AppController::setWindowSize(const QSize& size) {
    if (!size.isValid() || size == windowSize()) return;
    QSettings(QDir(options_.dataDir).filePath("settings.ini"), QSettings::IniFormat).setValue("ui/windowSize", size);
    emit windowSizeChanged();
}

qint64 AppController::newChat() {
    const qint64 id = actions_->newConversation();
    setCurrentConversationId(id);
    return id;
}

void AppController::loadModel(const QString& spec) {
    bridge_->loadModel(spec, library_->backend(), library_->quantization(), library_->kvCacheDtype());
}

void AppController::dismissStoreNotice() {
    storeNotice_.clear();
    emit storeNoticeChanged();
}

}  // namespace folio::app
