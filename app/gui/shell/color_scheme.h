#pragma once
// Light or dark: follows the system palette unless the user picked one (mode "light"/"dark").
// The QML Theme singleton reads `dark` from here.
#include <QObject>
#include <QtQml/qqmlregistration.h>

namespace folio::app {

class ColorScheme : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    Q_PROPERTY(bool dark READ dark NOTIFY changed)
    Q_PROPERTY(QString mode READ mode WRITE setMode NOTIFY changed)  // "system", "light", "dark"
public:
    explicit ColorScheme(QObject* parent = nullptr);
    bool dark() const;
    QString mode() const { return mode_; }
    void setMode(const QString& m);
    bool systemDark() const;

signals:
    void changed();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QString mode_ = QStringLiteral("system");
};

}  // namespace folio::app
