#pragma once
// What the app and the UI tests both do before loading the QML: style, fonts, the compiled-in QML
// modules (Folio for the C++ types, Folio.Ui for the views).
#include <QUrl>

class QQmlEngine;

namespace folio::app {

void setupQml(QQmlEngine& engine);
QUrl mainQmlUrl();

}  // namespace folio::app
