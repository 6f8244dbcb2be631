#pragma once
// Walks over the AST that Jinja2's compiler does besides symbol tracking: the names an expression
// reads, the names a body reads before assigning them (does a loop body use `loop`, a macro body
// `caller`/`varargs`/`kwargs`?), assignments to `loop` inside a for loop, duplicate block names.
#include <functional>
#include <set>
#include <string>

#include "engine/jinja/template_ast.h"

namespace folio::jinja {

void for_each_loaded_name(const Expr* e, const std::function<void(const std::string&)>& fn);
// Of `names`, those `body` reads before assigning them (Jinja2's find_undeclared; blocks not entered).
std::set<std::string> undeclared_names(const Body& body, std::set<std::string> names);
// The first target in `st` (a for loop, with everything inside it) that assigns to `loop`, or null.
const Target* find_loop_assignment(const Stmt& st);
// Throws TemplateSyntaxError "block 'x' defined twice".
void check_unique_block_names(const Body& body);

}  // namespace folio::jinja
