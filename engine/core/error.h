#pragma once
// Errors at module edges: an exception whose message a user can act on (what failed, which file or
// tensor, what would fix it). The hot path uses status values instead.
#include <stdexcept>
#include <string>

namespace folio {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace folio
