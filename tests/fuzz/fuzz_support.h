#pragma once
// What the fuzz targets share: the fixtures folder (compiled in; FOLIO_FIXTURES wins) and the rule
// they all follow: hostile input may be refused with folio::Error, nothing else.
#include <cstdlib>
#include <string>

namespace folio::fuzz {

inline std::string fixture(const std::string& relative) {
    const char* env = std::getenv("FOLIO_FIXTURES");
    return std::string(env && *env ? env : FOLIO_FIXTURES_DIR) + "/" + relative;
}

}  // namespace folio::fuzz
