#pragma once
// The recommended models shown first on the Download page, from resources/catalog/recommended.json,
// each with its size, whether it fits this computer and whether Folio runs it yet (the engine's
// config reader decides, not the catalog).
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

#include "engine/hub/catalog.h"

namespace folio::app {

class ModelFitter;

class CatalogModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(QString title READ title CONSTANT)
    Q_PROPERTY(QString error READ error CONSTANT)
public:
    enum Role {
        RepoRole = Qt::UserRole + 1,
        RevisionRole,
        FactsRole,   // "Llama 3.1 · 8B · AWQ 4-bit · 5.7 GB"
        NoteRole,
        FitsRole,    // "yes", "no", "unknown"
        FitTextRole,
        ProblemRole, // why Folio cannot run it yet, "" when it can
    };
    Q_ENUM(Role)

    // `path`: a file or a Qt resource (":/folio/catalog/recommended.json"). A catalog that cannot be
    // read leaves the list empty and says why in `error`.
    CatalogModel(const QString& path, ModelFitter* fitter, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
    QString title() const { return QString::fromStdString(catalog_.title); }
    QString error() const { return error_; }

private:
    ModelFitter* fitter_;
    hub::Catalog catalog_;
    std::vector<hub::ModelSummary> summaries_;
    QString error_;
};

}  // namespace folio::app
