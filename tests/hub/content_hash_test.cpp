// The two hashes the Hub names files by, against values git and sha256sum print.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/hub/content_hash.h"
#include "tests/support/fixtures.h"

namespace folio::hub {
namespace {

std::string digest(ContentHash::Kind kind, const std::string& s) {
    ContentHash h(kind, s.size());
    h.update(s.data(), s.size());
    return h.hex_digest();
}

TEST(ContentHash, KnownValues) {
    EXPECT_EQ(digest(ContentHash::Kind::Sha256, ""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(digest(ContentHash::Kind::Sha256, "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    // `git hash-object` of an empty file and of "hello world\n".
    EXPECT_EQ(digest(ContentHash::Kind::GitBlobSha1, ""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
    EXPECT_EQ(digest(ContentHash::Kind::GitBlobSha1, "hello world\n"), "3b18e512dba79e4c8300dd08aeb37f8e728b8dad");
}

TEST(ContentHash, FilePrefixThenStreamEqualsWhole) {
    test::TempDir dir;
    const std::string data = "0123456789abcdefghij";
    test::write_file(dir.file("f"), data.substr(0, 7));
    ContentHash h(ContentHash::Kind::Sha256, data.size());
    h.update_from_file(dir.file("f"), 7);
    h.update(data.data() + 7, data.size() - 7);
    EXPECT_EQ(h.hex_digest(), digest(ContentHash::Kind::Sha256, data));
    EXPECT_THROW(hash_file(ContentHash::Kind::Sha256, dir.file("f"), 8), Error);  // shorter than asked
}

}  // namespace
}  // namespace folio::hub
