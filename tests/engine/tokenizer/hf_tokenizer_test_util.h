#pragma once
// The tokenizer.json fixtures, each loaded once per test binary (a load parses several MB of JSON).
#include <memory>
#include <string>
#include <vector>

#include "engine/tokenizer/streaming_detokenizer.h"
#include "engine/tokenizer/tokenizer_json.h"
#include "tests/support/fixtures.h"

namespace folio::test {

inline std::shared_ptr<const HfTokenizer> llama3_tokenizer() {
    static auto tok = load_tokenizer_json(fixture_path("tokenizers/llama3_1/tokenizer.json"));
    return tok;
}

inline std::shared_ptr<const HfTokenizer> qwen3_tokenizer() {
    static auto tok = load_tokenizer_json(fixture_path("tokenizers/qwen3/tokenizer.json"));
    return tok;
}

// A sentencepiece BPE converted to tokenizer.json (Mistral 7B's vocabulary; see its NOTICE).
inline std::shared_ptr<const HfTokenizer> mistral7b_tokenizer() {
    static auto tok = load_tokenizer_json(fixture_path("tokenizers/mistral7b/tokenizer.json"));
    return tok;
}

// Every push() of a StreamingDetokenizer over `ids`, and finish() last.
inline std::vector<std::string> hf_stream_pieces(const Tokenizer& tok, const std::vector<int>& ids,
                                                 bool continues_text = false) {
    StreamingDetokenizer d(tok, continues_text);
    std::vector<std::string> out;
    for (int id : ids) out.push_back(d.push(id));
    out.push_back(d.finish());
    return out;
}

}  // namespace folio::test
