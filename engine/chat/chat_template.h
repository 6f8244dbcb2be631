#pragma once
// A chat template (the Jinja `chat_template` of a Hugging Face checkpoint), rendered exactly as Python
// Jinja2 3.1 renders it inside transformers' apply_chat_template: trim_blocks, lstrip_blocks,
// loop controls, raise_exception(), strftime_now(), transformers' tojson, lenient undefined values,
// the template's final newline dropped. No third-party Jinja library: engine/jinja/README.md lists what is
// supported (all of what chat templates use, and more) and the few known differences.
//
//   ChatTemplate t = ChatTemplate::parse(source);              // TemplateSyntaxError
//   std::string prompt = t.render({{"messages", messages},     // TemplateRaisedError,
//                                  {"add_generation_prompt", true},  // TemplateRenderError
//                                  {"bos_token", "<s>"}});
//
// A parsed template is immutable; render() may run on several threads at once.
#include <cstdint>
#include <ctime>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/jinja/template_error.h"

namespace folio {

namespace jinja {
struct TemplateAst;
}

// 2024-07-26 00:00:00, the date transformers' reference renders use for strftime_now().
std::tm chat_template_reference_date();
// The current local date and time (for real prompts: "Today Date: ...").
std::tm chat_template_local_now();

struct ChatTemplateOptions {
    std::tm now = chat_template_reference_date();  // what strftime_now() formats
    // Limits that stop a runaway or hostile template with a TemplateRenderError naming the limit.
    size_t max_output_bytes = size_t(64) << 20;  // the prompt, and any string built on the way
    uint64_t max_steps = 20'000'000;             // evaluations, statements, loop iterations, elements
    int max_depth = 500;                         // nested evaluation (macro recursion, recursive loops)
};

class ChatTemplate {
public:
    // Throws TemplateSyntaxError (line and column 1-based).
    static ChatTemplate parse(std::string source);

    // `context`: the template's variables (messages, add_generation_prompt, bos_token, eos_token,
    // tools, ...), a JSON object whose key order is kept. Throws TemplateRaisedError (the template
    // called raise_exception: what() is its message), TemplateRenderError (any other runtime error,
    // with its position) or folio::Error (the context is not an object).
    std::string render(const nlohmann::ordered_json& context) const;
    std::string render(const nlohmann::ordered_json& context, const ChatTemplateOptions& options) const;

    const std::string& source() const { return source_; }

private:
    std::string source_;
    std::shared_ptr<const jinja::TemplateAst> ast_;
};

}  // namespace folio
