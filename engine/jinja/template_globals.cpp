// The globals a template can call: Jinja2's range (capped by the sandbox), dict, namespace, cycler,
// joiner, and transformers' raise_exception and strftime_now.
#include <clocale>
#include <ctime>
#include <locale.h>

#include "engine/jinja/python_ops.h"
#include "engine/jinja/python_repr.h"
#include "engine/jinja/template_builtins.h"
#include "engine/jinja/template_call_args.h"
#include "engine/jinja/template_error.h"
#include "engine/jinja/template_objects.h"
#include "engine/jinja/template_renderer.h"

namespace folio::jinja {

namespace {

constexpr int64_t kMaxRange = 100000;  // jinja2.sandbox.MAX_RANGE

int64_t range_arg(const Value& v) {
    if (v.is_undefined()) fail_undefined(v);
    if (!v.is_integral()) throw_type_error("'" + type_name(v) + "' object cannot be interpreted as an integer");
    return v.as_int();
}

Value g_range(Renderer& r, CallArgs& a) {
    if (!a.keywords.empty()) throw_type_error("range() takes no keyword arguments");
    const auto& p = a.positional;
    if (p.empty()) throw_type_error("range expected at least 1 argument, got 0");
    if (p.size() > 3) throw_type_error("range expected at most 3 arguments, got " + std::to_string(p.size()));
    int64_t start = 0, stop, step = 1;
    if (p.size() == 1) {
        stop = range_arg(p[0]);
    } else {
        start = range_arg(p[0]);
        stop = range_arg(p[1]);
        if (p.size() == 3) step = range_arg(p[2]);
    }
    if (step == 0) throw_value_error("range() arg 3 must not be zero");
    // the length, computed without overflow
    const long double span = step > 0 ? (long double)stop - start : (long double)start - stop;
    const long double len = span <= 0 ? 0 : (span + std::abs((long double)step) - 1) / std::abs((long double)step);
    if (len > kMaxRange)
        throw Fault(FaultKind::OverflowError, "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
    r.charge(uint64_t(len) / 16);
    return Value::range(start, stop, step);
}

// dict(*args, **kwargs): a mapping or an iterable of pairs, then the keywords.
std::vector<std::pair<Value, Value>> dict_items(Renderer& r, CallArgs& a, const char* name) {
    if (a.positional.size() > 1)
        throw_type_error(std::string(name) + " expected at most 1 argument, got " + std::to_string(a.positional.size()));
    std::vector<std::pair<Value, Value>> items;
    if (!a.positional.empty()) {
        const Value& src = a.positional[0];
        if (src.is_dict()) {
            items = src.dict().items;
        } else {
            if (!is_iterable(src) || src.is_undefined())
                throw_type_error("'" + type_name(src) + "' object is not iterable");
            size_t i = 0;
            for (const Value& pair : r.iterate(src)) {
                if (!is_iterable(pair))
                    throw_type_error("cannot convert dictionary update sequence element #" + std::to_string(i) +
                                     " to a sequence");
                auto kv = r.iterate(pair);
                if (kv.size() != 2)
                    throw_value_error("dictionary update sequence element #" + std::to_string(i) + " has length " +
                                      std::to_string(kv.size()) + "; 2 is required");
                require_hashable(kv[0]);
                items.emplace_back(kv[0], kv[1]);
                ++i;
            }
        }
    }
    for (auto& [k, v] : a.keywords) items.emplace_back(Value::string(k), v);
    return items;
}

Value g_dict(Renderer& r, CallArgs& a) { return Value::dict(dict_items(r, a, "dict")); }

Value g_namespace(Renderer& r, CallArgs& a) {
    auto ns = r.new_namespace();
    // Through a dict first: later duplicates win, as dict(*args, **kwargs) does.
    const Value d = Value::dict(dict_items(r, a, "Namespace"));
    for (const auto& [k, v] : d.dict().items) ns->set(k, v);
    return Value::object(ns);
}

Value g_cycler(Renderer&, CallArgs& a) {
    if (!a.keywords.empty()) throw_type_error("Cycler() got an unexpected keyword argument '" + a.keywords[0].first + "'");
    if (a.positional.empty()) throw Fault(FaultKind::TemplateRuntimeError, "at least one item has to be provided");
    return Value::object(std::make_shared<CyclerObject>(a.positional));
}

Value g_joiner(Renderer&, CallArgs& a) {
    auto b = bind_args(a, "Joiner", {"sep"});
    return Value::object(std::make_shared<JoinerObject>(b[0] ? *b[0] : Value::string(", ")));
}

Value g_lipsum(Renderer&, CallArgs&) {
    throw Fault(FaultKind::TemplateRuntimeError, "lipsum() (random text) is not supported by this template engine");
}

Value g_raise_exception(Renderer& r, CallArgs& a) {
    auto b = bind_args(a, "raise_exception", {"message"});
    if (!b[0]) throw_type_error("raise_exception() missing 1 required positional argument: 'message'");
    throw TemplateRaisedError(py_str(*b[0], r.text_limit()));
}

// datetime.strftime: %f, %z and %Z are Python's own (a naive datetime has no zone), the rest is C's
// strftime in the "C" locale.
Value g_strftime_now(Renderer& r, CallArgs& a) {
    auto b = bind_args(a, "strftime_now", {"format"});
    if (!b[0]) throw_type_error("strftime_now() missing 1 required positional argument: 'format'");
    const std::string& fmt = str_arg(*b[0], "strftime() argument 1");
    std::string prepared;
    for (size_t i = 0; i < fmt.size(); ++i) {
        if (fmt[i] == '%' && i + 1 < fmt.size()) {
            const char c = fmt[i + 1];
            if (c == 'f') { prepared += "000000"; ++i; continue; }
            if (c == 'z' || c == 'Z') { ++i; continue; }
            prepared += fmt[i];
            prepared += c;
            ++i;
            continue;
        }
        prepared += fmt[i];
    }
    if (prepared.empty()) return Value::string("");
    locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t(0));
    std::string out;
    size_t size = std::max<size_t>(64, prepared.size() * 4);
    std::tm tm = r.now();
    while (true) {
        std::string buf(size, '\0');
        const size_t n = c_locale ? strftime_l(buf.data(), buf.size(), prepared.c_str(), &tm, c_locale)
                                  : std::strftime(buf.data(), buf.size(), prepared.c_str(), &tm);
        if (n > 0) {
            out.assign(buf.data(), n);
            break;
        }
        if (size > prepared.size() * 256 || size > r.text_limit()) break;  // genuinely empty output
        size *= 2;
    }
    if (c_locale) freelocale(c_locale);
    return Value::string(std::move(out));
}

struct GlobalEntry {
    const char* name;
    BuiltinFunction::Fn fn;
};

const GlobalEntry kGlobals[] = {
    {"range", g_range},           {"dict", g_dict},       {"namespace", g_namespace},
    {"cycler", g_cycler},         {"joiner", g_joiner},   {"lipsum", g_lipsum},
    {"raise_exception", g_raise_exception}, {"strftime_now", g_strftime_now},
};

}  // namespace

Value find_global(std::string_view name) {
    for (const auto& g : kGlobals)
        if (name == g.name) return Value::object(std::make_shared<BuiltinFunction>(g.name, g.fn));
    return Value::missing();
}

}  // namespace folio::jinja
