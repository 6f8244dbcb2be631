#include "app/cli/cli_args.h"

#include <cerrno>
#include <cstdlib>

#include "app/cli/command_line.h"

namespace folio::cli {

Args::Args(int argc, char** argv, int first, const std::set<std::string>& options, const std::set<std::string>& flags) {
    for (int i = first; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--help" || a == "-h") throw HelpRequested{};
        if (a == "--version") throw VersionRequested{};
        if (a.rfind("--", 0) != 0 || a == "--") {
            positional_.push_back(a);
            continue;
        }
        std::string name = a.substr(2);
        std::optional<std::string> inline_value;
        if (auto eq = name.find('='); eq != std::string::npos) {
            inline_value = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        if (flags.count(name)) {
            if (inline_value) throw UsageError("--" + name + " takes no value");
            flags_set_.insert(name);
        } else if (options.count(name)) {
            if (inline_value) {
                values_[name] = *inline_value;
            } else {
                if (i + 1 >= argc) throw UsageError("--" + name + " needs a value");
                values_[name] = argv[++i];
            }
            all_values_[name].push_back(values_[name]);
        } else {
            throw UsageError("unknown option --" + name);
        }
    }
}

bool Args::has(const std::string& name) const { return flags_set_.count(name) || values_.count(name); }

std::optional<std::string> Args::get(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::vector<std::string> Args::get_all(const std::string& name) const {
    auto it = all_values_.find(name);
    return it == all_values_.end() ? std::vector<std::string>{} : it->second;
}

std::string Args::require(const std::string& name) const {
    auto v = get(name);
    if (!v) throw UsageError("--" + name + " is required");
    return *v;
}

std::string Args::get_or(const std::string& name, const std::string& fallback) const {
    return get(name).value_or(fallback);
}

int Args::get_int(const std::string& name, int fallback) const {
    auto v = get(name);
    if (!v) return fallback;
    errno = 0;
    char* end = nullptr;
    const long x = std::strtol(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0' || errno == ERANGE || x < -2147483647L || x > 2147483647L)
        throw UsageError("--" + name + " needs an integer, got '" + *v + "'");
    return int(x);
}

double Args::get_double(const std::string& name, double fallback) const {
    auto v = get(name);
    if (!v) return fallback;
    errno = 0;
    char* end = nullptr;
    const double x = std::strtod(v->c_str(), &end);
    if (v->empty() || *end != '\0' || errno == ERANGE) throw UsageError("--" + name + " needs a number, got '" + *v + "'");
    return x;
}

std::string Args::get_choice(const std::string& name, std::initializer_list<const char*> choices, const std::string& fallback) const {
    const std::string v = get_or(name, fallback);
    std::string list;
    for (const char* c : choices) {
        if (v == c) return v;
        list += list.empty() ? c : std::string(", ") + c;
    }
    throw UsageError("--" + name + " takes one of " + list + "; got '" + v + "'");
}

void Args::expect_no_positional() const {
    if (!positional_.empty()) throw UsageError("unexpected argument '" + positional_.front() + "'");
}

}  // namespace folio::cli
