#pragma once
// tokenizer.json's "pre_tokenizer": cuts each piece of normalized text into pre-tokens, which the
// model encodes one by one. Pieces stream through a chain of stages (no list of every pre-token of a
// long text is ever built). Supported: Split (regex or string, every behavior, invert), ByteLevel,
// Metaspace, Digits, Sequence.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/tokenizer/split_pattern.h"

namespace folio {

class PieceSink {
public:
    // `at_start`: the piece begins at offset 0 of the original input (Metaspace's "first" scheme).
    virtual void piece(std::string_view text, bool at_start) = 0;

protected:
    ~PieceSink() = default;
};

class PreTokenizer {
public:
    virtual ~PreTokenizer() = default;
    // Emits the pre-tokens of `text` (not empty) in order; empty pre-tokens are never emitted.
    virtual void split(std::string_view text, bool at_start, PieceSink& out) const = 0;
};

// How a Split keeps what its pattern matched (the Rust library's SplitDelimiterBehavior).
enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

std::unique_ptr<PreTokenizer> make_split(std::unique_ptr<SplitPattern> pattern, SplitBehavior behavior, bool invert);

// ByteLevel: a space in front when add_prefix_space and the piece does not start with one, then
// GPT-2's regex when use_regex. `map_to_alphabet`: emit the pieces spelled in the byte-level
// alphabet, for later pre-tokenizers of a Sequence to see; a ByteLevel that comes last emits raw
// bytes, which a byte-level BpeModel takes as they are.
std::unique_ptr<PreTokenizer> make_byte_level(bool add_prefix_space, bool use_regex, bool map_to_alphabet);

enum class PrependScheme { Always, First, Never };
// Metaspace: ' ' becomes `replacement`, which is prepended as the scheme says unless the piece
// starts with it; with `split`, the piece is cut before each replacement character.
std::unique_ptr<PreTokenizer> make_metaspace(std::string replacement, PrependScheme scheme, bool split);

// Digits: every numeric character alone (individual_digits) or runs of them, isolated.
std::unique_ptr<PreTokenizer> make_digits(bool individual_digits);

// Sequence: each stage cuts the pieces of the one before.
std::unique_ptr<PreTokenizer> make_sequence(std::vector<std::unique_ptr<PreTokenizer>> stages);

}  // namespace folio
