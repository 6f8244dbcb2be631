// A thinking model's reasoning apart from its answer, as the reply streams and once it is complete.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/text/reasoning_split.h"

namespace folio::text {
namespace {

// A thinking reply arriving token by token: nothing shows while "<think>" could still be coming,
// the reasoning grows without a partial "</think>", then the answer follows.
TEST(ReasoningSplit, StreamsTokenByToken) {
    const std::vector<std::string> tokens = {"<", "th", "ink", ">\n", "Two", " and two", ".\n</", "thi", "nk>", "\n\n", "4", "."};
    std::string raw;
    std::vector<ReasoningSplit> seen;
    for (const std::string& t : tokens) seen.push_back(split_reasoning(raw += t));
    EXPECT_TRUE(!seen[0].has_reasoning && seen[0].answer.empty());  // "<"
    EXPECT_TRUE(!seen[2].has_reasoning && seen[2].answer.empty());  // "<think"
    EXPECT_TRUE(seen[3].has_reasoning && seen[3].thinking);
    EXPECT_EQ(seen[5].reasoning, "Two and two");
    EXPECT_EQ(seen[6].reasoning, "Two and two.");  // "….\n</" held back
    EXPECT_EQ(seen[7].reasoning, "Two and two.");
    EXPECT_TRUE(seen[7].thinking);
    EXPECT_TRUE(seen[8].has_reasoning && !seen[8].thinking);
    EXPECT_EQ(seen[8].answer, "");
    EXPECT_EQ(seen[9].answer, "");  // newlines after </think> dropped
    EXPECT_EQ(seen[11].answer, "4.");
    EXPECT_EQ(seen[11].reasoning, "Two and two.");
}

TEST(ReasoningSplit, UnterminatedAndNoReasoning) {
    const ReasoningSplit cut = split_reasoning("<think>\nStill going</thi");
    EXPECT_TRUE(cut.has_reasoning && cut.thinking);
    EXPECT_EQ(cut.reasoning, "Still going");
    EXPECT_EQ(split_reasoning("<think>\nStill going</thi", /*complete=*/true).reasoning, "Still going</thi");
    const ReasoningSplit plain = split_reasoning("Hello <b>there</b>, <think> is a tag.");
    EXPECT_FALSE(plain.has_reasoning);
    EXPECT_EQ(plain.answer, "Hello <b>there</b>, <think> is a tag.");
    EXPECT_EQ(split_reasoning("<").answer, "");                        // could still be <think>
    EXPECT_EQ(split_reasoning("<", /*complete=*/true).answer, "<");    // it was not
    EXPECT_EQ(split_reasoning("<div>").answer, "<div>");
    // Thinking switched off (Qwen3 closes an empty block in the prompt; the reply has no tags).
    EXPECT_EQ(split_reasoning("Just the answer.").answer, "Just the answer.");
    // DeepSeek-R1 distills: the template opened the block, the reply starts inside it.
    const ReasoningSplit r1 = split_reasoning("Let me see.\n</think>\n\nParis.");
    EXPECT_TRUE(r1.has_reasoning && !r1.thinking);
    EXPECT_EQ(r1.reasoning, "Let me see.");
    EXPECT_EQ(r1.answer, "Paris.");
    // Leading whitespace before the tag, and UTF-8 on both sides.
    const ReasoningSplit u = split_reasoning(" \n<think>Überlegung…</think>\r\nAntwort ✓");
    EXPECT_EQ(u.reasoning, "Überlegung…");
    EXPECT_EQ(u.answer, "Antwort ✓");
}

TEST(ReasoningSplit, JoinGivesBackTheSplit) {
    const std::string raw = join_reasoning("A thought.", true, "An answer.");
    EXPECT_EQ(raw, "<think>\nA thought.\n</think>\n\nAn answer.");
    const ReasoningSplit s = split_reasoning(raw + " More.");
    EXPECT_EQ(s.reasoning, "A thought.");
    EXPECT_EQ(s.answer, "An answer. More.");
    EXPECT_EQ(join_reasoning({}, false, "Plain."), "Plain.");
    EXPECT_EQ(join_reasoning({}, true, "Off."), "<think>\n\n</think>\n\nOff.");  // thinking switched off
}

TEST(ReasoningSplit, ThoughtFor) {
    EXPECT_EQ(thought_for(0), "Thoughts");
    EXPECT_EQ(thought_for(300), "Thought for less than a second");
    EXPECT_EQ(thought_for(12400), "Thought for 12 s");
    EXPECT_EQ(thought_for(65000), "Thought for 1 min 5 s");
}

}  // namespace
}  // namespace folio::text
