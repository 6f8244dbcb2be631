// Repository names as people type them, and as the cache and the Hub's URLs spell them.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/hub/repo_ref.h"

namespace folio::hub {
namespace {

TEST(RepoRef, ParsesNameAndRevision) {
    const RepoRef a = parse_repo_ref("Qwen/Qwen2.5-7B-Instruct-AWQ");
    EXPECT_EQ(a.repo_id, "Qwen/Qwen2.5-7B-Instruct-AWQ");
    EXPECT_EQ(a.revision, "main");
    const RepoRef b = parse_repo_ref("org/name@refs/pr/3");
    EXPECT_EQ(b.repo_id, "org/name");
    EXPECT_EQ(b.revision, "refs/pr/3");
    EXPECT_EQ(parse_repo_ref("gpt2").repo_id, "gpt2");  // legacy repositories have no namespace
}

TEST(RepoRef, RefusesWhatTheHubRefuses) {
    auto message = [](const std::string& text) {
        try {
            parse_repo_ref(text);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    EXPECT_NE(message("").find("ORG/NAME"), std::string::npos);
    EXPECT_NE(message("a/b/c").find("one '/'"), std::string::npos);
    EXPECT_NE(message("org/na me").find("' ' is not allowed"), std::string::npos);
    EXPECT_NE(message("org/na--me").find("'--'"), std::string::npos);
    EXPECT_NE(message("org/-name").find("start or end"), std::string::npos);
    EXPECT_NE(message("org/name@").find("nothing after '@'"), std::string::npos);
    EXPECT_NE(message("org/name@../x").find("'..'"), std::string::npos);
}

TEST(RepoRef, CacheFolderNames) {
    EXPECT_EQ(repo_folder_name("meta-llama/Llama-3.1-8B-Instruct"), "models--meta-llama--Llama-3.1-8B-Instruct");
    EXPECT_EQ(repo_id_from_folder("models--meta-llama--Llama-3.1-8B-Instruct"), "meta-llama/Llama-3.1-8B-Instruct");
    EXPECT_EQ(repo_id_from_folder("models--gpt2"), "gpt2");
    EXPECT_EQ(repo_id_from_folder("datasets--org--x"), "");
    EXPECT_EQ(repo_id_from_folder(".locks"), "");
}

TEST(RepoRef, CommitHashesAndQuoting) {
    EXPECT_TRUE(is_commit_hash("0123456789abcdef0123456789abcdef01234567"));
    EXPECT_FALSE(is_commit_hash("main"));
    EXPECT_FALSE(is_commit_hash("0123456789ABCDEF0123456789abcdef01234567"));
    EXPECT_EQ(url_quote("refs/pr/1", ""), "refs%2Fpr%2F1");
    EXPECT_EQ(url_quote("sub dir/a+b.json", "/"), "sub%20dir/a%2Bb.json");
}

}  // namespace
}  // namespace folio::hub
