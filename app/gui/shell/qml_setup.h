#pragma once
// What the app and the UI tests both do before loading the QML: style, fonts, the compiled-in QML
// modules (Folio for the C++ types, Folio.Ui for the views).
#include <QString>
#include <QUrl>

class QQmlEngine;

namespace folio::app {

void setupQml(QQmlEngine& engine);
QUrl mainQmlUrl();
// Empty when the QML modules Qt's own file dialogs load are installed; else what is missing and the
// package to install. Without Qt.labs.folderlistmodel the non-native dialogs cannot be made, and
// reading what was chosen in one crashed the app.
QString fileDialogProblem(QQmlEngine& engine);

}  // namespace folio::app
