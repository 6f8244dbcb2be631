#pragma once
// Renders a TemplateAst: statements write to an output string, expressions evaluate to Values, names
// live in frames laid out by template_scopes. Filters, tests, methods and globals call back into the
// renderer for what needs it (calling macros, sandboxed attribute access, limits).
//
// Safety: every evaluation and statement counts against a step budget, nesting against a depth limit,
// and every string against a size limit, so no template (however hostile) runs forever, overflows
// the stack or exhausts memory; breaking a limit is a TemplateRenderError that names it.
#include <cstdint>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/jinja/template_ast.h"

namespace folio::jinja {

struct RenderLimits {
    size_t max_output_bytes = size_t(64) << 20;  // the output, and any single string built on the way
    uint64_t max_steps = 20'000'000;             // statements, evaluations, loop iterations, elements
    int max_depth = 500;                         // nested evaluations (macro recursion, recursive loops)
};

struct RenderSettings {
    RenderLimits limits;
    std::tm now{};  // what strftime_now() formats
};

struct Frame : std::enable_shared_from_this<Frame> {
    const FrameLayout* layout = nullptr;
    std::shared_ptr<Frame> parent;
    std::vector<Value> slots;
};
using FramePtr = std::shared_ptr<Frame>;

class NamespaceObject;

// One link of a chained comparison (`a < b`, `a in b`), with Python's semantics; constant folding
// and the renderer both evaluate comparisons through it.
bool compare_holds(CompareKind kind, const Value& left, const Value& right);

class Renderer {
public:
    Renderer(const TemplateAst& ast, const nlohmann::ordered_json& context, const RenderSettings& settings);
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    std::string render();

    // ---- for filters, tests, methods and objects ----
    Value call(const Value& callee, CallArgs args);
    Value apply_filter(const std::string& name, Value subject, CallArgs args);
    bool apply_test(const std::string& name, const Value& subject, CallArgs args);
    Value getattr(const Value& obj, const std::string& name);  // the sandbox's obj.name
    Value getitem(const Value& obj, const Value& key);         // the sandbox's obj[key]
    Value attribute_only(const Value& obj, const std::string& name);  // the `attr` filter: no item fallback
    std::vector<Value> iterate(const Value& v);
    void charge(uint64_t steps);
    size_t text_limit() const { return settings_.limits.max_output_bytes; }
    const std::tm& now() const { return settings_.now; }
    std::shared_ptr<NamespaceObject> new_namespace();

    // Runs a macro body (for MacroObject) and a recursive loop level (for the loop object).
    Value invoke_macro(const MacroDef& def, Frame* closure, std::vector<Value> params, Value caller, Value kwargs,
                       Value varargs);
    std::string run_loop_level(const ForStmt& stmt, Frame* outer, const Value& iterable, int depth0);
    void keep_alive(Frame* frame);

    struct DepthGuard {
        explicit DepthGuard(Renderer& r);
        ~DepthGuard() { --r_.depth_; }
        Renderer& r_;
    };

private:
    enum class Flow { Normal, Break, Continue };

    FramePtr enter(const FrameLayout& layout, FramePtr parent);
    Value resolve(const std::string& name);
    Value load(const NameExpr& n, Frame& f);
    Frame* frame_at(Frame& f, int hops);
    void assign(const Target& t, Frame& f, const Value& v);

    Flow exec_body(const Body& body, const FramePtr& f, std::string& out);
    Flow exec(const Stmt& s, const FramePtr& f, std::string& out);
    Flow exec_for(const ForStmt& s, const FramePtr& f, std::string& out, const Value& iterable, int depth0);

    Value eval(const Expr& e, Frame& f);
    Value eval_node(const Expr& e, Frame& f);
    CallArgs eval_args(const CallArgExprs& a, Frame& f);
    Value eval_filter(const FilterExpr& e, Frame& f, const Value* block_subject);
    Value eval_compare(const CompareExpr& e, Frame& f);
    Value slice(const Value& obj, const SliceExpr& s, Frame& f);
    Value make_macro(const MacroDef& def, Frame& f);
    void append_output(std::string& out, const Value& v);

    const TemplateAst& ast_;
    RenderSettings settings_;
    Value context_;                      // the caller's variables (a dict)
    std::map<std::string, Value> exports_;  // top-level assignments, visible to blocks
    std::map<std::string, Value> globals_;  // created on first use
    uint64_t steps_ = 0;
    int depth_ = 0;
    std::vector<FramePtr> kept_frames_;   // frames macros and recursive loops refer to
    std::vector<std::shared_ptr<NamespaceObject>> namespaces_;  // cleared at the end (cycles)
};

// Python's type description used in Undefined messages: "dict object", "None", "jinja2.utils.Namespace object".
std::string object_type_repr(const Value& v);

}  // namespace folio::jinja
