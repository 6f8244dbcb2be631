// tokenizer.model (engine/tokenizer): the input is the file's bytes. Our own protobuf reader and the
// library's loader either refuse it with folio::Error or give a tokenizer whose every piece has its
// bytes and kind, and which encodes and decodes a short text; the library must never abort the
// process (our reader runs first to keep its malformed-input aborts away).
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/core/error.h"
#include "engine/tokenizer/sentencepiece_model_proto.h"
#include "engine/tokenizer/sentencepiece_tokenizer.h"
#include "engine/tokenizer/streaming_detokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    try {
        folio::read_sentencepiece_facts(bytes);
        folio::read_sentencepiece_facts(folio::sentencepiece_without_dummy_prefix(bytes));
    } catch (const folio::Error&) {
    }
    std::shared_ptr<const folio::SentencePieceTokenizer> tok;
    try {
        tok = folio::SentencePieceTokenizer::load_serialized(bytes, "fuzz/tokenizer.model");
    } catch (const folio::Error&) {
        return 0;
    }
    const int n = tok->vocab_size();
    if (n <= 0) __builtin_trap();
    for (int id = 0; id < n; ++id) {
        tok->token_bytes(id);
        tok->token_kind(id);
        tok->piece(id);
    }
    for (int id : tok->special_token_ids())
        if (id < 0 || id >= n) __builtin_trap();
    const std::vector<int> ids = tok->encode("Once upon a time, <s> 42 é ✓");
    tok->encode_without_dummy_prefix(" x");
    for (int id : ids)
        if (id < 0 || id >= n) __builtin_trap();
    // The streaming detokenizer's text is decode()'s, byte for byte.
    folio::StreamingDetokenizer detok(*tok);
    std::string streamed;
    for (int id : ids) streamed += detok.push(id);
    streamed += detok.finish();
    if (streamed != tok->decode(ids)) __builtin_trap();
    return 0;
}
