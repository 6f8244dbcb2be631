#pragma once
// Light or dark: follows the system unless the user picked one (mode "light"/"dark"). The system's
// answer is the desktop's colour-scheme preference from the XDG desktop portal
// (org.freedesktop.appearance color-scheme, read at start and followed live: GNOME, KDE and others
// set it), else the lightness of the application palette (Qt 6.4 has no colour-scheme hint).
// The QML Theme singleton reads `dark` from here.
#include <QDBusVariant>
#include <QObject>
#include <QVariant>
#include <QtQml/qqmlregistration.h>

namespace folio::app {

class ColorScheme : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    Q_PROPERTY(bool dark READ dark NOTIFY changed)
    Q_PROPERTY(bool systemDark READ systemDark NOTIFY changed)
    Q_PROPERTY(QString mode READ mode WRITE setMode NOTIFY changed)  // "system", "light", "dark"
public:
    // What the desktop prefers, as the portal says (0 none, 1 dark, 2 light).
    enum class Preference { Unknown, Dark, Light };

    explicit ColorScheme(QObject* parent = nullptr);
    bool dark() const;
    QString mode() const { return mode_; }
    void setMode(const QString& m);
    bool systemDark() const;

    // A portal color-scheme value (a uint, possibly wrapped in D-Bus variants) to a preference.
    static Preference preferenceFromPortal(const QVariant& value);
    // The desktop's preference as last read; Unknown falls back to the palette.
    void setSystemPreference(Preference p);
    Preference systemPreference() const { return preference_; }

signals:
    void changed();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private slots:
    void onPortalSettingChanged(const QString& ns, const QString& key, const QDBusVariant& value);

private:
    void watchPortal();

    QString mode_ = QStringLiteral("system");
    Preference preference_ = Preference::Unknown;
};

}  // namespace folio::app
