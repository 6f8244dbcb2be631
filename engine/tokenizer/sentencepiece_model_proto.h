#pragma once
// The few facts of a sentencepiece ModelProto that its public C++ API does not expose, read straight
// from the protobuf wire format (Debian ships no sentencepiece_model.pb.h): the normalizer flags that
// decide the leading-space rule, which pieces are user-defined, and whether decoding is rewritten by a
// denormalizer.
#include <string>
#include <string_view>
#include <vector>

namespace folio {

struct SentencePieceModelFacts {
    // NormalizerSpec, with protobuf's defaults when a field is absent.
    bool add_dummy_prefix = true;
    bool remove_extra_whitespaces = true;
    bool escape_whitespaces = true;
    std::vector<int> user_defined_ids;  // pieces of type USER_DEFINED, in id order
    // denormalizer_spec has rules (a non-empty precompiled_charsmap): the library then rewrites the
    // whole decoded text, which no per-token stream can reproduce.
    bool has_denormalizer = false;
};

// Throws folio::Error (without a file name; the caller adds it) when the bytes are not a well-formed
// protobuf message.
SentencePieceModelFacts read_sentencepiece_facts(std::string_view serialized_model);

// The same model with add_dummy_prefix turned off, as transformers does for legacy=false: a second
// normalizer_spec is appended, which protobuf merges into the first.
std::string sentencepiece_without_dummy_prefix(std::string serialized_model);

}  // namespace folio
