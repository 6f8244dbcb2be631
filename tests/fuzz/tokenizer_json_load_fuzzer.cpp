// tokenizer.json loading (engine/tokenizer/tokenizer_json.h): the input is a tokenizer.json text,
// optionally followed by a NUL byte and a tokenizer_config.json text. parse_tokenizer_json either
// refuses it with folio::Error or gives a tokenizer that encodes a mixed text with every id inside
// its vocabulary, decodes those ids, and streams the same text decode() gives. As in Hugging Face's
// library, encode may refuse a text with folio::Error when the model names an unk_token that is not
// in its model's vocabulary (an added token of that name does not count there) and the text has a
// character outside it; only then, and the message says so.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/core/error.h"
#include "engine/tokenizer/streaming_detokenizer.h"
#include "engine/tokenizer/tokenizer_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* text = reinterpret_cast<const char*>(data);
    const char* nul = std::find(text, text + size, '\0');
    const std::string file(text, nul);
    const std::optional<std::string> config = nul == text + size ? std::nullopt : std::optional<std::string>(std::string(nul + 1, text + size));
    std::shared_ptr<const folio::HfTokenizer> tok;
    try {
        tok = folio::parse_tokenizer_json(file, config, "fuzz/tokenizer.json", "fuzz/tokenizer_config.json");
    } catch (const folio::Error&) {
        return 0;
    }
    const int vocab = tok->vocab_size();
    for (const char* sample : {"Hello world, 123 <s> caf\xC3\xA9 \xF0\x9F\xA6\x99\n\tab", "", " ", "\xFF\xFE"}) {
        for (bool special : {false, true}) {
            std::vector<int> ids;
            try {
                ids = special ? tok->encode_with_special_tokens(sample) : tok->encode(sample);
            } catch (const folio::Error& e) {
                const std::string what = e.what();
                if (what.find("the unk_token") == std::string::npos || what.find("is not in the vocabulary") == std::string::npos)
                    __builtin_trap();
                continue;
            }
            for (int id : ids)
                if (id < 0 || id >= vocab) __builtin_trap();
            tok->decode_with_special_tokens(ids);
            folio::StreamingDetokenizer stream(*tok);
            std::string streamed;
            for (int id : ids) streamed += stream.push(id);
            streamed += stream.finish();
            if (streamed != tok->decode(ids)) __builtin_trap();
        }
    }
    return 0;
}
