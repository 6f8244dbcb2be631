#pragma once
// The three ways a chat template can fail, as the caller needs to tell them apart: the source is not
// valid template syntax (fix the template), the template itself called raise_exception() (the
// conversation is not acceptable to this model: show the template's own message), or rendering hit
// a runtime error (a type error, an undefined value used, a runaway loop).
#include <string>

#include "engine/core/error.h"

namespace folio {

// A failure at a position of the template source: line() and column() are 1-based (columns count
// Unicode code points) and are part of what(); detail() is the message without them.
class TemplatePositionError : public Error {
public:
    int line() const { return line_; }
    int column() const { return column_; }
    const std::string& detail() const { return detail_; }

protected:
    TemplatePositionError(const char* what, const std::string& detail, int line, int column);

private:
    std::string detail_;
    int line_;
    int column_;
};

// The template source cannot be parsed.
class TemplateSyntaxError : public TemplatePositionError {
public:
    TemplateSyntaxError(const std::string& detail, int line, int column)
        : TemplatePositionError("template syntax error", detail, line, column) {}
};

// The template called raise_exception(message): what() is exactly that message.
class TemplateRaisedError : public Error {
public:
    explicit TemplateRaisedError(const std::string& message) : Error(message) {}
};

// Any other failure while rendering, at the template position where it happened.
class TemplateRenderError : public TemplatePositionError {
public:
    TemplateRenderError(const std::string& detail, int line, int column)
        : TemplatePositionError("template error", detail, line, column) {}
};

}  // namespace folio
