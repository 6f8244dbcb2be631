#include "app/server/process_memory.h"

#include <malloc.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace folio::server {

double resident_bytes_from_status(std::string_view status_text) {
    const std::string_view key = "VmRSS:";
    size_t pos = 0;
    while (pos < status_text.size()) {
        const size_t end = std::min(status_text.find('\n', pos), status_text.size());
        const std::string_view line = status_text.substr(pos, end - pos);
        pos = end + 1;
        if (line.substr(0, key.size()) != key) continue;
        unsigned long long kib = 0;
        char unit[8] = {};
        const std::string rest(line.substr(key.size()));
        if (std::sscanf(rest.c_str(), "%llu %7s", &kib, unit) != 2 || std::string_view(unit) != "kB") return 0;
        return double(kib) * 1024.0;
    }
    return 0;
}

ProcessMemory read_process_memory() {
    ProcessMemory m;
    std::ifstream in("/proc/self/status");
    std::ostringstream text;
    text << in.rdbuf();
    m.resident_bytes = resident_bytes_from_status(text.str());
    // mallinfo2 sums every arena (the main one and those of other threads); hblkhd counts chunks
    // served by mmap directly, which are in use until freed.
    const struct mallinfo2 mi = mallinfo2();
    m.heap_in_use_bytes = double(mi.uordblks) + double(mi.hblkhd);
    m.heap_free_bytes = double(mi.fordblks);
    return m;
}

void render_process_memory(std::string& out, const ProcessMemory& m) {
    auto gauge = [&](const char* name, const char* help, double v) {
        char value[64];
        std::snprintf(value, sizeof value, "%.17g", v);
        out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " gauge\n" + name + " " + value + "\n";
    };
    gauge("process_resident_memory_bytes", "Resident memory size in bytes.", m.resident_bytes);
    gauge("folio:heap_in_use_bytes", "Bytes the C allocator has handed out and not yet taken back.", m.heap_in_use_bytes);
    gauge("folio:heap_free_bytes", "Free bytes the C allocator keeps in its arenas.", m.heap_free_bytes);
}

}  // namespace folio::server
