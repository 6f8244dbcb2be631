// How a model folder is named: a hub cache snapshot after its repository, anything else after itself.
#include <gtest/gtest.h>

#include "engine/model/model.h"

namespace folio {
namespace {

TEST(ModelDisplayName, HubSnapshotsAreNamedAfterTheirRepository) {
    EXPECT_EQ(model_display_name("/c/hub/models--TheBloke--Mistral-7B-Instruct-v0.2-AWQ/snapshots/0123abcd"),
              "TheBloke/Mistral-7B-Instruct-v0.2-AWQ");
    EXPECT_EQ(model_display_name("/c/hub/models--gpt2/snapshots/0123abcd/"), "gpt2");
    EXPECT_EQ(model_display_name("/home/ada/models/Llama-2-7b-chat-hf"), "Llama-2-7b-chat-hf");
    EXPECT_EQ(model_display_name("/home/ada/models/Llama-2-7b-chat-hf/"), "Llama-2-7b-chat-hf");
    EXPECT_EQ(model_display_name("/x/snapshots/abc"), "abc");  // not in a models-- folder
}

}  // namespace
}  // namespace folio
