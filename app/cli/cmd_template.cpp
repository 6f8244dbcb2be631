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
#include "app/cli/command_line.h"
#include "app/cli/commands.h"
#include "engine/chat/chat_prompt.h"
#include "engine/chat/chat_template.h"
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

std::string usage() {
    return "usage: folio-cli template --model DIR --messages FILE.json [--add-generation-prompt]\n"
           "\n"
           "Prints the prompt the model's chat template builds for the messages, byte for byte, as\n"
           "transformers' apply_chat_template does. DIR needs only tokenizer_config.json; without a\n"
           "chat_template the built-in template of the model's family is used (a note says which).\n"
           "\n"
           "  --messages FILE.json     a JSON array of {\"role\": ..., \"content\": ...} (or {\"messages\": [...]})\n"
           "  --add-generation-prompt  end with the opening of the assistant's turn\n"
           "  --backend auto|cpu|cuda  accepted for symmetry with the other commands (nothing runs on it)\n"
           "\n"
           "exit status: 0 rendered, 1 the template raised or another error, 2 bad usage or a chat_template\n"
           "that cannot be parsed (its line and column on stderr)\n";
}

int run(int argc, char** argv, int first) {
    const Args args(argc, argv, first, {"model", "messages", "backend"}, {"add-generation-prompt"});
    args.expect_no_positional();
    args.get_choice("backend", {"auto", "cpu", "cuda"}, "auto");
    const std::string dir = args.require("model");
    const json messages = read_messages(args.require("messages"));
    const bool add_generation_prompt = args.has("add-generation-prompt");
    const ChatPromptSource source = chat_prompt_source_from_folder(dir);

    ChatTemplateOptions options;  // strftime_now() sees 2024-07-26, as the reference renders do
    if (source.chat_template) {
        std::optional<ChatTemplate> t;
        try {
            t = ChatTemplate::parse(*source.chat_template);
        } catch (const TemplateSyntaxError& e) {
            std::fprintf(stderr, "folio-cli template: %s: chat_template: %s\n", dir.c_str(), e.what());
            return 2;
        }
        json ctx = json::object();
        ctx["messages"] = messages;
        ctx["add_generation_prompt"] = add_generation_prompt;
        ctx["tools"] = nullptr;
        if (source.bos_token) ctx["bos_token"] = *source.bos_token;
        if (source.eos_token) ctx["eos_token"] = *source.eos_token;
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

}  // namespace

const Command template_command = {"template", "the prompt a chat template renders for messages", usage, run};

}  // namespace folio::cli
