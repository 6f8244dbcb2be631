#pragma once
// Decides, token by token, whether a sequence goes on, and which of its text may be shown now.
// It owns the sequence's streaming detokenizer, so that the text of an end token is never decoded:
//  - EOS (the model's ids, unless ignore_eos) or one of stop.stop_token_ids: finished (Eos); the
//    token's own text is not emitted, what the text before it still held back is;
//  - a stop string, matched across token boundaries: finished (StopString); the text before it is
//    emitted, the stop string and anything after it are not. Text that could still be the beginning
//    of a stop string is held back until it is known not to be;
//  - max_tokens generated: finished (Length); everything held back is emitted.
// Checked in that order for each token.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/sampling/finish_reason.h"
#include "engine/sampling/sampling_params.h"
#include "engine/tokenizer/streaming_detokenizer.h"

namespace folio {

struct StopDecision {
    std::string text;  // may be shown now (may be empty)
    bool finished = false;
    FinishReason reason = FinishReason::Length;  // when finished: Eos, StopString or Length
};

class StopChecker {
public:
    // `tokenizer` must outlive the checker. `eos_ids`: the model's end ids (Model::stop_token_ids()).
    // `continues_text`: the tokens continue text printed before (a fork mid-generation), so the
    // tokenizer's leading-space rule does not apply to the first one.
    StopChecker(const Tokenizer& tokenizer, StopConditions stop, std::vector<int32_t> eos_ids,
                bool continues_text = false);

    // One generated token. Throws folio::Error after the sequence has finished, or for an id outside
    // the vocabulary.
    StopDecision push(int32_t token);

    // Everything still held back, for a sequence that ends for a reason the checker does not see
    // (cancelled, context full): text held as a possible stop string start, and an unfinished
    // character as U+FFFD. Finishes the checker.
    std::string finish();

    bool finished() const { return finished_; }
    int generated() const { return generated_; }

private:
    bool is_end_token(int32_t token) const;
    // Longest suffix of `text` that is a proper prefix of some stop string.
    size_t held_suffix_length(const std::string& text) const;

    StreamingDetokenizer detok_;
    StopConditions stop_;
    std::vector<int32_t> eos_ids_;
    std::string held_;  // emitted by the detokenizer, not yet released
    size_t longest_stop_ = 0;
    int generated_ = 0;
    bool finished_ = false;
};

}  // namespace folio
