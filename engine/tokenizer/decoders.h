#pragma once
// tokenizer.json's "decoder": token strings back to text, as the Hugging Face tokenizers library's
// decode_chain does (each decoder maps the list of token strings to a new list; the text is their
// concatenation). Supported: ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace, Sequence.
//
// Each decoder also makes a streaming stage (decoder_stages.h) that does the same work token by
// token; a test checks that streaming and decode_chain agree.
#include <memory>
#include <string>
#include <vector>

#include "engine/tokenizer/pre_tokenizers.h"
#include "engine/tokenizer/split_pattern.h"

namespace folio {

class DecoderStage;

class Decoder {
public:
    virtual ~Decoder() = default;
    virtual void decode_chain(std::vector<std::string>& tokens) const = 0;
    // A stage fed chunks of tokens. `input_whole`: every chunk it will be given is a whole token.
    // `continues`: the tokens follow earlier ones (the stream does not start a text).
    virtual std::unique_ptr<DecoderStage> make_stage(bool input_whole, bool continues) const = 0;
    // Whether the stage's output chunks are always whole tokens, given its input's.
    virtual bool output_whole(bool input_whole) const = 0;
};

std::unique_ptr<Decoder> make_byte_level_decoder();
std::unique_ptr<Decoder> make_metaspace_decoder(std::string replacement, PrependScheme scheme);
std::unique_ptr<Decoder> make_byte_fallback_decoder();
std::unique_ptr<Decoder> make_fuse_decoder();
// Strip: up to `start` leading and `stop` trailing characters equal to `content` go from each token.
std::unique_ptr<Decoder> make_strip_decoder(char32_t content, size_t start, size_t stop);
std::unique_ptr<Decoder> make_replace_decoder(std::unique_ptr<SplitPattern> pattern, std::string content);

// The byte of a byte-fallback piece "<0xAB>" (as Rust's u8::from_str_radix reads the two digits),
// or -1 for any other token.
int byte_fallback_value(const std::string& token);

}  // namespace folio
