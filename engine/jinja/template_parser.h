#pragma once
// Jinja2's parser, statement by statement and expression by expression (same grammar, same operator
// precedence, same error messages where practical), producing a TemplateAst. Nesting is bounded so a
// hostile template cannot exhaust the stack while parsing, analysing or rendering.
#include <memory>
#include <string_view>

#include "engine/jinja/template_ast.h"

namespace folio::jinja {

inline constexpr int kMaxNesting = 150;      // statements and parentheses inside one another
inline constexpr int kMaxExprHeight = 200;   // operators chained in one expression (a + b + c ...)

// Throws TemplateSyntaxError (with line and column).
std::unique_ptr<TemplateAst> parse_template(std::string_view source);

}  // namespace folio::jinja
