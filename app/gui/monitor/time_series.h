#pragma once
// The last 60 seconds of one engine figure, for a live plot.
#include <QList>
#include <QObject>
#include <QtQml/qqmlregistration.h>

namespace folio::app {

class TimeSeries : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the monitor")
    Q_PROPERTY(QList<qreal> values READ values NOTIFY changed)
    Q_PROPERTY(qreal latest READ latest NOTIFY changed)
    Q_PROPERTY(qreal peak READ peak NOTIFY changed)
public:
    explicit TimeSeries(int capacity, QObject* parent = nullptr) : QObject(parent), capacity_(capacity) {}
    void append(qreal v);
    void clear();
    QList<qreal> values() const { return values_; }
    qreal latest() const { return values_.isEmpty() ? 0 : values_.last(); }
    qreal peak() const;
    int capacity() const { return capacity_; }

signals:
    void changed();

private:
    int capacity_;
    QList<qreal> values_;
};

}  // namespace folio::app
