#include "engine/hub/repo_ref.h"

#include <cctype>

#include "engine/core/error.h"

namespace folio::hub {

namespace {

bool allowed_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

void check_part(const std::string& part, const std::string& whole) {
    if (part.empty()) throw Error("'" + whole + "' is not a repository id: use ORG/NAME, e.g. Qwen/Qwen2.5-7B-Instruct-AWQ");
    for (char c : part)
        if (!allowed_char(c))
            throw Error("'" + whole + "' is not a repository id: '" + std::string(1, c) +
                        "' is not allowed (letters, digits, '-', '_' and '.' only)");
    const char first = part.front(), last = part.back();
    if (first == '-' || first == '.' || last == '-' || last == '.')
        throw Error("'" + whole + "' is not a repository id: a part cannot start or end with '-' or '.'");
}

}  // namespace

void check_repo_id(const std::string& repo_id) {
    if (repo_id.size() > 96) throw Error("'" + repo_id + "' is not a repository id: longer than 96 characters");
    if (repo_id.find("--") != std::string::npos || repo_id.find("..") != std::string::npos)
        throw Error("'" + repo_id + "' is not a repository id: '--' and '..' are not allowed");
    const auto slash = repo_id.find('/');
    if (slash == std::string::npos) {
        check_part(repo_id, repo_id);
        return;
    }
    if (repo_id.find('/', slash + 1) != std::string::npos)
        throw Error("'" + repo_id + "' is not a repository id: use ORG/NAME (one '/'); a file inside it goes in --include");
    check_part(repo_id.substr(0, slash), repo_id);
    check_part(repo_id.substr(slash + 1), repo_id);
}

RepoRef parse_repo_ref(const std::string& text) {
    RepoRef r;
    const auto at = text.find('@');
    r.repo_id = text.substr(0, at);
    if (at != std::string::npos) {
        r.revision = text.substr(at + 1);
        if (r.revision.empty()) throw Error("'" + text + "': nothing after '@' (give a branch, tag or commit, or leave out '@')");
        for (char c : r.revision)
            if (std::isspace(static_cast<unsigned char>(c)) || std::iscntrl(static_cast<unsigned char>(c)))
                throw Error("'" + text + "': the revision has a space or control character");
        if (r.revision.find("..") != std::string::npos) throw Error("'" + text + "': '..' is not allowed in a revision");
    }
    check_repo_id(r.repo_id);
    return r;
}

std::string repo_folder_name(const std::string& repo_id) {
    std::string out = "models--";
    for (char c : repo_id) {
        if (c == '/') out += "--";
        else out += c;
    }
    return out;
}

std::string repo_id_from_folder(const std::string& folder) {
    static const std::string prefix = "models--";
    if (folder.rfind(prefix, 0) != 0 || folder.size() == prefix.size()) return {};
    std::string rest = folder.substr(prefix.size());
    const auto sep = rest.find("--");
    if (sep == std::string::npos) return rest;
    return rest.substr(0, sep) + "/" + rest.substr(sep + 2);
}

bool is_commit_hash(const std::string& s) {
    if (s.size() != 40) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

std::string url_quote(const std::string& s, const std::string& safe) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || safe.find(char(c)) != std::string::npos) {
            out += char(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

}  // namespace folio::hub
