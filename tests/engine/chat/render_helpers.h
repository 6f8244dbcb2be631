#pragma once
// Small helpers for the template tests: render a template string with a JSON context, or get the
// error it raises.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "engine/chat/chat_template.h"

namespace folio::test {

using json = nlohmann::ordered_json;

inline json messages_context() {
    return json::parse(R"({
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "  Hi there\u00a0 "},
            {"role": "assistant", "content": "Hello!",
             "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Zürich", "unit": "C"}}}]}
        ],
        "add_generation_prompt": true,
        "bos_token": "<s>",
        "eos_token": "</s>",
        "tools": null
    })");
}

inline std::string render(const std::string& source, const json& ctx = json::object()) {
    return ChatTemplate::parse(source).render(ctx);
}

// The detail of the TemplateRenderError rendering raises ("TypeError: ..."), or a failure.
inline std::string render_error(const std::string& source, const json& ctx = json::object()) {
    try {
        const std::string out = render(source, ctx);
        ADD_FAILURE() << "expected a render error, got output " << testing::PrintToString(out);
    } catch (const TemplateRenderError& e) {
        return e.detail();
    }
    return {};
}

}  // namespace folio::test
