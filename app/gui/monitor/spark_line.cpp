#include "app/gui/monitor/spark_line.h"

#include <QPainter>
#include <QPainterPath>

namespace folio::app {

SparkLine::SparkLine(QQuickItem* parent) : QQuickPaintedItem(parent) {
    setAntialiasing(true);
    connect(this, &SparkLine::styleChanged, this, [this] { update(); });
}

void SparkLine::setSeries(TimeSeries* s) {
    if (series_ == s) return;
    if (series_) disconnect(series_, nullptr, this, nullptr);
    series_ = s;
    if (series_) connect(series_, &TimeSeries::changed, this, [this] { update(); });
    emit seriesChanged();
    update();
}

void SparkLine::paint(QPainter* p) {
    const qreal w = width(), h = height();
    p->setRenderHint(QPainter::Antialiasing);
    p->setPen(QPen(gridColor_, 1, Qt::DashLine));
    for (int i = 1; i < 4; ++i) p->drawLine(QPointF(0, h * i / 4.0), QPointF(w, h * i / 4.0));
    if (!series_ || series_->values().size() < 2) return;
    const QList<qreal> v = series_->values();
    const qreal top = maximum_ > 0 ? maximum_ : std::max<qreal>(series_->peak() * 1.15, 1e-9);
    const qreal step = w / qreal(std::max(series_->capacity() - 1, 1));
    const qreal x0 = w - step * qreal(v.size() - 1);
    QPainterPath line;
    for (int i = 0; i < v.size(); ++i) {
        const QPointF pt(x0 + step * i, h - 2 - (h - 4) * std::clamp(v[i] / top, 0.0, 1.0));
        if (i == 0) line.moveTo(pt);
        else line.lineTo(pt);
    }
    QPainterPath area = line;
    area.lineTo(w, h);
    area.lineTo(x0, h);
    area.closeSubpath();
    QColor fill = color_;
    fill.setAlphaF(0.16);
    p->fillPath(area, fill);
    p->setPen(QPen(color_, 2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    p->drawPath(line);
}

}  // namespace folio::app
