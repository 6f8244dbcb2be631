#pragma once
// A small command-line parser: `--name value`, `--flag`, and positional words. Unknown or malformed
// options are errors with a message naming them, never ignored.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace folio::cli {

class Args {
public:
    // `flags` are options without a value; `options` take one value. Anything else starting with
    // "--" is an error (folio::Error).
    Args(int argc, char** argv, int first, const std::set<std::string>& options, const std::set<std::string>& flags);

    bool has(const std::string& name) const;
    std::optional<std::string> get(const std::string& name) const;  // the last value given
    // Every value of an option given several times (--include A --include B), in order.
    std::vector<std::string> get_all(const std::string& name) const;
    std::string require(const std::string& name) const;  // throws folio::Error "--name is required"
    std::string get_or(const std::string& name, const std::string& fallback) const;
    int get_int(const std::string& name, int fallback) const;      // throws on a non-integer
    double get_double(const std::string& name, double fallback) const;
    const std::vector<std::string>& positional() const { return positional_; }

private:
    std::map<std::string, std::string> values_;
    std::map<std::string, std::vector<std::string>> all_values_;
    std::set<std::string> flags_set_;
    std::vector<std::string> positional_;
};

}  // namespace folio::cli
