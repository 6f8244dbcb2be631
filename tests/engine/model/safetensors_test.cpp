// Every way a .safetensors file can be broken gives a precise error naming the file (and tensor),
// never a crash.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/model/safetensors.h"
#include "tests/engine/model/safetensors_writer.h"

namespace folio {
namespace {

using test::RawTensor;

std::string error_of(const std::string& path) {
    try {
        SafetensorsFile f(path);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(Safetensors, ReadsValidFile) {
    test::TempDir d;
    test::write_safetensors(d.file("a.safetensors"), {{"x", "F32", {2, 3}, test::f32_bytes({1, 2, 3, 4, 5, 6})},
                                                     {"y", "I32", {1}, std::string(4, '\x07')}});
    SafetensorsFile f(d.file("a.safetensors"));
    ASSERT_EQ(f.tensors().size(), 2u);
    const TensorInfo* x = f.find("x");
    ASSERT_NE(x, nullptr);
    EXPECT_EQ(x->dtype, DType::F32);
    EXPECT_EQ(x->shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(static_cast<const float*>(x->data)[5], 6.0f);
    EXPECT_EQ(f.find("y")->nbytes, 4u);
    EXPECT_EQ(f.find("z"), nullptr);
}

TEST(Safetensors, TruncatedBelowHeaderLength) {
    test::TempDir d;
    test::write_file(d.file("t.safetensors"), "abc");
    const std::string e = error_of(d.file("t.safetensors"));
    EXPECT_NE(e.find("t.safetensors"), std::string::npos) << e;
    EXPECT_NE(e.find("truncated"), std::string::npos) << e;
}

TEST(Safetensors, HeaderLengthPastEndOfFile) {
    test::TempDir d;
    test::write_raw_safetensors(d.file("h.safetensors"), "{}", "", 4096);
    const std::string e = error_of(d.file("h.safetensors"));
    EXPECT_NE(e.find("runs past the end"), std::string::npos) << e;
    test::write_raw_safetensors(d.file("huge.safetensors"), "{}", "", int64_t(1) << 40);
    EXPECT_NE(error_of(d.file("huge.safetensors")).find("exceeds"), std::string::npos);
}

TEST(Safetensors, HeaderNotJson) {
    test::TempDir d;
    test::write_raw_safetensors(d.file("j.safetensors"), "{\"x\": [1, 2", "");
    EXPECT_NE(error_of(d.file("j.safetensors")).find("not valid JSON"), std::string::npos);
    test::write_raw_safetensors(d.file("k.safetensors"), "[1, 2]", "");
    EXPECT_NE(error_of(d.file("k.safetensors")).find("not a JSON object"), std::string::npos);
}

TEST(Safetensors, DataTruncated) {
    test::TempDir d;
    test::write_raw_safetensors(d.file("d.safetensors"), R"({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})",
                                std::string(8, '\0'));
    const std::string e = error_of(d.file("d.safetensors"));
    EXPECT_NE(e.find("'w'"), std::string::npos) << e;
    EXPECT_NE(e.find("past the end"), std::string::npos) << e;
}

TEST(Safetensors, OverlappingOffsets) {
    test::TempDir d;
    test::write_raw_safetensors(d.file("o.safetensors"),
                                R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
                                    "b": {"dtype": "F32", "shape": [4], "data_offsets": [8, 24]}})",
                                std::string(24, '\0'));
    const std::string e = error_of(d.file("o.safetensors"));
    EXPECT_NE(e.find("overlap"), std::string::npos) << e;
    EXPECT_NE(e.find("'a'"), std::string::npos) << e;
    EXPECT_NE(e.find("'b'"), std::string::npos) << e;
}

TEST(Safetensors, ShapeTimesDtypeMustMatchLength) {
    test::TempDir d;
    test::write_raw_safetensors(d.file("s.safetensors"), R"({"w": {"dtype": "F16", "shape": [3, 3], "data_offsets": [0, 16]}})",
                                std::string(16, '\0'));
    const std::string e = error_of(d.file("s.safetensors"));
    EXPECT_NE(e.find("needs 18 bytes"), std::string::npos) << e;
}

TEST(Safetensors, Fp8DtypesAreOneByteEach) {
    test::TempDir d;
    test::write_safetensors(d.file("f.safetensors"), {{"w", "F8_E4M3", {2, 3}, std::string("\x38\x40\xb8\x00\x7e\x01", 6)},
                                                     {"s", "F32", {}, test::f32_bytes({0.5f})},
                                                     {"v", "F8_E5M2", {4}, std::string(4, '\x3c')}});
    SafetensorsFile f(d.file("f.safetensors"));
    EXPECT_EQ(f.find("w")->dtype, DType::F8_E4M3);
    EXPECT_EQ(f.find("w")->nbytes, 6u);
    EXPECT_EQ(f.find("v")->dtype, DType::F8_E5M2);
    EXPECT_TRUE(f.find("s")->shape.empty());  // a 0-dim tensor (AutoFP8's per-tensor scales)
    EXPECT_EQ(f.find("s")->numel(), 1);
    // shape x 1 byte must match the offsets, as for every dtype
    test::write_raw_safetensors(d.file("b.safetensors"), R"({"w": {"dtype": "F8_E4M3", "shape": [3, 3], "data_offsets": [0, 18]}})",
                                std::string(18, '\0'));
    const std::string e = error_of(d.file("b.safetensors"));
    EXPECT_NE(e.find("[3, 3] x F8_E4M3 needs 9 bytes but data_offsets span 18"), std::string::npos) << e;
}

TEST(Safetensors, UnsupportedDtypeAndMalformedEntries) {
    test::TempDir d;
    test::write_raw_safetensors(d.file("u.safetensors"), R"({"w": {"dtype": "F64", "shape": [1], "data_offsets": [0, 8]}})",
                                std::string(8, '\0'));
    EXPECT_NE(error_of(d.file("u.safetensors")).find("unsupported dtype F64"), std::string::npos);
    test::write_raw_safetensors(d.file("n.safetensors"), R"({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})",
                                std::string(4, '\0'));
    EXPECT_NE(error_of(d.file("n.safetensors")).find("non-negative"), std::string::npos);
    test::write_raw_safetensors(d.file("r.safetensors"), R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}})",
                                std::string(4, '\0'));
    EXPECT_NE(error_of(d.file("r.safetensors")).find("reversed"), std::string::npos);
    test::write_raw_safetensors(d.file("m.safetensors"), R"({"w": {"dtype": "F32", "shape": [1]}})", std::string(4, '\0'));
    EXPECT_NE(error_of(d.file("m.safetensors")).find("data_offsets"), std::string::npos);
    test::write_raw_safetensors(d.file("x.safetensors"), R"({"w": 5})", "");
    EXPECT_NE(error_of(d.file("x.safetensors")).find("not an object"), std::string::npos);
}

TEST(Safetensors, MissingFileAndDirectory) {
    test::TempDir d;
    EXPECT_NE(error_of(d.file("none.safetensors")).find("cannot open"), std::string::npos);
    EXPECT_NE(error_of(d.path()).find("not a regular file"), std::string::npos);
}

// Random corruption of a real file never crashes: either it loads or it throws folio::Error.
TEST(Safetensors, RandomCorruptionNeverCrashes) {
    test::TempDir d;
    const std::string good = test::read_file(test::fixture_path("models/stories260K/model.safetensors"));
    uint64_t state = 12345;
    const auto rnd = [&] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return state >> 33;
    };
    int errors = 0;
    for (int trial = 0; trial < 200; ++trial) {
        std::string bad = good;
        const uint64_t header_len = uint64_t(uint8_t(good[0])) | uint64_t(uint8_t(good[1])) << 8;
        for (int k = 0; k < 3; ++k) bad[8 + rnd() % header_len] = char(rnd() % 256);  // damage the header
        if (trial % 4 == 0) bad.resize(rnd() % bad.size());                          // and sometimes truncate
        test::write_file(d.file("c.safetensors"), bad);
        try {
            SafetensorsFile f(d.file("c.safetensors"));
            for (const auto& [name, t] : f.tensors()) ASSERT_LE(t.nbytes, bad.size());
        } catch (const Error&) {
            ++errors;
        }
    }
    EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace folio
