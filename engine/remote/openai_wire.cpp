#include "engine/remote/openai_wire.h"

#include <nlohmann/json.hpp>

#include "engine/core/error.h"

namespace folio::remote {

namespace {

using nlohmann::json;

void put_sampling(json& j, const Request& r) {
    const SamplingParams& s = r.sampling;
    j["temperature"] = s.temperature;
    j["top_p"] = s.top_p;
    if (s.top_k > 0) j["top_k"] = s.top_k;
    if (s.min_p > 0) j["min_p"] = s.min_p;
    if (s.repetition_penalty != 1.0f) j["repetition_penalty"] = s.repetition_penalty;
    if (s.presence_penalty != 0.0f) j["presence_penalty"] = s.presence_penalty;
    if (s.frequency_penalty != 0.0f) j["frequency_penalty"] = s.frequency_penalty;
    if (s.seed) j["seed"] = *s.seed;
    j["max_tokens"] = r.stop.max_tokens;
    if (!r.stop.stop_strings.empty()) j["stop"] = r.stop.stop_strings;
    if (r.stop.ignore_eos) j["ignore_eos"] = true;  // vLLM's and folio-server's extension
}

}  // namespace

WireRequest to_wire(const Request& r, const std::string& model) {
    if (r.continue_final_message)
        throw Error("continuing a reply (continue_final_message) is not part of the OpenAI API; a remote engine cannot do it");
    if (!r.stop.stop_token_ids.empty()) throw Error("stop token ids are not part of the OpenAI API; use stop strings with a remote engine");
    if (r.n < 1) throw Error("a request needs at least one reply (n >= 1)");
    // Not carried over the wire yet: refused rather than answered without them.
    if (r.sampling.logprobs >= 0) throw Error("logprobs are not supported by the remote engine yet");
    const int prompts = int(!r.prompt_ids.empty()) + int(!r.messages.empty()) + int(r.prompt_text.has_value());
    if (prompts != 1) throw Error("a request needs exactly one prompt: ids, chat messages or text");
    json j;
    j["model"] = model;
    j["stream"] = true;
    j["stream_options"] = {{"include_usage", true}};
    put_sampling(j, r);
    if (r.n > 1) j["n"] = r.n;
    WireRequest w;
    if (!r.messages.empty()) {
        json messages = json::array();
        for (const ChatMessage& m : r.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
        j["messages"] = std::move(messages);
        w.path = "/chat/completions";
    } else {
        if (!r.prompt_ids.empty()) {
            j["prompt"] = r.prompt_ids;
        } else {
            j["prompt"] = *r.prompt_text;
        }
        w.path = "/completions";
    }
    w.body = j.dump(-1, ' ', false, json::error_handler_t::replace);
    return w;
}

WireChunk parse_chunk(const std::string& payload) {
    const json j = json::parse(payload, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw Error("the server sent a stream event that is not a JSON object: '" + payload.substr(0, 200) + "'");
    WireChunk c;
    if (j.contains("error")) {
        c.error = error_message_of(payload);
        return c;
    }
    if (auto it = j.find("choices"); it != j.end() && it->is_array()) for (const json& choice : *it) {
        if (!choice.is_object()) continue;
        WireChoice& w = c.choices.emplace_back();
        if (auto i = choice.find("index"); i != choice.end() && i->is_number_integer()) w.index = i->get<int>();
        const json* text = nullptr;
        if (auto d = choice.find("delta"); d != choice.end() && d->is_object()) {
            if (auto t = d->find("content"); t != d->end() && t->is_string()) text = &*t;
        } else if (auto t = choice.find("text"); t != choice.end() && t->is_string()) {
            text = &*t;
        }
        if (text) {
            w.has_text = true;
            w.text = text->get<std::string>();
        }
        if (auto f = choice.find("finish_reason"); f != choice.end() && f->is_string()) {
            w.finish_name = f->get<std::string>();
            w.finish = w.finish_name == "length" ? FinishReason::Length
                     : w.finish_name == "stop"   ? FinishReason::Eos
                                                 : FinishReason::Error;
        }
    }
    if (auto u = j.find("usage"); u != j.end() && u->is_object()) {
        c.has_usage = true;
        c.prompt_tokens = u->value("prompt_tokens", 0);
        c.completion_tokens = u->value("completion_tokens", 0);
        if (auto d = u->find("prompt_tokens_details"); d != u->end() && d->is_object())
            c.cached_prompt_tokens = d->value("cached_tokens", 0);
    }
    return c;
}

std::string error_message_of(const std::string& body) {
    const json j = json::parse(body, nullptr, false);
    if (!j.is_discarded() && j.is_object()) {
        if (auto e = j.find("error"); e != j.end()) {
            if (e->is_object() && e->contains("message") && (*e)["message"].is_string()) return (*e)["message"].get<std::string>();
            if (e->is_string()) return e->get<std::string>();
        }
    }
    std::string s = body.substr(0, 300);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s.empty() ? "(no message)" : s;
}

}  // namespace folio::remote
