// tokenizer.json encoding and decoding (engine/tokenizer/hf_tokenizer.h) on two real files, Llama-3.1
// (byte-level BPE, no normalizer) and Qwen3 (NFC), read without tokenizer_config.json so that decode is
// the exact inverse. The input's first byte picks the tokenizer and whether the text may hold special
// tokens; the rest is the text. Every id must be inside the vocabulary; valid UTF-8 must round trip
// (Qwen3: to its NFC form); the streaming detokenizer's text must be decode()'s, byte for byte.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/tokenizer/normalizers.h"
#include "engine/tokenizer/streaming_detokenizer.h"
#include "engine/tokenizer/tokenizer_json.h"
#include "engine/tokenizer/unicode_text.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

std::shared_ptr<const folio::HfTokenizer> without_config(const std::string& name) {
    const std::string path = folio::fuzz::fixture("tokenizers/" + name + "/tokenizer.json");
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return folio::parse_tokenizer_json(ss.str(), std::nullopt, path);
}

void require(bool ok) {
    if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const auto llama = without_config("llama3_1");
    static const auto qwen = without_config("qwen3");
    static const auto nfc = folio::make_unicode_normalizer(folio::UnicodeForm::NFC);
    if (size == 0) return 0;
    const bool use_qwen = data[0] & 1, special = data[0] & 2;
    const folio::HfTokenizer& tok = use_qwen ? *qwen : *llama;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    const std::vector<int> ids = special ? tok.encode_with_special_tokens(text) : tok.encode(text);
    for (int id : ids) require(id >= 0 && id < tok.vocab_size());
    const std::string decoded = tok.decode_with_special_tokens(ids);
    if (!special && folio::unicode::first_invalid_byte(text) == text.size()) {
        std::string want = text;
        if (use_qwen) nfc->normalize(want);
        require(decoded == want);
    }
    folio::StreamingDetokenizer stream(tok);
    std::string streamed;
    for (int id : ids) streamed += stream.push(id);
    streamed += stream.finish();
    require(streamed == tok.decode(ids));
    return 0;
}
