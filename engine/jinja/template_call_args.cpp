#include "engine/jinja/template_call_args.h"

#include "engine/jinja/python_ops.h"

namespace folio::jinja {

std::vector<std::optional<Value>> bind_args(const CallArgs& args, const char* func,
                                            std::initializer_list<const char*> params) {
    const std::vector<const char*> names(params);
    std::vector<std::optional<Value>> out(names.size());
    if (args.positional.size() > names.size())
        throw_type_error(std::string(func) + "() takes at most " + std::to_string(names.size()) + " argument" +
                         (names.size() == 1 ? "" : "s") + " (" + std::to_string(args.positional.size()) + " given)");
    for (size_t i = 0; i < args.positional.size(); ++i) out[i] = args.positional[i];
    for (const auto& [key, value] : args.keywords) {
        size_t i = 0;
        while (i < names.size() && key != names[i]) ++i;
        if (i == names.size()) throw_type_error(std::string(func) + "() got an unexpected keyword argument '" + key + "'");
        if (out[i]) throw_type_error(std::string(func) + "() got multiple values for argument '" + key + "'");
        out[i] = value;
    }
    return out;
}

int64_t int_arg(const Value& v, const char* what) {
    if (v.is_undefined()) fail_undefined(v);
    (void)what;
    if (!v.is_integral()) throw_type_error("'" + type_name(v) + "' object cannot be interpreted as an integer");
    return v.as_int();
}

const std::string& str_arg(const Value& v, const char* what) {
    if (v.is_undefined()) fail_undefined(v);
    if (!v.is_string()) throw_type_error(std::string(what) + (*what ? " " : "") + "must be str, not " + type_name(v));
    return v.str();
}

}  // namespace folio::jinja
