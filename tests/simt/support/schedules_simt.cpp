// for_each_schedule in the SIMT harness: forward, reverse and shuffled thread orders.
#include "simt_launch.h"
#include "support/simt_test_util.h"

namespace folio::test {

void for_each_schedule(const std::function<void(const char* name)>& body) {
    auto& o = simt::options();
    const auto saved = o;
    const std::pair<simt::Schedule, const char*> schedules[] = {
        {simt::Schedule::Forward, "forward"}, {simt::Schedule::Reverse, "reverse"}, {simt::Schedule::Shuffled, "shuffled"}};
    for (const auto& [s, name] : schedules) {
        o.schedule = s;
        o.seed = 12345;
        SCOPED_TRACE(std::string("schedule ") + name);
        body(name);
    }
    o = saved;
}

}  // namespace folio::test
