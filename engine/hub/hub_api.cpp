#include "engine/hub/hub_api.h"

#include <algorithm>
#include <cctype>

namespace folio::hub {

using nlohmann::json;

namespace {

std::string str_or(const json& j, const char* key, const std::string& fallback = {}) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

int64_t int_or(const json& j, const char* key, int64_t fallback = 0) {
    auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

std::string gated_of(const json& j) {
    auto it = j.find("gated");
    if (it == j.end() || it->is_null()) return {};
    if (it->is_boolean()) return it->get<bool>() ? "auto" : "";
    if (it->is_string()) return it->get<std::string>();
    return {};
}

[[noreturn]] void bad_answer(const std::string& what) { throw HubError(HubError::Kind::Protocol, what); }

bool is_hex_hash(const std::string& h) {
    if (h.size() != 40 && h.size() != 64) return false;
    for (char c : h)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

bool has_tag(const std::vector<std::string>& tags, const std::string& t) {
    return std::find(tags.begin(), tags.end(), t) != tags.end();
}

}  // namespace

RepoListing list_repo_files(const HubClient& client, const RepoRef& ref) {
    RepoListing out;
    out.repo_id = ref.repo_id;
    out.revision = ref.revision;
    const std::string base = "/api/models/" + ref.repo_id;
    const json info = client.get_json(base + "/revision/" + url_quote(ref.revision, ""), ref.repo_id);
    if (!info.is_object()) bad_answer(ref.repo_id + ": the model info is not a JSON object");
    out.commit = str_or(info, "sha");
    if (!is_commit_hash(out.commit))
        bad_answer(ref.repo_id + "@" + ref.revision + ": the Hub's answer has no commit hash (\"sha\")");
    out.gated = gated_of(info);

    // The tree at the commit (not the branch: it could move between the two calls).
    std::string next;
    json page = client.get_json(base + "/tree/" + out.commit + "?recursive=true", ref.repo_id, &next);
    for (int pages = 0;; ++pages) {
        if (!page.is_array()) bad_answer(ref.repo_id + ": the file listing is not a JSON array");
        for (const json& e : page) {
            if (!e.is_object() || str_or(e, "type") != "file") continue;  // directories are listed too
            RepoFile f;
            f.path = str_or(e, "path");
            f.blob_id = str_or(e, "oid");
            const int64_t size = int_or(e, "size", -1);
            if (f.path.empty() || size < 0) bad_answer(ref.repo_id + ": a file listing entry without path or size: " + e.dump());
            f.size = uint64_t(size);
            if (auto lfs = e.find("lfs"); lfs != e.end() && lfs->is_object()) {
                f.sha256 = str_or(*lfs, "oid");
                const int64_t lfs_size = int_or(*lfs, "size", -1);
                if (lfs_size >= 0) f.size = uint64_t(lfs_size);
            }
            // The hash names a file in the cache: only a sha1 or sha256 in hex may do that.
            if (!is_hex_hash(f.etag())) bad_answer(ref.repo_id + ": no usable hash for " + f.path + " in the file listing");
            // Never let a listed path leave the snapshot folder.
            if (f.path.front() == '/' || f.path.find("..") != std::string::npos)
                bad_answer(ref.repo_id + ": refusing the file path '" + f.path + "'");
            out.files.push_back(std::move(f));
        }
        if (next.empty()) break;
        if (pages > 10000) bad_answer(ref.repo_id + ": the file listing does not end");
        page = client.get_json_url(next, ref.repo_id, &next);
    }
    std::sort(out.files.begin(), out.files.end(), [](const RepoFile& a, const RepoFile& b) { return a.path < b.path; });
    return out;
}

std::string format_from_tags(const std::vector<std::string>& tags, const std::string& dtypes) {
    auto any = [&](std::initializer_list<const char*> names) {
        for (const char* n : names)
            if (has_tag(tags, n)) return true;
        return false;
    };
    if (any({"awq"})) return "AWQ";
    if (any({"fp8"}) || dtypes.find("F8") != std::string::npos) return "FP8";
    if (any({"gptq"})) return "GPTQ";
    if (any({"gguf"})) return "GGUF";
    if (any({"compressed-tensors"})) return "compressed-tensors";
    if (any({"safetensors"}) || !dtypes.empty()) {
        if (dtypes == "BF16") return "bf16";
        if (dtypes == "F16") return "fp16";
        if (dtypes == "F32") return "fp32";
        return "safetensors";
    }
    return "";
}

int safetensors_dtype_bytes(const std::string& d) {
    if (d == "F64" || d == "I64" || d == "U64") return 8;
    if (d == "F32" || d == "I32" || d == "U32") return 4;
    if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
    if (d == "F8_E4M3" || d == "F8_E5M2" || d == "I8" || d == "U8" || d == "BOOL") return 1;
    return 0;
}

std::vector<SearchHit> search_models(const HubClient& client, const SearchQuery& query) {
    std::string q = "/api/models?search=" + url_quote(query.text, "") + "&sort=downloads&direction=-1&limit=" +
                    std::to_string(std::clamp(query.limit, 1, 100));
    for (const auto& t : query.tags) q += "&filter=" + url_quote(t, "");
    for (const char* e : {"downloads", "likes", "gated", "pipeline_tag", "lastModified", "tags", "safetensors"})
        q += std::string("&expand=") + e;
    const json list = client.get_json(q, "");
    if (!list.is_array()) bad_answer("the model search answer is not a JSON array");
    std::vector<SearchHit> hits;
    for (const json& m : list) {
        if (!m.is_object()) continue;
        SearchHit h;
        h.repo_id = str_or(m, "id", str_or(m, "modelId"));
        if (h.repo_id.empty()) continue;
        h.downloads = int_or(m, "downloads");
        h.likes = int_or(m, "likes");
        h.gated = gated_of(m);
        h.pipeline_tag = str_or(m, "pipeline_tag");
        h.last_modified = str_or(m, "lastModified");
        if (auto t = m.find("tags"); t != m.end() && t->is_array())
            for (const auto& tag : *t)
                if (tag.is_string()) h.tags.push_back(tag.get<std::string>());
        if (auto st = m.find("safetensors"); st != m.end() && st->is_object()) {
            h.parameters = uint64_t(std::max<int64_t>(0, int_or(*st, "total")));
            if (auto p = st->find("parameters"); p != st->end() && p->is_object()) {
                std::vector<std::pair<int64_t, std::string>> by_count;
                for (auto it = p->begin(); it != p->end(); ++it)
                    if (it->is_number_integer()) by_count.emplace_back(it->get<int64_t>(), it.key());
                std::sort(by_count.rbegin(), by_count.rend());
                for (const auto& [n, name] : by_count) {
                    h.dtypes += (h.dtypes.empty() ? "" : "+") + name;
                    h.weight_bytes += uint64_t(n) * uint64_t(safetensors_dtype_bytes(name));
                }
                if (h.parameters == 0)
                    for (const auto& [n, name] : by_count) h.parameters += uint64_t(n);
            }
        }
        h.format = format_from_tags(h.tags, h.dtypes);
        if (query.max_bytes > 0 && h.weight_bytes > query.max_bytes) continue;
        hits.push_back(std::move(h));
    }
    return hits;
}

}  // namespace folio::hub
