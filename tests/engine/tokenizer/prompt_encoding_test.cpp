// Prompt ids as transformers' LlamaTokenizer makes them: raw prompts with BOS/EOS per config, and
// rendered chat templates whose special-token strings are tokens (legacy=true and legacy=false).
#include <gtest/gtest.h>

#include "engine/tokenizer/byte_tokenizer.h"
#include "engine/tokenizer/prompt_encoding.h"
#include "tests/engine/tokenizer/tokenizer_test_util.h"

namespace folio::test {
namespace {

using Ids = std::vector<int32_t>;

class PromptEncoding : public ::testing::Test {
protected:
    const Tokenizer& tok = *llama2_tokenizer();
    int id(const std::string& piece) const {
        const int i = tok.piece_to_id(piece);
        EXPECT_GE(i, 0) << piece;
        return i;
    }
    static std::string sp(const std::string& s) { return "\xE2\x96\x81" + s; }  // '▁' + s
};

TEST_F(PromptEncoding, RawPromptBosAndEosPerConfig) {
    TokenizerConfig cfg;
    EXPECT_EQ(encode_prompt(tok, cfg, "Hello world", false), (Ids{15043, 3186}));
    EXPECT_EQ(encode_prompt(tok, cfg, "Hello world", true), (Ids{1, 15043, 3186}));
    cfg.add_eos_token = true;
    EXPECT_EQ(encode_prompt(tok, cfg, "Hello world", true), (Ids{1, 15043, 3186, 2}));
    cfg.add_bos_token = false;
    EXPECT_EQ(encode_prompt(tok, cfg, "Hello world", true), (Ids{15043, 3186, 2}));
    // Literal "<s>" in a raw prompt is text.
    cfg = TokenizerConfig{};
    EXPECT_EQ(encode_prompt(tok, cfg, "<s>", true), (Ids{1, 529, 29879, 29958}));
    // A null bos_token means no BOS even when add_bos_token is set.
    cfg.bos_token.clear();
    EXPECT_EQ(encode_prompt(tok, cfg, "Hello", true), (Ids{15043}));
    EXPECT_EQ(encode_prompt(tok, cfg, "", false), Ids{});
}

TEST_F(PromptEncoding, BosAndEosIdsFromTheConfigNames) {
    TokenizerConfig cfg;
    EXPECT_EQ(bos_token_id(tok, cfg), 1);
    EXPECT_EQ(eos_token_id(tok, cfg), 2);
    cfg.eos_token = "<unk>";  // a name in the vocabulary wins over the tokenizer's own EOS
    EXPECT_EQ(eos_token_id(tok, cfg), 0);
    cfg.eos_token = "<|not in vocab|>";
    EXPECT_EQ(eos_token_id(tok, cfg), 2);
    cfg.eos_token = "";
    EXPECT_EQ(eos_token_id(tok, cfg), -1);
}

TEST_F(PromptEncoding, Llama2ChatLegacy) {
    TokenizerConfig cfg;  // legacy=true, as Llama-2 and Mistral checkpoints ship
    // Each piece of text after a special token is encoded on its own and gets the dummy prefix '▁':
    // "[INST] hi [/INST]" -> ▁[ INST ] ▁hi ▁[ / INST ]
    EXPECT_EQ(encode_rendered_chat(tok, cfg, "<s>[INST] hi [/INST]"),
              (Ids{1, 518, 25580, 29962, 7251, 518, 29914, 25580, 29962}));
    // No BOS in the text: one is added; never a second one.
    EXPECT_EQ(encode_rendered_chat(tok, cfg, "[INST] hi [/INST]"), (Ids{1, 518, 25580, 29962, 7251, 518, 29914, 25580, 29962}));
    cfg.add_bos_token = false;
    EXPECT_EQ(encode_rendered_chat(tok, cfg, "[INST] hi [/INST]"), (Ids{518, 25580, 29962, 7251, 518, 29914, 25580, 29962}));
    cfg.add_bos_token = true;
    // A second turn: "</s><s>" are tokens, and " Hello" after [/INST] keeps its own space.
    EXPECT_EQ(encode_rendered_chat(tok, cfg, "<s>[INST] hi [/INST] Hello </s><s>[INST] bye [/INST]"),
              (Ids{1, 518, 25580, 29962, 7251, 518, 29914, 25580, 29962, 15043, 29871, 2, 1, 518, 25580, 29962,
                   id(sp("by")), id("e"), 518, 29914, 25580, 29962}));
    // "<unk>" is the unknown token; text right after a special token gets '▁' (legacy).
    EXPECT_EQ(encode_rendered_chat(tok, cfg, "<s>Hello<unk>world"), (Ids{1, 15043, 0, 3186}));
    // Same text as a raw prompt: specials are plain text.
    EXPECT_EQ(encode_prompt(tok, cfg, "<s>Hello", false), (Ids{529, 29879, 29958, 10994}));
}

TEST_F(PromptEncoding, Llama2ChatNonLegacy) {
    TokenizerConfig cfg;
    cfg.legacy = false;
    // Only the start of the whole text gets '▁'; text after a special token gets none, so "[" is
    // the bare piece, not "▁[" (518). The '▁' in front of the leading "<s>" is dropped.
    EXPECT_EQ(encode_rendered_chat(tok, cfg, "<s>[INST] hi [/INST]"),
              (Ids{1, id("["), 25580, 29962, 7251, 518, 29914, 25580, 29962}));
    EXPECT_NE(id("["), 518);
    // Text at the very start still gets its '▁'.
    EXPECT_EQ(encode_rendered_chat(tok, cfg, "[INST] hi [/INST]"), (Ids{1, 518, 25580, 29962, 7251, 518, 29914, 25580, 29962}));
    // After a special token, a leading space is kept as a space ("▁Hello"), no extra one is added.
    EXPECT_EQ(encode_rendered_chat(tok, cfg, "<s>Hello</s> Hello"), (Ids{1, id("Hello"), 2, 15043}));
    // For plain text, legacy or not gives the same ids.
    EXPECT_EQ(encode_prompt(tok, cfg, "Hello world", true), (Ids{1, 15043, 3186}));
    // add_prefix_space=false: not even the start gets one.
    cfg.add_prefix_space = false;
    EXPECT_EQ(encode_prompt(tok, cfg, "Hello world", false), (Ids{id("Hello"), 3186}));
}

TEST_F(PromptEncoding, UserDefinedAndAddedTokens) {
    TempDir dir;
    // ChatML markers as user-defined pieces of the vocabulary (ids 32000, 32001).
    auto chatml = SentencePieceTokenizer::load(
        llama2_with_pieces(dir.path(), {{"<|im_start|>", 4}, {"<|im_end|>", 4}}));
    ASSERT_EQ(chatml->vocab_size(), 32002);
    EXPECT_EQ(chatml->special_token_ids(), (std::vector<int>{0, 1, 2, 32000, 32001}));
    TokenizerConfig cfg;
    cfg.add_bos_token = false;
    const int nl = 13;
    EXPECT_EQ(encode_rendered_chat(*chatml, cfg, "<|im_start|>user\nhi<|im_end|>\n"),
              (Ids{32000, id(sp("user")), nl, id("hi"), 32001, 29871, nl}));
    // The streaming detokenizer prints them as their text (user-defined pieces are text).
    EXPECT_EQ(stream_all(*chatml, {32000, 1404}), chatml->decode({32000, 1404}));

    // Added tokens with lstrip/rstrip swallow the whitespace beside them.
    cfg.added_tokens = {AddedToken{32000, "<|im_start|>", true, true, true}};
    EXPECT_EQ(encode_rendered_chat(*chatml, cfg, "hi  <|im_start|>  user"),
              (Ids{id(sp("hi")), 32000, id(sp("user"))}));
    // An added token whose id is outside the vocabulary is ignored (its string stays text).
    cfg.added_tokens = {AddedToken{40000, "<|x|>", false, false, true}};
    EXPECT_EQ(encode_rendered_chat(*chatml, cfg, "<|x|>"), chatml->encode("<|x|>"));
}

TEST_F(PromptEncoding, ByteTokenizer) {
    ByteTokenizer bytes(512);
    TokenizerConfig cfg;
    EXPECT_EQ(encode_prompt(bytes, cfg, "hi", true), (Ids{1, 3 + 'h', 3 + 'i'}));
    EXPECT_EQ(encode_rendered_chat(bytes, cfg, "<s>hi</s>"), (Ids{1, 3 + 'h', 3 + 'i', 2}));
    EXPECT_EQ(encode_rendered_chat(bytes, cfg, "hi"), (Ids{1, 3 + 'h', 3 + 'i'}));
}

}  // namespace
}  // namespace folio::test
