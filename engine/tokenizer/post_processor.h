#pragma once
// What tokenizer.json's "post_processor" adds around one encoded sequence when special tokens are
// asked for (transformers' add_special_tokens=True). TemplateProcessing's "single" template,
// BertProcessing and RobertaProcessing reduce to ids before and ids after the sequence; ByteLevel
// changes only offsets, which Folio does not compute, so it adds nothing; a Sequence applies its
// processors in order.
#include <vector>

namespace folio {

struct PostProcessor {
    std::vector<int> before;  // ids in front of the sequence
    std::vector<int> after;   // ids after it

    void apply(std::vector<int>& ids) const {
        if (!before.empty()) ids.insert(ids.begin(), before.begin(), before.end());
        ids.insert(ids.end(), after.begin(), after.end());
    }
    // A processor that runs after this one: its ids go around everything so far.
    void then(const PostProcessor& next) {
        before.insert(before.begin(), next.before.begin(), next.before.end());
        after.insert(after.end(), next.after.begin(), next.after.end());
    }
};

}  // namespace folio
