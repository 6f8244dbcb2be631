// Chat templates (engine/chat): parse and render hostile template source. The first byte picks one
// of a few conversations to render with. Any exception other than folio::Error, any crash, sanitizer
// report or unbounded allocation is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/chat/chat_template.h"

namespace {

nlohmann::ordered_json context(uint8_t pick) {
    static const char* kContexts[] = {
        R"({"messages": [], "add_generation_prompt": true})",
        R"({"messages": [{"role": "user", "content": "hi"}], "add_generation_prompt": false, "bos_token": "<s>", "eos_token": "</s>", "tools": null})",
        R"({"messages": [{"role": "system", "content": " s\u00a0"}, {"role": "user", "content": "u"}, {"role": "assistant", "content": null,
            "tool_calls": [{"function": {"name": "f", "arguments": {"a": [1, 2.5, "é"]}}}]}], "tools": [{"name": "t"}]})",
        R"({"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}, {"role": "user"}], "add_generation_prompt": true})",
    };
    return nlohmann::ordered_json::parse(kContexts[pick % 4]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string source(reinterpret_cast<const char*>(data) + 1, size - 1);
    folio::ChatTemplateOptions options;
    options.max_steps = 100000;
    options.max_output_bytes = 1 << 20;
    try {
        const folio::ChatTemplate t = folio::ChatTemplate::parse(source);
        t.render(context(data[0]), options);
    } catch (const folio::Error&) {
    }
    return 0;
}
