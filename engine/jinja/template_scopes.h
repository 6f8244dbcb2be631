#pragma once
// Jinja2's compile step, after parsing: which variables each scope (the template, a loop body, a
// macro, ...) holds and how each starts out (Jinja's idtracking: a name assigned in a loop body is
// local to that iteration, one read before it is assigned comes from the enclosing scope or the
// context), where every name in an expression lives, and the errors Jinja reports while compiling
// (unknown filter or test, `break` outside a loop, assigning to `loop`, a block defined twice).
#include "engine/jinja/template_ast.h"

namespace folio::jinja {

// Fills every FrameLayout and VarRef of `ast`. Throws TemplateSyntaxError.
void analyze_scopes(TemplateAst& ast);

}  // namespace folio::jinja
