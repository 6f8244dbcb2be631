#include "app/server/openai_request.h"

#include <cmath>
#include <limits>

namespace folio::server {

namespace {

using nlohmann::json;

const char* type_name_of(const json& v) { return v.type_name(); }

// A field that is absent or null counts as not given (clients send null for "default").
const json* field(const json& obj, const char* name) {
    auto it = obj.find(name);
    if (it == obj.end() || it->is_null()) return nullptr;
    return &*it;
}

std::optional<double> get_number(const json& obj, const char* name) {
    const json* v = field(obj, name);
    if (!v) return std::nullopt;
    if (!v->is_number()) throw bad_field(name, std::string(name) + " must be a number, got " + type_name_of(*v));
    const double x = v->get<double>();
    if (!std::isfinite(x)) throw bad_field(name, std::string(name) + " must be a finite number");
    return x;
}

std::optional<double> get_number_in(const json& obj, const char* name, double lo, double hi) {
    auto x = get_number(obj, name);
    if (x && (*x < lo || *x > hi))
        throw bad_field(name, std::string(name) + " must be between " + json(lo).dump() + " and " + json(hi).dump() + ", got " +
                                  json(*x).dump());
    return x;
}

// An integer (a float with an integral value, as some clients send, is accepted) in [lo, hi].
std::optional<int64_t> get_integer(const json& obj, const char* name, int64_t lo, int64_t hi) {
    const json* v = field(obj, name);
    if (!v) return std::nullopt;
    std::string shown = v->dump();
    if (shown.size() > 40) shown = shown.substr(0, 40) + "...";
    if (v->is_number_integer()) {
        if (v->is_number_unsigned() && v->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
            throw bad_field(name, std::string(name) + " must be at most " + std::to_string(hi) + ", got " + shown);
        const int64_t x = v->get<int64_t>();
        if (x < lo || x > hi)
            throw bad_field(name, std::string(name) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " + shown);
        return x;
    }
    if (v->is_number_float()) {
        const double d = v->get<double>();
        if (std::isfinite(d) && d == std::floor(d) && d >= double(lo) && d <= double(hi)) return int64_t(d);
        throw bad_field(name, std::string(name) + " must be an integer between " + std::to_string(lo) + " and " + std::to_string(hi) +
                                  ", got " + shown);
    }
    throw bad_field(name, std::string(name) + " must be an integer, got " + type_name_of(*v));
}

std::optional<bool> get_bool(const json& obj, const char* name) {
    const json* v = field(obj, name);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) throw bad_field(name, std::string(name) + " must be true or false, got " + type_name_of(*v));
    return v->get<bool>();
}

ApiError unsupported(const char* name, const std::string& what) {
    return bad_field(name, what + " is not supported by this server (Folio); leave " + name + " out");
}

std::string text_of_content(const json& content, const std::string& where) {
    if (content.is_string()) return content.get<std::string>();
    if (!content.is_array())
        throw bad_field(where, where + " must be a string or an array of text parts, got " + std::string(type_name_of(content)));
    std::string text;
    for (size_t i = 0; i < content.size(); ++i) {
        const json& part = content[i];
        const std::string at = where + "[" + std::to_string(i) + "]";
        if (!part.is_object()) throw bad_field(at, at + " must be an object {\"type\": \"text\", \"text\": ...}");
        auto type = part.find("type");
        if (type == part.end() || !type->is_string()) throw bad_field(at + ".type", at + ".type must be the string \"text\"");
        if (*type != "text")
            throw bad_field(at + ".type", at + ".type '" + type->get<std::string>() + "' is not supported: this server takes text parts only");
        auto t = part.find("text");
        if (t == part.end() || !t->is_string()) throw bad_field(at + ".text", at + ".text must be a string");
        text += t->get<std::string>();
    }
    return text;
}

void parse_messages(const json& body, Request& out) {
    const json* m = field(body, "messages");
    if (!m) throw bad_field("messages", "messages is required: an array of {\"role\", \"content\"} objects");
    if (!m->is_array()) throw bad_field("messages", std::string("messages must be an array, got ") + type_name_of(*m));
    if (m->empty()) throw bad_field("messages", "messages is empty: give at least one message");
    for (size_t i = 0; i < m->size(); ++i) {
        const json& msg = (*m)[i];
        const std::string at = "messages[" + std::to_string(i) + "]";
        if (!msg.is_object()) throw bad_field(at, at + " must be an object with role and content");
        auto role = msg.find("role");
        if (role == msg.end() || !role->is_string()) throw bad_field(at + ".role", at + ".role must be a string");
        std::string r = role->get<std::string>();
        if (r == "developer") r = "system";  // OpenAI's newer name for the system role
        if (r != "system" && r != "user" && r != "assistant" && r != "tool")
            throw bad_field(at + ".role",
                            at + ".role '" + role->get<std::string>() + "' is unknown: use system, developer, user, assistant or tool");
        auto content = msg.find("content");
        if (content == msg.end() || content->is_null()) {
            if (msg.contains("tool_calls")) throw unsupported("tools", at + ".tool_calls (tool calling)");
            throw bad_field(at + ".content", at + ".content is required");
        }
        out.messages.push_back({r, text_of_content(*content, at + ".content")});
    }
}

void parse_prompt(const json& body, Request& out) {
    const json* p = field(body, "prompt");
    if (!p) throw bad_field("prompt", "prompt is required: a string or an array of token ids");
    const json* one = p;
    if (p->is_array() && !p->empty() && (p->front().is_string() || p->front().is_array())) {
        if (p->size() != 1) throw unsupported("prompt", "more than one prompt per request");
        one = &p->front();
    }
    if (one->is_string()) {
        out.prompt_text = one->get<std::string>();
        if (out.prompt_text->empty()) throw bad_field("prompt", "prompt is empty");
        return;
    }
    if (!one->is_array()) throw bad_field("prompt", std::string("prompt must be a string or an array of token ids, got ") + type_name_of(*one));
    if (one->empty()) throw bad_field("prompt", "prompt is empty");
    out.prompt_ids.reserve(one->size());
    for (size_t i = 0; i < one->size(); ++i) {
        const json& t = (*one)[i];
        if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() > std::numeric_limits<int32_t>::max())
            throw bad_field("prompt", "prompt[" + std::to_string(i) + "] must be a token id (a non-negative integer), got " + t.dump());
        out.prompt_ids.push_back(int32_t(t.get<int64_t>()));
    }
}

void parse_stop(const json& body, Request& out) {
    const json* s = field(body, "stop");
    if (!s) return;
    auto add = [&](const json& v, const std::string& at) {
        if (!v.is_string()) throw bad_field("stop", at + " must be a string, got " + std::string(type_name_of(v)));
        std::string str = v.get<std::string>();
        if (str.empty()) throw bad_field("stop", at + " is an empty string");
        if (str.size() > kMaxStopStringBytes) throw bad_field("stop", at + " is longer than " + std::to_string(kMaxStopStringBytes) + " bytes");
        out.stop.stop_strings.push_back(std::move(str));
    };
    if (s->is_string()) return add(*s, "stop");
    if (!s->is_array()) throw bad_field("stop", std::string("stop must be a string or an array of strings, got ") + type_name_of(*s));
    if (s->size() > size_t(kMaxStopStrings)) throw bad_field("stop", "stop has more than " + std::to_string(kMaxStopStrings) + " strings");
    for (size_t i = 0; i < s->size(); ++i) add((*s)[i], "stop[" + std::to_string(i) + "]");
}

// What Folio cannot do yet is refused by name: a client asking for it would otherwise get something
// other than what it asked for without knowing.
void refuse_unsupported(const json& body, Endpoint endpoint) {
    if (auto b = get_integer(body, "best_of", 1, 128); b && *b != 1) throw unsupported("best_of", "best_of > 1");
    if (endpoint == Endpoint::ChatCompletions) {
        if (const json* tools = field(body, "tools"); tools && !(tools->is_array() && tools->empty()))
            throw unsupported("tools", "tool calling");
        if (const json* rf = field(body, "response_format")) {
            const json* type = rf->is_object() ? field(*rf, "type") : nullptr;
            if (!type || *type != "text") throw unsupported("response_format", "response_format other than {\"type\": \"text\"}");
        }
    } else {
        if (auto e = get_bool(body, "echo"); e && *e) throw unsupported("echo", "echo");
        if (field(body, "suffix")) throw unsupported("suffix", "suffix (insertion)");
    }
    if (const json* lb = field(body, "logit_bias"); lb && !(lb->is_object() && lb->empty())) throw unsupported("logit_bias", "logit_bias");
}

// Chat: logprobs (bool) and top_logprobs (0..20, only with logprobs: true), as OpenAI. Completions:
// logprobs is the number of alternatives (0..20; OpenAI allows 5, vLLM 20). -1 in the request: off.
int parse_logprobs(const json& body, Endpoint endpoint) {
    if (endpoint == Endpoint::ChatCompletions) {
        const bool on = get_bool(body, "logprobs").value_or(false);
        const auto top = get_integer(body, "top_logprobs", 0, kMaxTopLogprobs);
        if (top && !on) throw bad_field("top_logprobs", "top_logprobs needs logprobs: true");
        return on ? int(top.value_or(0)) : -1;
    }
    const auto n = get_integer(body, "logprobs", 0, kMaxTopLogprobs);
    if (field(body, "top_logprobs")) throw bad_field("top_logprobs", "top_logprobs belongs to /v1/chat/completions; completions take logprobs: N");
    return n ? int(*n) : -1;
}

}  // namespace

nlohmann::json parse_json_object(std::string_view body) {
    json j;
    try {
        j = json::parse(body.begin(), body.end());
    } catch (const json::exception& e) {
        throw ApiError(400, std::string("the body is not valid JSON: ") + e.what());
    }
    if (!j.is_object()) throw ApiError(400, std::string("the body must be a JSON object, got ") + j.type_name());
    return j;
}

ApiRequest parse_api_request(std::string_view body_text, Endpoint endpoint, const GenerationDefaults& defaults) {
    const json body = parse_json_object(body_text);
    ApiRequest out;
    out.endpoint = endpoint;
    if (const json* m = field(body, "model")) {
        if (!m->is_string()) throw bad_field("model", std::string("model must be a string, got ") + type_name_of(*m));
        out.model = m->get<std::string>();
    }
    refuse_unsupported(body, endpoint);
    out.n = int(get_integer(body, "n", 1, kMaxChoices).value_or(1));
    if (endpoint == Endpoint::ChatCompletions) {
        if (body.contains("prompt")) throw bad_field("prompt", "prompt belongs to /v1/completions; a chat request gives messages");
        parse_messages(body, out.request);
    } else {
        if (body.contains("messages")) throw bad_field("messages", "messages belongs to /v1/chat/completions; a completion request gives prompt");
        parse_prompt(body, out.request);
    }

    out.stream = get_bool(body, "stream").value_or(false);
    if (const json* so = field(body, "stream_options")) {
        if (!out.stream) throw bad_field("stream_options", "stream_options is only allowed with stream: true");
        if (!so->is_object()) throw bad_field("stream_options", "stream_options must be an object");
        out.include_usage = get_bool(*so, "include_usage").value_or(false);
    }

    // max_completion_tokens is the newer name (chat); both are accepted, the newer one wins.
    constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();
    auto max_tokens = get_integer(body, "max_tokens", 1, kMaxInt);
    if (endpoint == Endpoint::ChatCompletions)
        if (auto mct = get_integer(body, "max_completion_tokens", 1, kMaxInt)) max_tokens = mct;
    if (max_tokens) out.max_tokens = int(*max_tokens);

    SamplingParams& s = out.request.sampling;
    s.temperature = defaults.temperature.value_or(1.0f);
    s.top_p = defaults.top_p.value_or(1.0f);
    s.top_k = defaults.top_k.value_or(0);
    s.repetition_penalty = defaults.repetition_penalty.value_or(1.0f);
    if (auto t = get_number_in(body, "temperature", 0, 100)) s.temperature = float(*t);
    if (auto p = get_number_in(body, "top_p", 0, 1)) {
        if (*p <= 0) throw bad_field("top_p", "top_p must be greater than 0 (1 turns it off)");
        s.top_p = float(*p);
    }
    if (auto k = get_integer(body, "top_k", -1, 1 << 30)) s.top_k = *k < 0 ? 0 : int(*k);  // -1: off (vLLM)
    if (auto m = get_number_in(body, "min_p", 0, 1)) s.min_p = float(*m);
    if (auto p = get_number_in(body, "presence_penalty", -2, 2)) s.presence_penalty = float(*p);
    if (auto f = get_number_in(body, "frequency_penalty", -2, 2)) s.frequency_penalty = float(*f);
    if (auto r = get_number_in(body, "repetition_penalty", 0, 100)) {
        if (*r <= 0) throw bad_field("repetition_penalty", "repetition_penalty must be greater than 0 (1 turns it off)");
        s.repetition_penalty = float(*r);
    }
    if (auto seed = get_integer(body, "seed", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()))
        s.seed = uint64_t(*seed);
    s.logprobs = parse_logprobs(body, endpoint);
    parse_stop(body, out.request);
    out.request.stop.ignore_eos = get_bool(body, "ignore_eos").value_or(false);  // vLLM's extension, for benchmarks
    if (const json* u = field(body, "user"); u && !u->is_string()) throw bad_field("user", "user must be a string");
    return out;
}

}  // namespace folio::server
