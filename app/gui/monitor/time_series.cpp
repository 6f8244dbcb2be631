#include "app/gui/monitor/time_series.h"

#include <algorithm>

namespace folio::app {

void TimeSeries::append(qreal v) {
    values_.append(v);
    if (values_.size() > capacity_) values_.remove(0, values_.size() - capacity_);
    emit changed();
}

void TimeSeries::clear() {
    values_.clear();
    emit changed();
}

qreal TimeSeries::peak() const { return values_.isEmpty() ? 0 : *std::max_element(values_.cbegin(), values_.cend()); }

}  // namespace folio::app
