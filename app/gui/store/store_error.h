#pragma once
#include <stdexcept>
#include <QString>

namespace folio::app {

// A history database problem a user can act on (the message names the file and the cause).
class StoreError : public std::runtime_error {
public:
    explicit StoreError(const QString& message) : std::runtime_error(message.toStdString()) {}
    QString message() const { return QString::fromStdString(what()); }
};

}  // namespace folio::app
