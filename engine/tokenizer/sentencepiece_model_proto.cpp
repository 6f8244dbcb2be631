#include "engine/tokenizer/sentencepiece_model_proto.h"

#include <cstdint>

#include "engine/core/error.h"

namespace folio {
namespace {

// Field numbers of sentencepiece_model.proto.
constexpr uint32_t kModelPieces = 1, kModelNormalizerSpec = 3, kModelDenormalizerSpec = 5;
constexpr uint32_t kPieceText = 1, kPieceType = 3;
constexpr uint64_t kTypeUserDefined = 4;
constexpr uint32_t kNormPrecompiledCharsmap = 2, kNormAddDummyPrefix = 3, kNormRemoveExtraWhitespaces = 4, kNormEscapeWhitespaces = 5;

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// A forward-only reader of one protobuf message.
class WireReader {
public:
    explicit WireReader(std::string_view bytes) : bytes_(bytes) {}

    bool done() const { return pos_ >= bytes_.size(); }

    uint64_t varint() {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos_ >= bytes_.size()) throw Error("truncated varint");
            const auto b = uint8_t(bytes_[pos_++]);
            v |= uint64_t(b & 0x7F) << shift;
            if (!(b & 0x80)) return v;
        }
        throw Error("varint longer than 10 bytes");
    }

    // Reads a field key; returns the field number and sets `wire`.
    uint32_t key(uint32_t& wire) {
        const uint64_t k = varint();
        wire = uint32_t(k & 7);
        if ((k >> 3) == 0 || (k >> 3) > 0x1FFFFFFF) throw Error("invalid field number");
        return uint32_t(k >> 3);
    }

    std::string_view bytes() {
        const uint64_t n = varint();
        if (n > bytes_.size() - pos_) throw Error("length-delimited field runs past the end");
        const std::string_view v = bytes_.substr(pos_, size_t(n));
        pos_ += size_t(n);
        return v;
    }

    void skip(uint32_t wire) {
        switch (wire) {
            case kVarint: varint(); return;
            case kFixed64: advance(8); return;
            case kLengthDelimited: bytes(); return;
            case kFixed32: advance(4); return;
            default: throw Error("unsupported wire type " + std::to_string(wire));
        }
    }

private:
    void advance(size_t n) {
        if (n > bytes_.size() - pos_) throw Error("fixed-size field runs past the end");
        pos_ += n;
    }

    std::string_view bytes_;
    size_t pos_ = 0;
};

void read_normalizer(std::string_view msg, SentencePieceModelFacts& facts) {
    WireReader r(msg);
    while (!r.done()) {
        uint32_t wire = 0;
        const uint32_t field = r.key(wire);
        if (wire == kVarint && field == kNormAddDummyPrefix) facts.add_dummy_prefix = r.varint() != 0;
        else if (wire == kVarint && field == kNormRemoveExtraWhitespaces) facts.remove_extra_whitespaces = r.varint() != 0;
        else if (wire == kVarint && field == kNormEscapeWhitespaces) facts.escape_whitespaces = r.varint() != 0;
        else r.skip(wire);
    }
}

// A denormalizer_spec (a NormalizerSpec) rewrites decoded text when its charsmap is non-empty; a
// later occurrence of the bytes field replaces an earlier one, as protobuf merges.
void read_denormalizer(std::string_view msg, SentencePieceModelFacts& facts) {
    WireReader r(msg);
    while (!r.done()) {
        uint32_t wire = 0;
        const uint32_t field = r.key(wire);
        if (wire == kLengthDelimited && field == kNormPrecompiledCharsmap) facts.has_denormalizer = !r.bytes().empty();
        else r.skip(wire);
    }
}

// Whether a piece is USER_DEFINED. A piece's text must be non-empty and free of NUL bytes: the
// library builds a trie of NUL-terminated keys and aborts the process on an empty one (found by the
// sentencepiece_model fuzz target).
bool piece_is_user_defined(std::string_view msg, int index) {
    WireReader r(msg);
    uint64_t type = 1;  // NORMAL
    std::string_view text;
    while (!r.done()) {
        uint32_t wire = 0;
        const uint32_t field = r.key(wire);
        if (wire == kVarint && field == kPieceType) type = r.varint();
        else if (wire == kLengthDelimited && field == kPieceText) text = r.bytes();  // the last one wins
        else r.skip(wire);
    }
    if (text.empty() || text.find('\0') != std::string_view::npos)
        throw Error("piece " + std::to_string(index) + (text.empty() ? " is empty" : " holds a NUL byte"));
    return type == kTypeUserDefined;
}

}  // namespace

SentencePieceModelFacts read_sentencepiece_facts(std::string_view serialized_model) {
    SentencePieceModelFacts facts;
    WireReader r(serialized_model);
    int piece_index = 0;
    while (!r.done()) {
        uint32_t wire = 0;
        const uint32_t field = r.key(wire);
        if (field == kModelPieces && wire == kLengthDelimited) {
            if (piece_is_user_defined(r.bytes(), piece_index)) facts.user_defined_ids.push_back(piece_index);
            ++piece_index;
        } else if (field == kModelNormalizerSpec && wire == kLengthDelimited) {
            read_normalizer(r.bytes(), facts);  // repeated occurrences merge: later fields win
        } else if (field == kModelDenormalizerSpec && wire == kLengthDelimited) {
            read_denormalizer(r.bytes(), facts);
        } else {
            r.skip(wire);
        }
    }
    return facts;
}

std::string sentencepiece_without_dummy_prefix(std::string serialized_model) {
    // normalizer_spec (field 3, length-delimited, 2 bytes) { add_dummy_prefix (field 3, varint) = 0 }
    const char patch[] = {char((kModelNormalizerSpec << 3) | kLengthDelimited), 2,
                          char((kNormAddDummyPrefix << 3) | kVarint), 0};
    serialized_model.append(patch, sizeof patch);
    return serialized_model;
}

}  // namespace folio
