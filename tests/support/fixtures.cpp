#include "tests/support/fixtures.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace folio::test {

namespace fs = std::filesystem;

std::string fixture_path(const std::string& relative) {
    const char* env = std::getenv("FOLIO_FIXTURES");
    const std::string root = env && *env ? env : FOLIO_FIXTURES_DEFAULT;
    const fs::path p = fs::path(root) / relative;
    if (!fs::exists(p)) {
        ADD_FAILURE() << "missing test fixture " << p << " (FOLIO_FIXTURES=" << root
                      << "); configure with -DFOLIO_FIXTURES=/path/to/fixtures (default tests/fixtures)";
        throw std::runtime_error("missing fixture " + p.string());
    }
    return fs::absolute(p).string();
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + path);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

TempDir::TempDir() {
    std::random_device rd;
    for (int attempt = 0; attempt < 100; ++attempt) {
        const fs::path p = fs::temp_directory_path() / ("folio-test-" + std::to_string(rd()));
        if (fs::create_directory(p)) {
            path_ = p.string();
            return;
        }
    }
    throw std::runtime_error("cannot create a temporary directory");
}

TempDir::~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

}  // namespace folio::test
