#include "engine/jinja/template_error.h"

namespace folio {

TemplatePositionError::TemplatePositionError(const char* what, const std::string& detail, int line, int column)
    : Error(std::string(what) + " at line " + std::to_string(line) + ", column " + std::to_string(column) + ": " +
            detail),
      detail_(detail),
      line_(line),
      column_(column) {}

}  // namespace folio
