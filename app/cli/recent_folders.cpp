#include "app/cli/recent_folders.h"

#include <cstdlib>
#include <fstream>

namespace folio::cli {

std::string default_app_data_dir() {
    if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/folio";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.local/share/folio";
    return ".local/share/folio";
}

std::vector<std::string> parse_qsettings_list(const std::string& value) {
    std::vector<std::string> out;
    if (value == "@Invalid()" || value.empty()) return out;
    std::string cur;
    bool quoted = false, was_quoted = false;
    for (size_t i = 0; i < value.size(); ++i) {
        const char c = value[i];
        if (quoted) {
            if (c == '\\' && i + 1 < value.size()) cur += value[++i];
            else if (c == '"') quoted = false;
            else cur += c;
        } else if (c == '"') {
            quoted = was_quoted = true;
        } else if (c == ',') {
            out.push_back(cur);
            cur.clear();
            was_quoted = false;
            while (i + 1 < value.size() && value[i + 1] == ' ') ++i;
        } else {
            cur += c;
        }
    }
    (void)was_quoted;
    out.push_back(cur);
    return out;
}

std::vector<std::string> recent_model_folders(const std::string& settings_ini) {
    std::ifstream in(settings_ini);
    std::string line, section;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty() && line.front() == '[') {
            section = line;
            continue;
        }
        if (section != "[models]" || line.rfind("recent=", 0) != 0) continue;
        std::vector<std::string> folders;
        for (auto& e : parse_qsettings_list(line.substr(7)))
            if (!e.empty() && e.rfind("dummy:", 0) != 0) folders.push_back(e);
        return folders;
    }
    return {};
}

}  // namespace folio::cli
