// The encoder and decoder of a real tokenizer.model (stories260K's sentencepiece model; its
// tokenizer_config with two added tokens): the input's first byte picks what to do with the rest.
//   0: encode it as a raw prompt (encode_prompt) and as a rendered chat template
//      (encode_rendered_chat, where special-token strings are tokens) under each legacy setting;
//   1: read it as token ids and decode them, checking that the streaming detokenizer's text is
//      decode()'s byte for byte, also when it continues an earlier text.
// Every id produced must be inside the vocabulary; ids outside it must be refused with folio::Error.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/tokenizer/prompt_encoding.h"
#include "engine/tokenizer/streaming_detokenizer.h"
#include "engine/tokenizer/tokenizer_config.h"
#include "engine/tokenizer/tokenizer_loader.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

struct Setup {
    std::shared_ptr<const folio::Tokenizer> tok = folio::load_tokenizer(folio::fuzz::fixture("models/stories260K"));
    folio::TokenizerConfig config = folio::load_tokenizer_config(folio::fuzz::fixture("models/stories260K"));
    Setup() {
        config.added_tokens.push_back({.id = 3, .content = "<|im_start|>", .lstrip = true, .rstrip = false});
        config.added_tokens.push_back({.id = 4, .content = "<|im_end|>", .lstrip = false, .rstrip = true});
    }
};

void check_ids(const std::vector<int32_t>& ids, int vocab) {
    for (int32_t id : ids)
        if (id < 0 || id >= vocab) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const Setup s;
    if (size == 0) return 0;
    const int vocab = s.tok->vocab_size();
    const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    if (data[0] % 2 == 0) {
        folio::TokenizerConfig c = s.config;
        for (bool legacy : {true, false}) {
            c.legacy = legacy;
            c.add_prefix_space = data[0] & 2;
            check_ids(folio::encode_prompt(*s.tok, c, rest, true), vocab);
            check_ids(folio::encode_rendered_chat(*s.tok, c, rest), vocab);
        }
        return 0;
    }
    std::vector<int> ids;
    for (size_t i = 0; i + 2 <= rest.size(); i += 2) {
        uint16_t v;
        std::memcpy(&v, rest.data() + i, 2);
        ids.push_back(int(v % 1024) - 256);  // mostly inside the 512-piece vocabulary, some outside
    }
    bool outside = false;
    for (int id : ids) outside |= id < 0 || id >= vocab;
    std::string decoded;
    try {
        decoded = s.tok->decode(ids);
    } catch (const folio::Error&) {
        if (!outside) __builtin_trap();  // refused ids that were all valid
        return 0;
    }
    if (outside) __builtin_trap();  // accepted an id outside the vocabulary
    folio::StreamingDetokenizer detok(*s.tok);
    std::string streamed;
    for (int id : ids) streamed += detok.push(id);
    streamed += detok.finish();
    if (streamed != decoded) __builtin_trap();
    // Continuing a printed text (a forked sequence): when the earlier ids printed something and end
    // on a complete character, the new part is decode(all) minus decode(earlier).
    const size_t half = ids.size() / 2;
    const std::vector<int> first(ids.begin(), ids.begin() + long(half)), second(ids.begin() + long(half), ids.end());
    folio::StreamingDetokenizer earlier(*s.tok);
    for (int id : first) earlier.push(id);
    const std::string before = s.tok->decode(first);
    if (before.empty() || earlier.holding()) return 0;
    folio::StreamingDetokenizer more(*s.tok, /*continues_text=*/true);
    std::string tail;
    for (int id : second) tail += more.push(id);
    tail += more.finish();
    if (decoded.compare(0, before.size(), before) != 0 || decoded.substr(before.size()) != tail) __builtin_trap();
    return 0;
}
