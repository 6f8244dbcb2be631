// for_each_schedule on a real GPU: the hardware decides the order, so each body runs once.
#include "support/simt_test_util.h"

namespace folio::test {

void for_each_schedule(const std::function<void(const char* name)>& body) { body("device"); }

}  // namespace folio::test
