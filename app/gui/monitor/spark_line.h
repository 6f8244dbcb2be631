#pragma once
// A small live plot: a TimeSeries drawn as a filled line over a fixed number of samples, newest at
// the right edge, scaled to the series' peak (or `maximum` when set).
#include <QColor>
#include <QPointer>
#include <QQuickPaintedItem>
#include <QtQml/qqmlregistration.h>

#include "app/gui/monitor/time_series.h"

namespace folio::app {

class SparkLine : public QQuickPaintedItem {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(folio::app::TimeSeries* series READ series WRITE setSeries NOTIFY seriesChanged)
    Q_PROPERTY(QColor color MEMBER color_ NOTIFY styleChanged)
    Q_PROPERTY(QColor gridColor MEMBER gridColor_ NOTIFY styleChanged)
    Q_PROPERTY(qreal maximum MEMBER maximum_ NOTIFY styleChanged)
public:
    explicit SparkLine(QQuickItem* parent = nullptr);
    void paint(QPainter* painter) override;
    TimeSeries* series() const { return series_; }
    void setSeries(TimeSeries* s);

signals:
    void seriesChanged();
    void styleChanged();

private:
    QPointer<TimeSeries> series_;
    QColor color_{QStringLiteral("#5b8def")};
    QColor gridColor_{QStringLiteral("#30808080")};
    qreal maximum_ = 0;  // 0: the series' peak
};

}  // namespace folio::app
