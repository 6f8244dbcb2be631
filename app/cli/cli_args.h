#pragma once
// A small command-line parser: `--name value`, `--name=value`, `--flag`, and positional words. Every
// program accepts --help / -h and --version (HelpRequested / VersionRequested are thrown the moment
// one is met, see command_line.h). Unknown or malformed options are UsageErrors naming them, never
// ignored.
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace folio::cli {

class Args {
public:
    // `flags` are options without a value; `options` take one value.
    Args(int argc, char** argv, int first, const std::set<std::string>& options, const std::set<std::string>& flags);

    bool has(const std::string& name) const;
    std::optional<std::string> get(const std::string& name) const;  // the last value given
    // Every value of an option given several times (--include A --include B), in order.
    std::vector<std::string> get_all(const std::string& name) const;
    std::string require(const std::string& name) const;  // UsageError "--name is required"
    std::string get_or(const std::string& name, const std::string& fallback) const;
    int get_int(const std::string& name, int fallback) const;      // UsageError on a non-integer
    double get_double(const std::string& name, double fallback) const;
    // The value, which must be one of `choices` (UsageError naming them otherwise).
    std::string get_choice(const std::string& name, std::initializer_list<const char*> choices, const std::string& fallback) const;
    const std::vector<std::string>& positional() const { return positional_; }
    // UsageError "unexpected argument 'X'" when a positional word was given.
    void expect_no_positional() const;

private:
    std::map<std::string, std::string> values_;
    std::map<std::string, std::vector<std::string>> all_values_;
    std::set<std::string> flags_set_;
    std::vector<std::string> positional_;
};

}  // namespace folio::cli
