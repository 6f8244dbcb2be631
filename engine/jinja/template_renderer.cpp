#include "engine/jinja/template_renderer.h"

#include "engine/jinja/python_ops.h"
#include "engine/jinja/python_repr.h"
#include "engine/jinja/python_text.h"
#include "engine/jinja/template_builtins.h"
#include "engine/jinja/template_error.h"
#include "engine/jinja/template_json.h"
#include "engine/jinja/template_methods.h"
#include "engine/jinja/template_objects.h"

namespace folio::jinja {

Renderer::DepthGuard::DepthGuard(Renderer& r) : r_(r) {
    if (++r_.depth_ > r_.settings_.limits.max_depth) {
        --r_.depth_;
        throw Fault(FaultKind::LimitExceeded, "the template recursed more than " +
                                                  std::to_string(r_.settings_.limits.max_depth) + " levels deep");
    }
}

Renderer::Renderer(const TemplateAst& ast, const nlohmann::ordered_json& context, const RenderSettings& settings)
    : ast_(ast), settings_(settings) {
    if (!context.is_object()) throw Error("the template context must be a JSON object, got " + std::string(context.type_name()));
    try {
        context_ = value_from_json(context);
    } catch (const Fault& f) {
        throw Error(std::string("the template context cannot be used: ") + f.what());
    }
}

Renderer::~Renderer() {
    // Namespaces may refer to themselves (ns.me = ns): empty them all first, then let go, so that
    // nothing leaks and no long chain is destroyed recursively.
    std::vector<std::vector<std::pair<Value, Value>>> graveyard;
    for (auto& ns : namespaces_) graveyard.push_back(ns->take_all());
    graveyard.clear();
    namespaces_.clear();
    exports_.clear();
    kept_frames_.clear();
}

void Renderer::charge(uint64_t steps) {
    steps_ += steps;
    if (steps_ > settings_.limits.max_steps)
        throw Fault(FaultKind::LimitExceeded, "the template ran more than " + std::to_string(settings_.limits.max_steps) +
                                                  " steps (a runaway loop?)");
}

std::shared_ptr<NamespaceObject> Renderer::new_namespace() {
    auto ns = std::make_shared<NamespaceObject>();
    namespaces_.push_back(ns);
    return ns;
}

void Renderer::keep_alive(Frame* frame) {
    if (frame) kept_frames_.push_back(frame->shared_from_this());
}

std::string Renderer::render() {
    std::string out;
    FramePtr root = enter(ast_.root, nullptr);
    exec_body(ast_.body, root, out);
    return out;
}

// ---- frames and names ----

Value Renderer::resolve(const std::string& name) {
    auto e = exports_.find(name);
    if (e != exports_.end()) return e->second;
    if (const Value* v = context_.dict().find(std::string_view(name))) return *v;
    auto g = globals_.find(name);
    if (g != globals_.end()) return g->second;
    Value global = find_global(name);
    if (!global.is_missing()) globals_.emplace(name, global);
    return global;
}

Frame* Renderer::frame_at(Frame& f, int hops) {
    Frame* p = &f;
    for (int i = 0; i < hops && p; ++i) p = p->parent.get();
    return p;
}

FramePtr Renderer::enter(const FrameLayout& layout, FramePtr parent) {
    auto f = std::make_shared<Frame>();
    f->layout = &layout;
    f->parent = std::move(parent);
    f->slots.assign(layout.names.size(), Value::missing());
    for (size_t i = 0; i < layout.init.size(); ++i) {
        const SlotInit& init = layout.init[i];
        if (init.kind == InitKind::Resolve) {
            f->slots[i] = resolve(layout.names[i]);
        } else if (init.kind == InitKind::Alias && f->parent) {
            Frame* src = frame_at(*f->parent, init.hops);
            if (src && init.slot >= 0 && size_t(init.slot) < src->slots.size()) f->slots[i] = src->slots[size_t(init.slot)];
        }
    }
    return f;
}

Value Renderer::load(const NameExpr& n, Frame& f) {
    if (n.ref.hops >= 0) {
        Frame* src = frame_at(f, n.ref.hops);
        if (src && size_t(n.ref.slot) < src->slots.size()) {
            const Value& v = src->slots[size_t(n.ref.slot)];
            if (!v.is_missing()) return v;
            return Value::undefined("'" + n.name + "' is undefined");
        }
    }
    Value v = resolve(n.name);
    if (v.is_missing()) return Value::undefined("'" + n.name + "' is undefined");
    return v;
}

void Renderer::assign(const Target& t, Frame& f, const Value& v) {
    switch (t.kind) {
    case Target::Kind::Name: {
        Frame* dst = t.ref.hops >= 0 ? frame_at(f, t.ref.hops) : nullptr;
        if (!dst || size_t(t.ref.slot) >= dst->slots.size()) return;
        dst->slots[size_t(t.ref.slot)] = v;
        if (dst->layout->toplevel) exports_[t.name] = v;
        return;
    }
    case Target::Kind::Tuple: {
        if (!is_iterable(v)) throw_type_error("cannot unpack non-iterable " + type_name(v) + " object");
        std::vector<Value> items = iterate(v);
        if (items.size() < t.items.size())
            throw_value_error("not enough values to unpack (expected " + std::to_string(t.items.size()) + ", got " +
                              std::to_string(items.size()) + ")");
        if (items.size() > t.items.size())
            throw_value_error("too many values to unpack (expected " + std::to_string(t.items.size()) + ")");
        for (size_t i = 0; i < items.size(); ++i) assign(t.items[i], f, items[i]);
        return;
    }
    case Target::Kind::NsAttr: {
        Value ns = Value::missing();
        if (t.ref.hops >= 0) {
            Frame* src = frame_at(f, t.ref.hops);
            if (src && size_t(t.ref.slot) < src->slots.size()) ns = src->slots[size_t(t.ref.slot)];
        } else {
            ns = resolve(t.name);
        }
        auto* obj = ns.is_object() ? dynamic_cast<NamespaceObject*>(ns.obj()) : nullptr;
        if (!obj) throw Fault(FaultKind::TemplateRuntimeError, "cannot assign attribute on non-namespace object");
        obj->set(t.attr, v);
        return;
    }
    }
}

// ---- statements ----

void Renderer::append_output(std::string& out, const Value& v) {
    append_str(out, v, settings_.limits.max_output_bytes);
    check_text_size(out.size(), settings_.limits.max_output_bytes);
}

Renderer::Flow Renderer::exec_body(const Body& body, const FramePtr& f, std::string& out) {
    for (const auto& st : body) {
        const Flow flow = exec(*st, f, out);
        if (flow != Flow::Normal) return flow;
    }
    return Flow::Normal;
}

namespace {
[[noreturn]] void rethrow_at(const Fault& fault, Pos pos) {
    throw TemplateRenderError(std::string(fault_kind_name(fault.kind())) + ": " + fault.what(), pos.line, pos.column);
}
}  // namespace

Renderer::Flow Renderer::exec(const Stmt& s, const FramePtr& f, std::string& out) {
    DepthGuard guard(*this);
    try {
        charge(1);
        switch (s.kind) {
        case StmtKind::Data:
            out += static_cast<const DataStmt&>(s).text;
            check_text_size(out.size(), settings_.limits.max_output_bytes);
            return Flow::Normal;
        case StmtKind::Print: {
            const Value v = eval(*static_cast<const PrintStmt&>(s).expr, *f);
            append_output(out, v);
            charge(v.is_string() ? v.str().size() / 256 : 0);
            return Flow::Normal;
        }
        case StmtKind::If: {
            auto& n = static_cast<const IfStmt&>(s);
            if (truthy(eval(*n.test, *f))) return exec_body(n.body, f, out);
            for (const auto& [test, body] : n.elifs)
                if (truthy(eval(*test, *f))) return exec_body(body, f, out);
            return exec_body(n.else_body, f, out);
        }
        case StmtKind::For: {
            auto& n = static_cast<const ForStmt&>(s);
            const Value iterable = eval(*n.iter, *f);
            return exec_for(n, f, out, iterable, 0);
        }
        case StmtKind::Set: {
            auto& n = static_cast<const SetStmt&>(s);
            assign(n.target, *f, eval(*n.value, *f));
            return Flow::Normal;
        }
        case StmtKind::SetBlock: {
            auto& n = static_cast<const SetBlockStmt&>(s);
            FramePtr bf = enter(n.frame, f);
            std::string buf;
            const Flow flow = exec_body(n.body, bf, buf);
            if (flow != Flow::Normal) return flow;
            Value text = Value::string(std::move(buf));
            assign(n.target, *f, n.filter ? eval_filter(static_cast<const FilterExpr&>(*n.filter), *bf, &text) : text);
            return Flow::Normal;
        }
        case StmtKind::Macro: {
            auto& n = static_cast<const MacroStmt&>(s);
            assign(n.target, *f, make_macro(*n.def, *f));
            return Flow::Normal;
        }
        case StmtKind::CallBlock: {
            auto& n = static_cast<const CallBlockStmt&>(s);
            auto& call = static_cast<const CallExpr&>(*n.call);
            Value callee = eval(*call.callee, *f);
            CallArgs args = eval_args(call.args, *f);
            args.keywords.emplace_back("caller", make_macro(*n.caller, *f));
            append_output(out, this->call(callee, std::move(args)));
            return Flow::Normal;
        }
        case StmtKind::FilterBlock: {
            auto& n = static_cast<const FilterBlockStmt&>(s);
            FramePtr ff = enter(n.frame, f);
            std::string buf;
            const Flow flow = exec_body(n.body, ff, buf);
            if (flow != Flow::Normal) return flow;
            const Value text = Value::string(std::move(buf));
            append_output(out, eval_filter(static_cast<const FilterExpr&>(*n.filter), *ff, &text));
            return Flow::Normal;
        }
        case StmtKind::With: {
            auto& n = static_cast<const WithStmt&>(s);
            std::vector<Value> values;
            for (const auto& v : n.values) values.push_back(eval(*v, *f));
            FramePtr wf = enter(n.frame, f);
            for (size_t i = 0; i < n.targets.size(); ++i) assign(n.targets[i], *wf, values[i]);
            return exec_body(n.body, wf, out);
        }
        case StmtKind::Block: {
            auto& n = static_cast<const BlockStmt&>(s);
            FramePtr bf = enter(n.frame, n.scoped ? f : nullptr);
            exec_body(n.body, bf, out);
            return Flow::Normal;
        }
        case StmtKind::Scope: {
            auto& n = static_cast<const ScopeStmt&>(s);
            FramePtr sf = enter(n.frame, f);
            exec_body(n.body, sf, out);
            return Flow::Normal;
        }
        case StmtKind::Break: return Flow::Break;
        case StmtKind::Continue: return Flow::Continue;
        }
    } catch (const Fault& fault) {
        rethrow_at(fault, s.pos);
    }
    return Flow::Normal;
}

Renderer::Flow Renderer::exec_for(const ForStmt& s, const FramePtr& f, std::string& out, const Value& iterable,
                                  int depth0) {
    std::vector<Value> items = iterate(iterable);
    LoopObject::Accept accept;
    if (s.filter) {
        accept = [this, &s, f](const Value& item) {
            FramePtr tf = enter(s.test_frame, f);
            assign(s.test_target, *tf, item);
            return truthy(eval(*s.filter, *tf));
        };
    }
    if (s.recursive) keep_alive(f.get());
    auto loop = std::make_shared<LoopObject>(std::move(items), std::move(accept), depth0, s.recursive ? &s : nullptr, f.get());
    const Value loop_value = Value::object(loop);
    bool completed_one = false;
    Value item;
    while (loop->next(item)) {
        charge(1);
        FramePtr body = enter(s.body_frame, f);
        if (s.loop_slot >= 0) body->slots[size_t(s.loop_slot)] = loop_value;
        assign(s.target, *body, item);
        const Flow flow = exec_body(s.body, body, out);
        if (flow == Flow::Break) break;
        if (flow == Flow::Continue) continue;
        completed_one = true;  // as in Jinja, an iteration left by break/continue does not count
    }
    if (!completed_one && !s.else_body.empty()) {
        FramePtr ef = enter(s.else_frame, f);
        return exec_body(s.else_body, ef, out);
    }
    return Flow::Normal;
}

std::string Renderer::run_loop_level(const ForStmt& stmt, Frame* outer, const Value& iterable, int depth0) {
    DepthGuard guard(*this);
    std::string out;
    exec_for(stmt, outer->shared_from_this(), out, iterable, depth0);
    return out;
}

Value Renderer::make_macro(const MacroDef& def, Frame& f) {
    keep_alive(&f);
    return Value::object(std::make_shared<MacroObject>(def, &f));
}

Value Renderer::invoke_macro(const MacroDef& def, Frame* closure, std::vector<Value> params, Value caller, Value kwargs,
                             Value varargs) {
    DepthGuard guard(*this);
    FramePtr mf = enter(def.frame, closure ? closure->shared_from_this() : nullptr);
    for (size_t i = 0; i < params.size() && i < def.param_slots.size(); ++i)
        mf->slots[size_t(def.param_slots[i])] = std::move(params[i]);
    if (def.caller_slot >= 0) mf->slots[size_t(def.caller_slot)] = std::move(caller);
    if (def.kwargs_slot >= 0) mf->slots[size_t(def.kwargs_slot)] = std::move(kwargs);
    if (def.varargs_slot >= 0) mf->slots[size_t(def.varargs_slot)] = std::move(varargs);
    const size_t first_default = def.params.size() - def.defaults.size();
    for (size_t i = 0; i < def.params.size(); ++i) {
        Value& slot = mf->slots[size_t(def.param_slots[i])];
        if (!slot.is_missing()) continue;
        if (i >= first_default) slot = eval(*def.defaults[i - first_default], *mf);
        else slot = Value::undefined("parameter '" + def.params[i] + "' was not provided");
    }
    std::string out;
    exec_body(def.body, mf, out);
    return Value::string(std::move(out));
}

// ---- expressions ----

Value Renderer::eval(const Expr& e, Frame& f) {
    DepthGuard guard(*this);
    try {
        charge(1);
        return eval_node(e, f);
    } catch (const Fault& fault) {
        rethrow_at(fault, e.pos);
    }
}

CallArgs Renderer::eval_args(const CallArgExprs& a, Frame& f) {
    CallArgs out;
    for (const auto& x : a.positional) out.positional.push_back(eval(*x, f));
    for (const auto& [k, x] : a.keywords) out.keywords.emplace_back(k, eval(*x, f));
    if (a.star) {
        const Value extra = eval(*a.star, f);
        if (!is_iterable(extra)) throw_type_error("argument after * must be an iterable, not " + type_name(extra));
        for (auto& v : iterate(extra)) out.positional.push_back(std::move(v));
    }
    if (a.star_star) {
        const Value extra = eval(*a.star_star, f);
        if (!extra.is_dict()) throw_type_error("argument after ** must be a mapping, not " + type_name(extra));
        for (const auto& [k, v] : extra.dict().items) {
            if (!k.is_string()) throw_type_error("keywords must be strings");
            for (const auto& existing : out.keywords)
                if (existing.first == k.str()) throw_type_error("got multiple values for keyword argument '" + k.str() + "'");
            out.keywords.emplace_back(k.str(), v);
        }
    }
    return out;
}

Value Renderer::eval_filter(const FilterExpr& e, Frame& f, const Value* block_subject) {
    Value subject;
    if (e.subject) {
        if (e.subject->kind == ExprKind::Filter && block_subject)
            subject = eval_filter(static_cast<const FilterExpr&>(*e.subject), f, block_subject);
        else
            subject = eval(*e.subject, f);
    } else if (block_subject) {
        subject = *block_subject;
    }
    CallArgs args = eval_args(e.args, f);
    if (!e.fn) throw Fault(FaultKind::TemplateRuntimeError, e.missing_message);
    try {
        Value v = e.fn(*this, std::move(subject), std::move(args));
        if (v.is_string()) charge(v.str().size() / 256);
        return v;
    } catch (const Fault& fault) {
        rethrow_at(fault, e.pos);
    }
}

bool compare_holds(CompareKind kind, const Value& left, const Value& right) {
    switch (kind) {
    case CompareKind::Eq: return py_compare(CompareOp::Eq, left, right);
    case CompareKind::Ne: return py_compare(CompareOp::Ne, left, right);
    case CompareKind::Lt: return py_compare(CompareOp::Lt, left, right);
    case CompareKind::Le: return py_compare(CompareOp::Le, left, right);
    case CompareKind::Gt: return py_compare(CompareOp::Gt, left, right);
    case CompareKind::Ge: return py_compare(CompareOp::Ge, left, right);
    case CompareKind::In: return py_contains(right, left);
    case CompareKind::NotIn: return !py_contains(right, left);
    }
    return false;
}

Value Renderer::eval_compare(const CompareExpr& e, Frame& f) {
    Value left = eval(*e.first, f);
    for (const auto& [kind, expr] : e.rest) {
        Value right = eval(*expr, f);
        if (!compare_holds(kind, left, right)) return Value::boolean(false);
        left = std::move(right);
    }
    return Value::boolean(true);
}

namespace {

std::optional<int64_t> slice_bound(const Value& v) {
    if (v.is_none()) return std::nullopt;
    if (!v.is_integral()) throw_type_error("slice indices must be integers or None or have an __index__ method");
    return v.as_int();
}

}  // namespace

Value Renderer::slice(const Value& obj, const SliceExpr& s, Frame& f) {
    const Value start = s.start ? eval(*s.start, f) : Value::none();
    const Value stop = s.stop ? eval(*s.stop, f) : Value::none();
    const Value step_v = s.step ? eval(*s.step, f) : Value::none();
    // Slices bypass the sandbox's getitem in Jinja2: plain Python slicing, errors included.
    if (obj.is_undefined()) fail_undefined(obj);
    if (obj.is_dict()) throw_type_error("unhashable type: 'slice'");
    const bool sliceable = obj.is_string() || (obj.is_seq() && (obj.seq_kind() == SeqKind::List || obj.seq_kind() == SeqKind::Tuple ||
                                                              obj.seq_kind() == SeqKind::GroupTuple || obj.seq_kind() == SeqKind::Range));
    if (!sliceable) throw_type_error("'" + type_name(obj) + "' object is not subscriptable");
    const std::optional<int64_t> b = slice_bound(start), e = slice_bound(stop), st = slice_bound(step_v);
    const int64_t step = st.value_or(1);
    if (step == 0) throw_value_error("slice step cannot be zero");
    std::u32string cps;
    const std::vector<Value>* items = nullptr;
    int64_t len;
    if (obj.is_string()) {
        cps = to_code_points(obj.str());
        len = int64_t(cps.size());
    } else {
        items = &obj.items();
        len = int64_t(items->size());
    }
    auto adjust = [&](std::optional<int64_t> v, int64_t none_value) -> int64_t {
        if (!v) return none_value;
        int64_t x = *v;
        if (x < 0) {
            x += len;
            if (x < 0) x = step < 0 ? -1 : 0;
        } else if (x >= len) {
            x = step < 0 ? len - 1 : len;
        }
        return x;
    };
    const int64_t lo = adjust(b, step < 0 ? len - 1 : 0);
    const int64_t hi = adjust(e, step < 0 ? -1 : len);
    std::vector<int64_t> picked;
    for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step) {
        picked.push_back(i);
        if ((step > 0 && i > INT64_MAX - step) || (step < 0 && i < INT64_MIN - step)) break;
    }
    charge(picked.size() / 16);
    if (obj.is_string()) {
        std::u32string out;
        for (int64_t i : picked) out += cps[size_t(i)];
        return obj.is_markup() ? Value::markup(to_utf8(out)) : Value::string(to_utf8(out));
    }
    std::vector<Value> out;
    for (int64_t i : picked) out.push_back((*items)[size_t(i)]);
    if (obj.seq_kind() == SeqKind::Range) {
        const auto& r = obj.seq();
        const int64_t new_step = r.range_step * step;
        const int64_t new_start = r.range_start + lo * r.range_step;
        const int64_t new_stop = r.range_start + hi * r.range_step;
        return Value::range(new_start, new_stop, new_step);
    }
    return Value::sequence(std::move(out), obj.seq_kind() == SeqKind::List ? SeqKind::List : SeqKind::Tuple);
}

Value Renderer::eval_node(const Expr& e, Frame& f) {
    switch (e.kind) {
    case ExprKind::Const: return static_cast<const ConstExpr&>(e).value;
    case ExprKind::Name: return load(static_cast<const NameExpr&>(e), f);
    case ExprKind::Tuple:
    case ExprKind::List: {
        std::vector<Value> items;
        for (const auto& x : static_cast<const SeqExpr&>(e).items) items.push_back(eval(*x, f));
        return Value::sequence(std::move(items), e.kind == ExprKind::List ? SeqKind::List : SeqKind::Tuple);
    }
    case ExprKind::Dict: {
        std::vector<std::pair<Value, Value>> items;
        for (const auto& [k, v] : static_cast<const DictExpr&>(e).items) {
            Value key = eval(*k, f);
            require_hashable(key);
            items.emplace_back(std::move(key), eval(*v, f));
        }
        return Value::dict(std::move(items));
    }
    case ExprKind::Getattr: {
        auto& g = static_cast<const GetattrExpr&>(e);
        return getattr(eval(*g.object, f), g.attr);
    }
    case ExprKind::Getitem: {
        auto& g = static_cast<const GetitemExpr&>(e);
        const Value obj = eval(*g.object, f);
        if (g.key->kind == ExprKind::Slice) return slice(obj, static_cast<const SliceExpr&>(*g.key), f);
        return getitem(obj, eval(*g.key, f));
    }
    case ExprKind::Slice: throw_type_error("a slice is only valid inside [ ]");
    case ExprKind::Call: {
        auto& c = static_cast<const CallExpr&>(e);
        Value callee = eval(*c.callee, f);
        CallArgs args = eval_args(c.args, f);
        Value v = call(callee, std::move(args));
        if (v.is_string()) charge(v.str().size() / 256);
        return v;
    }
    case ExprKind::Filter: return eval_filter(static_cast<const FilterExpr&>(e), f, nullptr);
    case ExprKind::Test: {
        auto& t = static_cast<const TestExpr&>(e);
        Value subject = eval(*t.subject, f);
        CallArgs args = eval_args(t.args, f);
        if (!t.fn) throw Fault(FaultKind::TemplateRuntimeError, t.missing_message);
        return Value::boolean(t.fn(*this, subject, std::move(args)));
    }
    case ExprKind::Cond: {
        auto& c = static_cast<const CondExpr&>(e);
        if (truthy(eval(*c.test, f))) return eval(*c.then, f);
        if (c.otherwise) return eval(*c.otherwise, f);
        return Value::undefined("the inline if-expression on line " + std::to_string(c.pos.line) +
                                " evaluated to false and no else section was defined.");
    }
    case ExprKind::And:
    case ExprKind::Or: {
        auto& l = static_cast<const LogicExpr&>(e);
        Value left = eval(*l.left, f);
        if (truthy(left) == (e.kind == ExprKind::Or)) return left;
        return eval(*l.right, f);
    }
    case ExprKind::Not: return Value::boolean(!truthy(eval(*static_cast<const NotExpr&>(e).operand, f)));
    case ExprKind::Unary: {
        auto& u = static_cast<const UnaryExpr&>(e);
        const Value v = eval(*u.operand, f);
        return u.negate ? py_negate(v) : py_positive(v);
    }
    case ExprKind::Binary: {
        auto& b = static_cast<const BinaryExpr&>(e);
        const Value left = eval(*b.left, f);
        const Value right = eval(*b.right, f);
        Value v = py_binary(b.op, left, right, settings_.limits.max_output_bytes);
        if (v.is_string()) charge(v.str().size() / 256);
        else if (v.is_seq()) charge(v.items().size() / 16);
        return v;
    }
    case ExprKind::Concat: {
        std::string out;
        for (const auto& x : static_cast<const ConcatExpr&>(e).parts) append_output(out, eval(*x, f));
        charge(out.size() / 256);
        return Value::string(std::move(out));
    }
    case ExprKind::Compare: return eval_compare(static_cast<const CompareExpr&>(e), f);
    }
    throw_type_error("unknown expression");
}

}  // namespace folio::jinja
