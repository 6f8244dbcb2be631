#pragma once
// Jinja2's expression grammar, with its precedence (condexpr < or < and < not < compare < +,- < ~ <
// *,/,//,% < ** < unary < postfix/filters/tests), and assignment targets.
#include "engine/jinja/template_token_stream.h"

namespace folio::jinja {

class ExprParser : public TokenStream {
public:
    using TokenStream::TokenStream;

    // ---- assignment targets ----
    void check_assignable_name(const Token& t);  // true/false/none cannot be assigned
    Target parse_assign_target(bool with_tuple, bool name_only, const Names* extra_end, bool with_namespace);
    Target to_target(const Expr& e);
    // ---- expressions ----
    bool is_tuple_end(const Names* extra) const;
    ExprPtr parse_tuple(bool simplified, bool with_condexpr, const Names* extra_end, bool explicit_parens);
    ExprPtr parse_expression(bool with_condexpr);
    ExprPtr parse_condexpr();
    ExprPtr parse_logic(const char* keyword, ExprKind kind, ExprPtr (ExprParser::*operand)());
    ExprPtr parse_or();
    ExprPtr parse_and();
    ExprPtr parse_not();
    ExprPtr parse_compare();
    ExprPtr binary(BinaryOp op, Pos pos, ExprPtr left, ExprPtr right);
    ExprPtr parse_math1();
    ExprPtr parse_concat();
    ExprPtr parse_math2();
    ExprPtr parse_pow();
    ExprPtr parse_unary(bool with_filter);
    ExprPtr parse_primary();
    ExprPtr parse_list();
    ExprPtr parse_dict();
    ExprPtr parse_postfix(ExprPtr node);
    ExprPtr parse_filter_expr(ExprPtr node);
    ExprPtr parse_subscript(ExprPtr node);
    ExprPtr parse_subscribed();
    CallArgExprs parse_call_args();
    ExprPtr parse_call(ExprPtr node);
    ExprPtr parse_filter(ExprPtr node, bool start_inline);
    ExprPtr parse_test(ExprPtr node);
};

}  // namespace folio::jinja
