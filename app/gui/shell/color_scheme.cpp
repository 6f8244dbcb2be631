#include "app/gui/shell/color_scheme.h"

#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDBusVariant>
#include <QEvent>
#include <QGuiApplication>
#include <QPalette>

namespace folio::app {
namespace {

constexpr const char* kPortalService = "org.freedesktop.portal.Desktop";
constexpr const char* kPortalPath = "/org/freedesktop/portal/desktop";
constexpr const char* kSettings = "org.freedesktop.portal.Settings";
constexpr const char* kAppearance = "org.freedesktop.appearance";
constexpr const char* kColorScheme = "color-scheme";

}  // namespace

ColorScheme::ColorScheme(QObject* parent) : QObject(parent) {
    // FOLIO_THEME=light|dark forces a scheme (screenshots, desktops that report no preference).
    const QString forced = qEnvironmentVariable("FOLIO_THEME");
    if (forced == QLatin1String("light") || forced == QLatin1String("dark")) mode_ = forced;
    if (qApp) qApp->installEventFilter(this);
    watchPortal();
}

ColorScheme::Preference ColorScheme::preferenceFromPortal(const QVariant& value) {
    QVariant v = value;
    // Settings.Read answers a variant holding the value's variant.
    while (v.userType() == qMetaTypeId<QDBusVariant>()) v = qvariant_cast<QDBusVariant>(v).variant();
    bool ok = false;
    const uint n = v.toUInt(&ok);
    if (!ok) return Preference::Unknown;
    if (n == 1) return Preference::Dark;
    if (n == 2) return Preference::Light;
    return Preference::Unknown;
}

void ColorScheme::watchPortal() {
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected()) return;  // no desktop session: the palette decides
    bus.connect(kPortalService, kPortalPath, kSettings, QStringLiteral("SettingChanged"), this,
                SLOT(onPortalSettingChanged(QString, QString, QDBusVariant)));
    QDBusMessage read = QDBusMessage::createMethodCall(kPortalService, kPortalPath, kSettings, QStringLiteral("Read"));
    read << QString::fromLatin1(kAppearance) << QString::fromLatin1(kColorScheme);
    // Asynchronous: a missing or slow portal never delays the window.
    auto* watcher = new QDBusPendingCallWatcher(bus.asyncCall(read, 2000), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher* w) {
        const QDBusPendingReply<QVariant> reply = *w;
        if (!reply.isError()) setSystemPreference(preferenceFromPortal(reply.value()));
        w->deleteLater();
    });
}

void ColorScheme::onPortalSettingChanged(const QString& ns, const QString& key, const QDBusVariant& value) {
    if (ns == QLatin1String(kAppearance) && key == QLatin1String(kColorScheme))
        setSystemPreference(preferenceFromPortal(value.variant()));
}

void ColorScheme::setSystemPreference(Preference p) {
    if (p == preference_) return;
    const bool before = dark();
    const bool systemBefore = systemDark();
    preference_ = p;
    if (dark() != before || systemDark() != systemBefore) emit changed();
}

bool ColorScheme::systemDark() const {
    if (preference_ == Preference::Dark) return true;
    if (preference_ == Preference::Light) return false;
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
    if (watched == qApp && event->type() == QEvent::ApplicationPaletteChange) emit changed();
    return QObject::eventFilter(watched, event);
}

}  // namespace folio::app
