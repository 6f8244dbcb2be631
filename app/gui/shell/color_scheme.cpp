#include "app/gui/shell/color_scheme.h"

#include <QEvent>
#include <QGuiApplication>
#include <QPalette>

namespace folio::app {

ColorScheme::ColorScheme(QObject* parent) : QObject(parent) {
    // FOLIO_THEME=light|dark forces a scheme (screenshots, desktops that report no preference).
    const QString forced = qEnvironmentVariable("FOLIO_THEME");
    if (forced == QLatin1String("light") || forced == QLatin1String("dark")) mode_ = forced;
    if (qApp) qApp->installEventFilter(this);
}

bool ColorScheme::systemDark() const {
    // Qt 6.4 has no colour-scheme hint yet: a dark window background is the system's answer.
    const QColor window = QGuiApplication::palette().color(QPalette::Window);
    return window.lightness() < 128;
}

bool ColorScheme::dark() const {
    if (mode_ == QLatin1String("dark")) return true;
    if (mode_ == QLatin1String("light")) return false;
    return systemDark();
}

void ColorScheme::setMode(const QString& m) {
    if (m == mode_ || (m != "system" && m != "light" && m != "dark")) return;
    mode_ = m;
    emit changed();
}

bool ColorScheme::eventFilter(QObject* watched, QEvent* event) {
    if (watched == qApp && event->type() == QEvent::ApplicationPaletteChange && mode_ == QLatin1String("system")) {
        emit changed();
    }
    return QObject::eventFilter(watched, event);
}

}  // namespace folio::app
