#pragma once
// Test fixtures live in tests/fixtures (FOLIO_FIXTURES can point elsewhere). A test that needs one fails
// loudly when it is missing; it never skips.
#include <string>

namespace folio::test {

// Absolute path of `relative` under the fixtures folder. Fails the test (fatal) and throws when the
// path does not exist, naming the folder that was searched and how to set it.
std::string fixture_path(const std::string& relative);

// Whole file as bytes.
std::string read_file(const std::string& path);

// A fresh empty directory under the system temp folder, removed by the destructor.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

void write_file(const std::string& path, const std::string& bytes);

}  // namespace folio::test
