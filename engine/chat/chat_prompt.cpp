#include "engine/chat/chat_prompt.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/chat/builtin_templates.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/tokenizer_config.h"

namespace folio {

namespace {

using json = nlohmann::ordered_json;

bool has_token(const ChatFamilyFacts& f, std::initializer_list<const char*> tokens) {
    for (const char* t : tokens) {
        if (f.eos_token == t) return true;
        if (std::find(f.special_tokens.begin(), f.special_tokens.end(), t) != f.special_tokens.end()) return true;
    }
    return false;
}

std::string describe(const ChatFamilyFacts& f) {
    std::string s = "model_type " + (f.model_type.empty() ? std::string("unknown") : "\"" + f.model_type + "\"");
    s += ", " + (f.vocab_size > 0 ? std::to_string(f.vocab_size) : std::string("unknown")) + " tokens";
    s += ", eos " + (f.eos_token.empty() ? std::string("unknown") : f.eos_token);
    return s;
}

json context_for(const ChatPromptSource& source, const json& messages, bool add_generation_prompt,
                 const json& template_kwargs) {
    json ctx = json::object();
    ctx["messages"] = messages;
    ctx["add_generation_prompt"] = add_generation_prompt;
    ctx["tools"] = nullptr;
    if (source.bos_token) ctx["bos_token"] = *source.bos_token;
    if (source.eos_token) ctx["eos_token"] = *source.eos_token;
    if (template_kwargs.is_null()) return ctx;
    if (!template_kwargs.is_object())
        throw Error("chat template variables must be a JSON object of name: value (got " + std::string(template_kwargs.type_name()) + ")");
    for (const auto& [name, value] : template_kwargs.items()) {
        // Python would refuse a keyword given twice; bos/eos come from tokenizer_config.json.
        for (const char* own : {"messages", "add_generation_prompt", "tools", "bos_token", "eos_token"})
            if (name == own)
                throw Error("the chat template variable '" + name + "' is set from the conversation and the model; it "
                            "cannot be given among the template's extra variables");
        ctx[name] = value;
    }
    return ctx;
}

ChatPrompt render_builtin(const BuiltinChoice& choice, const ChatPromptSource& source, const json& messages,
                          bool add_generation_prompt, const ChatTemplateOptions& options, const json& template_kwargs,
                          ChatPrompt prompt) {
    const BuiltinChatTemplate* builtin = find_builtin_chat_template(choice.name);
    if (!builtin) throw Error("no built-in chat template named '" + choice.name + "'");
    const ChatTemplate t = ChatTemplate::parse(std::string(builtin->source));
    prompt.text = t.render(context_for(source, messages, add_generation_prompt, template_kwargs), options);
    prompt.template_name = choice.name;
    return prompt;
}

}  // namespace

BuiltinChoice choose_builtin_template(const ChatFamilyFacts& f) {
    if (has_token(f, {"<|start_header_id|>", "<|eot_id|>"}))
        return {"llama3", "the vocabulary has Llama-3 header tokens (<|start_header_id|>/<|eot_id|>)"};
    if (has_token(f, {"<|im_start|>", "<|im_end|>"})) return {"chatml", "the vocabulary has ChatML tokens (<|im_start|>)"};
    if (has_token(f, {"<|user|>", "<|assistant|>"})) return {"zephyr", "the vocabulary has <|user|>/<|assistant|> tokens"};
    if (f.model_type == "mistral") return {"mistral", "model_type is \"mistral\""};
    if (has_token(f, {"[INST]"})) return {"mistral", "the vocabulary has an [INST] token"};
    if (f.model_type == "llama" && f.vocab_size == 32000 && f.eos_token == "</s>")
        return {"llama2", "a Llama model with the 32000-token Llama-2 vocabulary and eos </s>"};
    if (f.eos_token == "</s>")
        return {"llama2", "no rule matched (" + describe(f) + "); eos </s> suggests the sentencepiece Llama family", false};
    return {"chatml", "no rule matched (" + describe(f) + ")", false};
}

ChatPrompt render_chat_prompt(const ChatPromptSource& source, const json& messages, bool add_generation_prompt,
                              const ChatTemplateOptions& options, const json& template_kwargs) {
    if (!messages.is_array()) throw Error("chat messages must be a JSON array of {\"role\", \"content\"} objects");
    const json context = context_for(source, messages, add_generation_prompt, template_kwargs);  // checks them first
    ChatPrompt prompt;
    const BuiltinChoice choice = choose_builtin_template(source.facts);
    if (source.chat_template) {
        std::string failure;
        try {
            const ChatTemplate t = ChatTemplate::parse(*source.chat_template);
            prompt.text = t.render(context, options);
            prompt.template_name = "checkpoint";
            return prompt;
        } catch (const TemplateSyntaxError& e) {
            failure = "cannot be parsed (" + std::string(e.what()) + ")";
        } catch (const TemplateRenderError& e) {
            failure = "failed while rendering (" + std::string(e.what()) + ")";
        }
        prompt.warnings.push_back("the checkpoint's chat_template " + failure + "; using the built-in '" + choice.name +
                                  "' template instead (" + choice.reason + ")");
        return render_builtin(choice, source, messages, add_generation_prompt, options, template_kwargs, std::move(prompt));
    }
    prompt.warnings.push_back("the checkpoint has no chat_template; using the built-in '" + choice.name + "' template (" +
                              choice.reason + ")");
    return render_builtin(choice, source, messages, add_generation_prompt, options, template_kwargs, std::move(prompt));
}

ChatPrompt render_chat_prompt(const ModelConfig& config, const TokenizerConfig& tokenizer_config,
                              const std::vector<ChatMessage>& messages, bool add_generation_prompt) {
    return render_chat_prompt(config, tokenizer_config, nullptr, messages, add_generation_prompt);
}

ChatPromptSource chat_prompt_source(const ModelConfig& config, const TokenizerConfig& tokenizer_config,
                                    const Tokenizer* tokenizer) {
    ChatPromptSource source;
    source.chat_template = tokenizer_config.chat_template;
    // An empty token stands for "none" in TokenizerConfig; transformers does not pass a missing token.
    if (!tokenizer_config.bos_token.empty()) source.bos_token = tokenizer_config.bos_token;
    if (!tokenizer_config.eos_token.empty()) source.eos_token = tokenizer_config.eos_token;
    ChatFamilyFacts& f = source.facts;
    f.model_type = config.model_type;
    f.vocab_size = config.vocab_size;
    f.eos_token = tokenizer_config.eos_token;
    auto add = [&](const std::string& t) {
        if (!t.empty() && std::find(f.special_tokens.begin(), f.special_tokens.end(), t) == f.special_tokens.end())
            f.special_tokens.push_back(t);
    };
    add(tokenizer_config.bos_token);
    add(tokenizer_config.eos_token);
    add(tokenizer_config.unk_token);
    for (const AddedToken& t : tokenizer_config.added_tokens) add(t.content);
    if (tokenizer) {
        for (const char* t : {"<|start_header_id|>", "<|eot_id|>", "<|im_start|>", "<|im_end|>", "<|user|>",
                              "<|assistant|>", "[INST]"})
            if (tokenizer->piece_to_id(t) >= 0) add(t);
    }
    return source;
}

ChatPromptSource chat_prompt_source_from_folder(const std::string& model_dir) {
    namespace fs = std::filesystem;
    const fs::path dir(model_dir);
    if (!fs::is_directory(dir)) throw Error("model folder " + model_dir + " does not exist");
    if (!fs::exists(dir / "tokenizer_config.json"))
        throw Error(model_dir + " has no tokenizer_config.json (it holds the chat template and the special tokens)");
    const TokenizerConfig tokenizer_config = load_tokenizer_config(model_dir);
    // config.json only for the chooser's facts: read leniently (a template command needs no weights).
    ModelConfig config;
    const fs::path config_file = dir / "config.json";
    if (fs::exists(config_file)) {
        std::ifstream in(config_file, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(text.str());
        } catch (const nlohmann::json::exception& e) {
            throw Error(config_file.string() + " is not valid JSON (" + e.what() + ")");
        }
        if (j.is_object()) {
            if (auto it = j.find("model_type"); it != j.end() && it->is_string()) config.model_type = it->get<std::string>();
            if (auto it = j.find("vocab_size"); it != j.end() && it->is_number_integer()) config.vocab_size = it->get<int>();
        }
    }
    return chat_prompt_source(config, tokenizer_config, nullptr);
}

ChatPrompt render_chat_prompt(const ModelConfig& config, const TokenizerConfig& tokenizer_config,
                              const Tokenizer* tokenizer, const std::vector<ChatMessage>& messages,
                              bool add_generation_prompt, const json& template_kwargs) {
    const ChatPromptSource source = chat_prompt_source(config, tokenizer_config, tokenizer);
    ChatTemplateOptions options;
    options.now = chat_template_local_now();
    return render_chat_prompt(source, chat_messages_json(messages), add_generation_prompt, options, template_kwargs);
}

json chat_messages_json(const std::vector<ChatMessage>& messages) {
    json list = json::array();
    for (const ChatMessage& m : messages) {
        json o{{"role", m.role}, {"content", m.content}};
        if (!m.reasoning_content.empty()) o["reasoning_content"] = m.reasoning_content;
        list.push_back(std::move(o));
    }
    return list;
}

}  // namespace folio
