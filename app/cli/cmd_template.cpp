// folio-cli template --model DIR --messages FILE.json [--add-generation-prompt]
//
// Prints the prompt the model's chat template builds for FILE.json's messages, byte for byte (nothing
// added), as transformers' apply_chat_template would. DIR needs only tokenizer_config.json. Exit codes:
// 0 rendered; 1 the template raised (its own message on stderr) or another error; 2 the template
// cannot be parsed (line and column on stderr). Without a chat_template the built-in family template
// is chosen from what the folder offers (see engine/chat/chat_prompt.h) and a note goes to stderr.
#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/cli/cli_args.h"
#include "app/cli/commands.h"
#include "engine/chat/chat_prompt.h"
#include "engine/chat/chat_template.h"
#include "engine/chat/chat_template_config.h"
#include "engine/core/error.h"

namespace folio::cli {

namespace {

using json = nlohmann::ordered_json;

json read_messages(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read messages file " + path);
    std::ostringstream ss;
    ss << in.rdbuf();
    json j;
    try {
        j = json::parse(ss.str());
    } catch (const json::parse_error& e) {
        throw Error(path + " is not valid JSON: " + e.what());
    }
    if (j.is_object() && j.contains("messages")) j = j["messages"];  // {"messages": [...]} is accepted too
    if (!j.is_array()) throw Error(path + " must hold a JSON array of messages ({\"role\": ..., \"content\": ...})");
    return j;
}

void print_exact(const std::string& text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
}

}  // namespace

int run_template(int argc, char** argv, int first) {
    const Args args(argc, argv, first, {"model", "messages", "backend"}, {"add-generation-prompt"});
    if (!args.positional().empty()) throw Error("unexpected argument '" + args.positional()[0] + "'");
    const std::string dir = args.require("model");
    const json messages = read_messages(args.require("messages"));
    const bool add_generation_prompt = args.has("add-generation-prompt");
    const ChatTemplateConfig cfg = read_chat_template_config(dir);

    ChatTemplateOptions options;  // strftime_now() sees 2024-07-26, as the reference renders do
    if (cfg.chat_template) {
        std::optional<ChatTemplate> t;
        try {
            t = ChatTemplate::parse(*cfg.chat_template);
        } catch (const TemplateSyntaxError& e) {
            std::fprintf(stderr, "folio-cli template: %s/%s: chat_template: %s\n", dir.c_str(),
                         cfg.chat_template_origin.c_str(), e.what());
            return 2;
        }
        json ctx = json::object();
        ctx["messages"] = messages;
        ctx["add_generation_prompt"] = add_generation_prompt;
        ctx["tools"] = nullptr;
        if (cfg.bos_token) ctx["bos_token"] = *cfg.bos_token;
        if (cfg.eos_token) ctx["eos_token"] = *cfg.eos_token;
        std::string text;
        try {
            text = t->render(ctx, options);
        } catch (const TemplateRaisedError& e) {
            std::fprintf(stderr, "%s\n", e.what());
            return 1;
        }
        print_exact(text);
        return 0;
    }

    ChatPromptSource source;
    source.bos_token = cfg.bos_token;
    source.eos_token = cfg.eos_token;
    source.facts.model_type = cfg.model_type;
    source.facts.vocab_size = cfg.vocab_size;
    source.facts.eos_token = cfg.eos_token.value_or("");
    source.facts.special_tokens = cfg.special_tokens;
    ChatPrompt prompt;
    try {
        prompt = render_chat_prompt(source, messages, add_generation_prompt, options);
    } catch (const TemplateRaisedError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    for (const auto& w : prompt.warnings) std::fprintf(stderr, "folio-cli template: note: %s\n", w.c_str());
    print_exact(prompt.text);
    return 0;
}

}  // namespace folio::cli
