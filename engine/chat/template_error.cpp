#include "engine/chat/template_error.h"

namespace folio {

namespace {
std::string at(const char* what, int line, int column, const std::string& detail) {
    return std::string(what) + " at line " + std::to_string(line) + ", column " + std::to_string(column) + ": " +
           detail;
}
}  // namespace

TemplateSyntaxError::TemplateSyntaxError(const std::string& detail, int line, int column)
    : Error(at("template syntax error", line, column, detail)), detail_(detail), line_(line), column_(column) {}

TemplateRenderError::TemplateRenderError(const std::string& detail, int line, int column)
    : Error(at("template error", line, column, detail)), detail_(detail), line_(line), column_(column) {}

}  // namespace folio
