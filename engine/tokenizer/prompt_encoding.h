#pragma once
// Text to prompt ids the way transformers' LlamaTokenizer does it, for the two kinds of prompt the
// engine sees: raw text (special-token strings are plain text) and the output of a chat template
// (special-token strings are the tokens themselves). A tokenizer that owns its special tokens
// (tokenizer.json) is used as transformers' fast tokenizer: raw text is tokenizer(text,
// add_special_tokens=add_special) (added-token strings are their tokens there too), a rendered chat
// is tokenizer(rendered, add_special_tokens=False).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/tokenizer_config.h"

namespace folio {

// The id of the config's BOS/EOS token ("<s>", "</s>"): the vocabulary entry or added token of
// that name, else the tokenizer's own; -1 when the config sets it to null or the vocabulary has none.
int bos_token_id(const Tokenizer& tokenizer, const TokenizerConfig& config);
int eos_token_id(const Tokenizer& tokenizer, const TokenizerConfig& config);

// Raw text. Literal "<s>" is plain text. With add_special, BOS and EOS are added as
// config.add_bos_token / add_eos_token say.
std::vector<int32_t> encode_prompt(const Tokenizer& tokenizer, const TokenizerConfig& config, std::string_view text,
                                   bool add_special);

// A rendered chat template. Literal special-token strings map to their ids: the tokenizer's control,
// unknown and user-defined pieces, config.added_tokens (with their lstrip/rstrip), and the config's
// bos/eos/unk strings. The text between them is encoded as LlamaTokenizer does: legacy=true (the
// default) gives each piece of text sentencepiece's dummy prefix '▁', legacy=false only the start of
// the whole text (when add_prefix_space). BOS is prepended when config.add_bos_token unless the
// rendered text already starts with it; EOS is never added (the generation prompt follows).
std::vector<int32_t> encode_rendered_chat(const Tokenizer& tokenizer, const TokenizerConfig& config,
                                          std::string_view rendered);

}  // namespace folio
