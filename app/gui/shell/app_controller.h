#pragma once
// Everything the QML views use, made and wired once: the store, the engine bridge, the generation
// hub, the list models, the monitor, side-by-side and the model library. QML receives it as the
// root's required property `app` (no context properties, no globals).
#include <QObject>
#include <QSize>
#include <memory>
#include <QtQml/qqmlregistration.h>

#include "app/gui/shell/app_options.h"

#include "app/gui/bridge/engine_bridge.h"
#include "app/gui/chat/chat_actions.h"
#include "app/gui/chat/conversation_list_model.h"
#include "app/gui/chat/conversation_settings.h"
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
#include "app/gui/models/remote_connection.h"
#include "app/gui/monitor/monitor_model.h"
#include "app/gui/shell/local_server.h"
#include "app/gui/shell/log_model.h"

namespace folio::app {

class ChatStore;
class ReplyJournal;
class GenerationHub;

class AppController : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by main()")
    Q_PROPERTY(folio::app::EngineBridge* engine READ engine CONSTANT)
    Q_PROPERTY(folio::app::ChatActions* chat READ chat CONSTANT)
    Q_PROPERTY(folio::app::ConversationListModel* allConversations READ allConversations CONSTANT)
    Q_PROPERTY(folio::app::ConversationFilterModel* conversations READ conversations CONSTANT)
    Q_PROPERTY(folio::app::SearchResultsModel* search READ search CONSTANT)
    Q_PROPERTY(folio::app::MessageListModel* messages READ messages CONSTANT)
    Q_PROPERTY(folio::app::ConversationSettings* settings READ settings CONSTANT)
    Q_PROPERTY(folio::app::SamplingPresetModel* presets READ presets CONSTANT)
    Q_PROPERTY(folio::app::MonitorModel* monitor READ monitor CONSTANT)
    Q_PROPERTY(folio::app::CompareModel* compare READ compare CONSTANT)
    Q_PROPERTY(folio::app::ModelLibrary* library READ library CONSTANT)
    Q_PROPERTY(folio::app::HubAccount* hubAccount READ hubAccount CONSTANT)
    Q_PROPERTY(folio::app::ModelFitter* fitter READ fitter CONSTANT)
    Q_PROPERTY(folio::app::LocalModelListModel* localModels READ localModels CONSTANT)
    Q_PROPERTY(folio::app::DownloadListModel* downloads READ downloads CONSTANT)
    Q_PROPERTY(folio::app::CatalogModel* catalog READ catalog CONSTANT)
    Q_PROPERTY(folio::app::HubSearchModel* hubSearch READ hubSearch CONSTANT)
    Q_PROPERTY(folio::app::LogModel* log READ log CONSTANT)
    Q_PROPERTY(folio::app::LocalServer* localServer READ localServer CONSTANT)
    Q_PROPERTY(folio::app::RemoteConnection* remote READ remote CONSTANT)
    Q_PROPERTY(qint64 currentConversationId READ currentConversationId WRITE setCurrentConversationId NOTIFY currentConversationChanged)
    Q_PROPERTY(QString currentTitle READ currentTitle NOTIFY currentConversationChanged)
    Q_PROPERTY(int generatingCount READ generatingCount NOTIFY generatingCountChanged)
    Q_PROPERTY(QString dataDir READ dataDir CONSTANT)
    Q_PROPERTY(QString storeNotice READ storeNotice NOTIFY storeNoticeChanged)
    // start() loads a model (--model, or the one of the last run): the window opens on the chat.
    Q_PROPERTY(bool modelAtStart READ modelAtStart CONSTANT)
    // Why the file dialogs cannot open ("" when they can): Export, Import and Open folder stay off.
    Q_PROPERTY(QString fileDialogProblem READ fileDialogProblem NOTIFY fileDialogProblemChanged)
    Q_PROPERTY(QString themeMode READ themeMode WRITE setThemeMode NOTIFY themeModeChanged)
    // The window's size when it was last resized (invalid before the first time): the next start
    // opens at it.
    Q_PROPERTY(QSize windowSize READ windowSize WRITE setWindowSize NOTIFY windowSizeChanged)
public:
    AppController(const AppOptions& options, LogModel* log, QObject* parent = nullptr);
    ~AppController() override;

    // Loads the model from --model or the last one used, if any.
    void start();

    EngineBridge* engine() const { return bridge_.get(); }
    ChatActions* chat() const { return actions_.get(); }
    ConversationListModel* allConversations() const { return conversationList_.get(); }
    ConversationFilterModel* conversations() const { return conversationFilter_.get(); }
    SearchResultsModel* search() const { return search_.get(); }
    MessageListModel* messages() const { return messages_.get(); }
    ConversationSettings* settings() const { return settings_.get(); }
    SamplingPresetModel* presets() const { return presets_.get(); }
    MonitorModel* monitor() const { return monitor_.get(); }
    CompareModel* compare() const { return compare_.get(); }
    ModelLibrary* library() const { return library_.get(); }
    HubAccount* hubAccount() const { return hubAccount_.get(); }
    ModelFitter* fitter() const { return fitter_.get(); }
    LocalModelListModel* localModels() const { return localModels_.get(); }
    DownloadListModel* downloads() const { return downloads_.get(); }
    CatalogModel* catalog() const { return catalog_.get(); }
    HubSearchModel* hubSearch() const { return hubSearch_.get(); }
    LogModel* log() const { return log_; }
    LocalServer* localServer() const { return localServer_.get(); }
    RemoteConnection* remote() const { return remote_.get(); }
    GenerationHub* hub() const { return hub_.get(); }
    ChatStore* store() const { return store_.get(); }

    qint64 currentConversationId() const { return currentConversationId_; }
    void setCurrentConversationId(qint64 id);
    QString currentTitle() const;
    int generatingCount() const;
    QString dataDir() const { return options_.dataDir; }
    QString storeNotice() const { return storeNotice_; }
    QString fileDialogProblem() const { return fileDialogProblem_; }
    void setFileDialogProblem(const QString& problem) {
        fileDialogProblem_ = problem;
        emit fileDialogProblemChanged();
    }
    bool modelAtStart() const { return !options_.model.isEmpty() || !library_->lastModel().isEmpty(); }
    QString themeMode() const;
    void setThemeMode(const QString& mode);
    QSize windowSize() const;
    void setWindowSize(const QSize& size);

    // A new chat that becomes the current one.
    Q_INVOKABLE qint64 newChat();
    Q_INVOKABLE void loadModel(const QString& spec);
    Q_INVOKABLE void dismissStoreNotice();

signals:
    void currentConversationChanged();
    // A chat was opened or made by the person (not merely renamed or reloaded): the chat view
    // gives its message box the keyboard.
    void conversationOpened(qint64 id);
    void generatingCountChanged();
    void storeNoticeChanged();
    void themeModeChanged();
    void windowSizeChanged();
    void fileDialogProblemChanged();

private:
    AppOptions options_;
    LogModel* log_;
    QString storeNotice_;
    QString fileDialogProblem_;
    qint64 currentConversationId_ = 0;
    std::unique_ptr<ChatStore> store_;
    std::unique_ptr<ReplyJournal> journal_;
    std::unique_ptr<EngineBridge> bridge_;
    std::unique_ptr<GenerationHub> hub_;
    std::unique_ptr<ChatActions> actions_;
    std::unique_ptr<ConversationListModel> conversationList_;
    std::unique_ptr<ConversationFilterModel> conversationFilter_;
    std::unique_ptr<SearchResultsModel> search_;
    std::unique_ptr<MessageListModel> messages_;
    std::unique_ptr<ConversationSettings> settings_;
    std::unique_ptr<SamplingPresetModel> presets_;
    std::unique_ptr<MonitorModel> monitor_;
    std::unique_ptr<CompareModel> compare_;
    std::unique_ptr<ModelLibrary> library_;
    // Getting models (Models › Download) and the local library with "will it fit".
    std::unique_ptr<HubAccount> hubAccount_;
    std::unique_ptr<ModelFitter> fitter_;
    std::unique_ptr<LocalModelListModel> localModels_;
    std::unique_ptr<DownloadListModel> downloads_;
    std::unique_ptr<CatalogModel> catalog_;
    std::unique_ptr<HubSearchModel> hubSearch_;
    std::unique_ptr<RemoteConnection> remote_;  // "Connect to a server"
    std::unique_ptr<LocalServer> localServer_;  // "Serve on localhost" (the serving runs beside the engine)
};

}  // namespace folio::app
