#pragma once
// Helpers shared by the tokenizer tests: the fixture tokenizers, and a sentencepiece model edited on
// the wire (pieces appended) for cases the fixtures do not cover.
#include <memory>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/tokenizer/sentencepiece_tokenizer.h"
#include "engine/tokenizer/streaming_detokenizer.h"
#include "tests/support/fixtures.h"

namespace folio::test {

inline std::shared_ptr<const SentencePieceTokenizer> llama2_tokenizer() {
    static auto tok = SentencePieceTokenizer::load(fixture_path("tokenizers/llama2/tokenizer.model"));
    return tok;
}

inline std::shared_ptr<const SentencePieceTokenizer> tok512_tokenizer() {
    static auto tok = SentencePieceTokenizer::load(fixture_path("tokenizers/tok512/tokenizer.model"));
    return tok;
}

// A serialized ModelProto.pieces entry {piece, score 0, type}; appended to a model it becomes the
// next id. type: 3 CONTROL, 4 USER_DEFINED.
inline std::string proto_piece(const std::string& piece, int type) {
    std::string inner;
    inner.push_back(char(0x0A));  // field 1, length-delimited
    inner.push_back(char(piece.size()));
    inner += piece;
    inner += std::string("\x15\x00\x00\x00\x00", 5);  // field 2, fixed32 0.0f
    inner.push_back(char(0x18));                    // field 3, varint
    inner.push_back(char(type));
    std::string out;
    out.push_back(char(0x0A));  // ModelProto field 1 (pieces)
    out.push_back(char(inner.size()));
    return out + inner;
}

// The Llama-2 tokenizer with extra pieces appended (ids 32000, 32001, ...), written to `dir`.
inline std::string llama2_with_pieces(const std::string& dir, const std::vector<std::pair<std::string, int>>& pieces) {
    std::string model = read_file(fixture_path("tokenizers/llama2/tokenizer.model"));
    for (const auto& [p, type] : pieces) model += proto_piece(p, type);
    const std::string path = dir + "/tokenizer.model";
    write_file(path, model);
    return path;
}

// Streams `ids` through a StreamingDetokenizer; returns every push() output and finish() last.
inline std::vector<std::string> stream_pieces(const Tokenizer& tok, const std::vector<int>& ids) {
    StreamingDetokenizer d(tok);
    std::vector<std::string> out;
    for (int id : ids) out.push_back(d.push(id));
    out.push_back(d.finish());
    return out;
}

inline std::string stream_all(const Tokenizer& tok, const std::vector<int>& ids) {
    std::string s;
    for (const auto& p : stream_pieces(tok, ids)) s += p;
    return s;
}

}  // namespace folio::test
