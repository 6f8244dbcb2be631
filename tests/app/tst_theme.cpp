// Light and dark following the system: the XDG portal's colour-scheme value (as it arrives over
// D-Bus), the palette as the fallback, the user's own choice over both, FOLIO_THEME for screenshots.
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusVariant>
#include <QGuiApplication>
#include <QPalette>
#include <QSignalSpy>
#include <QtTest>

#include "app/gui/shell/color_scheme.h"

using folio::app::ColorScheme;
using Pref = ColorScheme::Preference;

// The desktop portal's Settings interface as GNOME's and KDE's portals serve it (Read answers a
// variant holding the value's variant).
class FakePortal : public QObject {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.portal.Settings")
public:
    uint scheme = 1;
    int reads = 0;
public slots:
    QDBusVariant Read(const QString& ns, const QString& key) {
        ++reads;
        if (ns != "org.freedesktop.appearance" || key != "color-scheme") return QDBusVariant(QVariant(QString()));
        return QDBusVariant(QVariant::fromValue(QDBusVariant(QVariant(scheme))));
    }
};

class ThemeTest : public QObject {
    Q_OBJECT
private slots:
    void portalValuesAreRead() {
        QCOMPARE(ColorScheme::preferenceFromPortal(QVariant(1u)), Pref::Dark);
        QCOMPARE(ColorScheme::preferenceFromPortal(QVariant(2u)), Pref::Light);
        QCOMPARE(ColorScheme::preferenceFromPortal(QVariant(0u)), Pref::Unknown);
        // Settings.Read wraps the value in a variant of a variant.
        const QVariant wrapped = QVariant::fromValue(QDBusVariant(QVariant::fromValue(QDBusVariant(QVariant(1u)))));
        QCOMPARE(ColorScheme::preferenceFromPortal(wrapped), Pref::Dark);
        QCOMPARE(ColorScheme::preferenceFromPortal(QVariant(QStringLiteral("dark"))), Pref::Unknown);
        QCOMPARE(ColorScheme::preferenceFromPortal(QVariant()), Pref::Unknown);
    }

    void followsTheDesktopPreferenceThenThePalette() {
        qunsetenv("FOLIO_THEME");
        QGuiApplication::setPalette(lightPalette());
        ColorScheme scheme;
        QCOMPARE(scheme.mode(), QString("system"));
        QVERIFY(!scheme.dark());
        QSignalSpy changed(&scheme, &ColorScheme::changed);
        scheme.setSystemPreference(Pref::Dark);  // the desktop switched to dark
        QVERIFY(scheme.dark());
        QCOMPARE(changed.count(), 1);
        scheme.setSystemPreference(Pref::Dark);  // no change, no signal
        QCOMPARE(changed.count(), 1);
        // The user's choice wins until they go back to "system".
        scheme.setMode("light");
        QVERIFY(!scheme.dark());
        QVERIFY(scheme.systemDark());
        scheme.setMode("system");
        QVERIFY(scheme.dark());
        // No preference from the desktop: a dark application palette decides.
        scheme.setSystemPreference(Pref::Unknown);
        QVERIFY(!scheme.dark());
        QGuiApplication::setPalette(darkPalette());
        QTRY_VERIFY(changed.count() >= 4);  // the palette change is announced
        QVERIFY(scheme.dark());
        QGuiApplication::setPalette(lightPalette());
    }

    // On a session bus of its own (ctest runs this test under dbus-run-session): the preference is read
    // at start and followed when the desktop changes it.
    void followsThePortalOverDBus() {
        QDBusConnection bus = QDBusConnection::sessionBus();
        if (!bus.isConnected()) QSKIP("no D-Bus session bus: run under dbus-run-session (ctest does)");
        FakePortal portal;
        QVERIFY(bus.registerObject("/org/freedesktop/portal/desktop", &portal, QDBusConnection::ExportAllSlots));
        QVERIFY(bus.registerService("org.freedesktop.portal.Desktop"));
        qunsetenv("FOLIO_THEME");
        QGuiApplication::setPalette(lightPalette());
        ColorScheme scheme;
        QTRY_COMPARE(scheme.systemPreference(), Pref::Dark);
        QCOMPARE(portal.reads, 1);
        QVERIFY(scheme.dark());
        QSignalSpy changed(&scheme, &ColorScheme::changed);
        QDBusMessage signal = QDBusMessage::createSignal("/org/freedesktop/portal/desktop", "org.freedesktop.portal.Settings",
                                                         "SettingChanged");
        signal << QString("org.freedesktop.appearance") << QString("color-scheme") << QVariant::fromValue(QDBusVariant(2u));
        QVERIFY(bus.send(signal));
        QTRY_COMPARE(scheme.systemPreference(), Pref::Light);
        QVERIFY(!scheme.dark());
        QCOMPARE(changed.count(), 1);
        bus.unregisterService("org.freedesktop.portal.Desktop");
        bus.unregisterObject("/org/freedesktop/portal/desktop");
    }

    void environmentForcesAScheme() {
        qputenv("FOLIO_THEME", "dark");
        ColorScheme scheme;
        qunsetenv("FOLIO_THEME");
        QCOMPARE(scheme.mode(), QString("dark"));
        scheme.setSystemPreference(Pref::Light);
        QVERIFY(scheme.dark());
        scheme.setMode("bogus");  // ignored
        QCOMPARE(scheme.mode(), QString("dark"));
    }

private:
    static QPalette lightPalette() {
        QPalette p;
        p.setColor(QPalette::Window, QColor("#f6f6f4"));
        return p;
    }
    static QPalette darkPalette() {
        QPalette p;
        p.setColor(QPalette::Window, QColor("#18191c"));
        return p;
    }
};

QTEST_MAIN(ThemeTest)
#include "tst_theme.moc"
