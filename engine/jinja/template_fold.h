#pragma once
// Jinja2 evaluates constant expressions while compiling a template, and the result sometimes differs
// from evaluating them at render time: a constant subscript goes through the sandbox's lenient
// getitem (so `1[1:]` is Undefined, not a TypeError), `{{ constant }}` is printed as its str() even
// when it is Undefined. This pass does the same folding, so such templates render as in Jinja2.
#include "engine/jinja/template_ast.h"

namespace folio::jinja {

void fold_constants(TemplateAst& ast);

}  // namespace folio::jinja
