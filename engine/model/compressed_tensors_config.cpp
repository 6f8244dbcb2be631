#include "engine/model/compressed_tensors_config.h"

#include <nlohmann/json.hpp>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <memory>

#include "engine/core/error.h"

namespace folio {

using nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& source, const std::string& what) { throw Error(source + ": " + what); }

std::string string_field(const json& j, const char* key) {
    return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// The one config group and its name ("config_groups.group_0"); refused unless there is exactly one.
std::pair<const json*, std::string> single_group(const json& q, const std::string& source) {
    if (!q.contains("config_groups") || !q["config_groups"].is_object() || q["config_groups"].empty())
        fail(source, "\"config_groups\" is missing: a compressed-tensors checkpoint describes its scheme there");
    if (q["config_groups"].size() != 1)
        fail(source, "\"config_groups\" has " + std::to_string(q["config_groups"].size()) +
                         " groups; Folio runs compressed-tensors checkpoints with one scheme for every linear");
    const auto it = q["config_groups"].begin();
    if (!it.value().is_object()) fail(source, "config_groups." + it.key() + " must be an object");
    return {&it.value(), "config_groups." + it.key()};
}

// "actorder" is null, false, or a string ("group", "weight", "static", "dynamic"; true meant "group"
// in older compressed-tensors). Only "group" stores a g_idx that permutes the input columns into
// groups; "weight" and "static" reordered columns while quantizing and load like no reordering.
void check_actorder(const json& w, const std::string& where, const std::string& source) {
    if (!w.contains("actorder") || w["actorder"].is_null()) return;
    const json& a = w["actorder"];
    if (a.is_boolean() && !a.get<bool>()) return;
    const std::string value = a.is_string() ? a.get<std::string>() : a.dump();
    if (value == "weight" || value == "static") return;
    fail(source, where + ".actorder is " + (a.is_string() ? "\"" + value + "\"" : value) +
                     ": activation-ordered groups (a weight_g_idx permutation) are not supported; "
                     "actorder null, \"weight\" or \"static\" checkpoints load");
}

}  // namespace

bool is_pack_quantized(const json& q) {
    if (string_field(q, "quant_method") != "compressed-tensors") return false;
    if (string_field(q, "format") == "pack-quantized") return true;
    if (!q.contains("config_groups") || !q["config_groups"].is_object()) return false;
    for (const auto& [name, g] : q["config_groups"].items())
        if (string_field(g, "format") == "pack-quantized") return true;
    return false;
}

void parse_pack_quantized(const json& q, const std::string& source, QuantConfig& out) {
    if (!q.is_object()) fail(source, "quantization settings are not a JSON object");
    out = QuantConfig{};
    out.method = QuantConfig::Method::Awq;
    out.pack_quantized = true;
    const std::string format = string_field(q, "format");
    if (!format.empty() && format != "pack-quantized")
        fail(source, "compressed-tensors format \"" + format + "\" mixes schemes; Folio runs \"pack-quantized\" (int4 W4A16) "
                     "with one scheme for every linear");
    const auto [group, gname] = single_group(q, source);
    const json& g = *group;
    if (const std::string gf = string_field(g, "format"); !gf.empty() && gf != "pack-quantized")
        fail(source, gname + ".format is \"" + gf + "\", not \"pack-quantized\"");
    if (g.contains("targets") && g["targets"].is_array()) {
        bool linear = false;
        for (const auto& t : g["targets"]) linear = linear || (t.is_string() && t.get<std::string>() == "Linear");
        if (!linear) fail(source, gname + ".targets must include \"Linear\" (the decoder's projections)");
    }
    if (!g.contains("weights") || !g["weights"].is_object()) fail(source, gname + ".weights is missing");
    const json& w = g["weights"];
    const std::string where = gname + ".weights";
    if (!w.contains("num_bits") || !w["num_bits"].is_number_integer()) fail(source, where + ".num_bits must be an integer");
    const int bits = w["num_bits"].get<int>();
    const std::string type = w.contains("type") ? string_field(w, "type") : "int";
    if (type != "int") fail(source, where + ".type is \"" + type + "\": pack-quantized weights must be \"int\"");
    if (bits != 4)
        fail(source, where + ".num_bits is " + std::to_string(bits) + ": Folio's packed kernels run 4-bit weights only (W4A16)");
    const std::string strategy = w.contains("strategy") ? string_field(w, "strategy") : "tensor";
    if (strategy != "group")
        fail(source, where + ".strategy is \"" + strategy + "\": Folio runs group-wise int4 weights only (strategy \"group\")");
    if (!w.contains("group_size") || !w["group_size"].is_number_integer())
        fail(source, where + ".group_size must be an integer for strategy \"group\"");
    const int gs = w["group_size"].get<int>();
    if (gs != 32 && gs != 64 && gs != 128)
        fail(source, where + ".group_size is " + std::to_string(gs) + ": the 4-bit kernels run groups of 32, 64 or 128");
    if (w.contains("dynamic") && w["dynamic"].is_boolean() && w["dynamic"].get<bool>())
        fail(source, where + ".dynamic is true: packed int4 weights need stored scales");
    check_actorder(w, where, source);
    if (g.contains("input_activations") && !g["input_activations"].is_null())
        fail(source, gname + ".input_activations is set: quantized activations (W4A8, W4A4) are not supported; "
                     "Folio runs weight-only int4 (W4A16)");
    if (q.contains("kv_cache_scheme") && !q["kv_cache_scheme"].is_null())
        fail(source, "kv_cache_scheme is set: a quantized KV cache is supported with FP8 weights only, not with int4 ones");
    out.bits = 4;
    out.group_size = gs;
    out.zero_point = w.contains("symmetric") && w["symmetric"].is_boolean() ? !w["symmetric"].get<bool>() : false;
    out.ignore = read_ignore_list(q, "ignore", source);
}

namespace {

// A "re:" entry's pattern, compiled by PCRE2 (as the tokenizers' regexes are): vLLM matches these
// with Python's re.match, whose syntax PCRE2 shares (named groups (?P<..>), lookbehind, inline flags)
// where std::regex's ECMAScript grammar does not; anchored at the start as re.match is.
struct CompiledPattern {
    std::unique_ptr<pcre2_code, void (*)(pcre2_code*)> code{nullptr, pcre2_code_free};
    std::string error;  // empty when it compiled
};

CompiledPattern compile_module_pattern(const std::string& pattern) {
    int code = 0;
    PCRE2_SIZE offset = 0;
    CompiledPattern out;
    out.code.reset(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_ANCHORED, &code,
                                 &offset, nullptr));
    if (!out.code) {
        PCRE2_UCHAR buf[256];
        pcre2_get_error_message(code, buf, sizeof buf);
        out.error = std::string(reinterpret_cast<const char*>(buf)) + " at offset " + std::to_string(offset);
    }
    return out;
}

bool pattern_matches(const std::string& pattern, const std::string& module) {
    const CompiledPattern p = compile_module_pattern(pattern);
    if (!p.code) return false;  // read_ignore_list refused it already
    std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> md(pcre2_match_data_create_from_pattern(p.code.get(), nullptr),
                                                                      pcre2_match_data_free);
    return pcre2_match(p.code.get(), reinterpret_cast<PCRE2_SPTR>(module.data()), module.size(), 0, 0, md.get(), nullptr) >= 0;
}

}  // namespace

std::vector<std::string> read_ignore_list(const json& q, const char* key, const std::string& source) {
    std::vector<std::string> out;
    if (!q.contains(key) || q[key].is_null()) return out;
    if (!q[key].is_array()) fail(source, std::string("\"") + key + "\" must be a list of module names");
    for (const auto& m : q[key]) {
        if (!m.is_string()) fail(source, std::string("\"") + key + "\" must be a list of module names");
        const std::string name = m.get<std::string>();
        if (name.rfind("re:", 0) == 0) {
            const CompiledPattern p = compile_module_pattern(name.substr(3));
            if (!p.code) fail(source, std::string("\"") + key + "\" entry \"" + name + "\" is not a valid regular expression: " + p.error);
        }
        out.push_back(name);
    }
    return out;
}

bool module_ignored(const std::vector<std::string>& ignore, const std::string& module) {
    for (const auto& entry : ignore) {
        if (entry.rfind("re:", 0) == 0) {
            if (pattern_matches(entry.substr(3), module)) return true;
        } else if (entry == module) {
            return true;
        }
    }
    return false;
}

}  // namespace folio
