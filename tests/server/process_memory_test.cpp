// The server's own memory readings for /metrics: the VmRSS parser on real and broken status text, and
// a live reading that sees a large allocation in the heap's in-use bytes and then sees it go.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "app/server/process_memory.h"

namespace folio::server {
namespace {

TEST(ProcessMemory, ResidentBytesFromStatusText) {
    const std::string status = "Name:\tfolio-server\nVmPeak:\t  900000 kB\nVmRSS:\t  234412 kB\nRssAnon:\t 1 kB\n";
    EXPECT_EQ(resident_bytes_from_status(status), 234412.0 * 1024);
    EXPECT_EQ(resident_bytes_from_status("VmRSS:\t12 kB"), 12.0 * 1024);  // last line without newline
    EXPECT_EQ(resident_bytes_from_status("Name:\tx\n"), 0);                // kernel threads have none
    EXPECT_EQ(resident_bytes_from_status("VmRSS:\tmany kB\n"), 0);
    EXPECT_EQ(resident_bytes_from_status("VmRSS:\t12 MB\n"), 0);           // not the unit the kernel writes
    EXPECT_EQ(resident_bytes_from_status(""), 0);
}

TEST(ProcessMemory, LiveReadingSeesAnAllocationComeAndGo) {
    const ProcessMemory before = read_process_memory();
    EXPECT_GT(before.resident_bytes, 1 << 20);
    constexpr size_t kBytes = 64u << 20;
    auto block = std::make_unique<char[]>(kBytes);
    std::memset(block.get(), 1, kBytes);  // touched, so it is resident
    const ProcessMemory during = read_process_memory();
    EXPECT_GE(during.heap_in_use_bytes - before.heap_in_use_bytes, double(kBytes));
    EXPECT_GE(during.resident_bytes - before.resident_bytes, double(kBytes) * 0.9);
    block.reset();
    const ProcessMemory after = read_process_memory();
    EXPECT_LT(after.heap_in_use_bytes, during.heap_in_use_bytes - double(kBytes) * 0.9);
}

TEST(ProcessMemory, RendersThreeGauges) {
    std::string out;
    render_process_memory(out, {.resident_bytes = 1024, .heap_in_use_bytes = 512, .heap_free_bytes = 0.5});
    EXPECT_NE(out.find("# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes 1024\n"), std::string::npos) << out;
    EXPECT_NE(out.find("\nfolio:heap_in_use_bytes 512\n"), std::string::npos) << out;
    EXPECT_NE(out.find("\nfolio:heap_free_bytes 0.5\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace folio::server
