#pragma once
// Streaming versions of the decoders: each stage takes chunks of token text and passes chunks on. A
// chunk either starts a token or continues the one before (after Fuse or ByteLevel, everything is
// one token that keeps growing). A stage that needs a whole token (ByteLevel's fallback to raw
// bytes, ByteFallback, Replace) holds the chunks of one until the next token starts, unless its input
// is known to come in whole tokens. Chunks are always valid UTF-8.
#include <memory>
#include <string>
#include <vector>

#include "engine/tokenizer/pre_tokenizers.h"
#include "engine/tokenizer/split_pattern.h"
#include "engine/tokenizer/unicode_text.h"

namespace folio {

struct Chunk {
    std::string text;
    bool starts_token = true;
};

class DecoderStage {
public:
    virtual ~DecoderStage() = default;
    virtual void push(Chunk chunk, std::vector<Chunk>& out) = 0;
    virtual void finish(std::vector<Chunk>& out) = 0;
    virtual bool holding() const = 0;
};

std::unique_ptr<DecoderStage> make_byte_level_stage(bool input_whole, bool continues);
std::unique_ptr<DecoderStage> make_metaspace_stage(std::string replacement, PrependScheme scheme, bool continues);
std::unique_ptr<DecoderStage> make_byte_fallback_stage(bool input_whole);
std::unique_ptr<DecoderStage> make_fuse_stage(bool continues);
std::unique_ptr<DecoderStage> make_strip_stage(char32_t content, size_t start, size_t stop, bool continues);
// `pattern` must outlive the stage.
std::unique_ptr<DecoderStage> make_replace_stage(const SplitPattern& pattern, std::string content, bool input_whole);
// No decoder at all: the tokens joined by one space.
std::unique_ptr<DecoderStage> make_space_join_stage(bool continues);

// transformers' clean_up_tokenization_spaces on a stream of text: " ." becomes "." and the like.
// Holds back only text that a later chunk could still change.
class CleanUpSpacesStream {
public:
    std::string push(std::string_view text);
    std::string finish();
    bool holding() const { return !held_.empty(); }

private:
    std::string held_;
};

// The same on a whole text.
std::string clean_up_tokenization_spaces(std::string_view text);

}  // namespace folio
