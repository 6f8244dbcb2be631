#pragma once
// The server process's own memory for /metrics: resident memory as the kernel counts it, and what the
// C allocator holds. Side by side they tell a leak from fragmentation: when resident memory creeps
// while the heap's in-use bytes stay flat, the growth is free memory the allocator keeps in its
// arenas, not objects someone forgot (the question the server soak left open).
#include <cstdint>
#include <string>
#include <string_view>

namespace folio::server {

struct ProcessMemory {
    double resident_bytes = 0;   // VmRSS
    double heap_in_use_bytes = 0;  // allocated and not yet freed, over all arenas (incl. mmapped chunks)
    double heap_free_bytes = 0;    // held by the allocator but free (fragmentation and arena slack)
};

// VmRSS in bytes from the text of /proc/<pid>/status; 0 when the line is missing or malformed.
double resident_bytes_from_status(std::string_view status_text);

// A fresh reading of this process (glibc's mallinfo2 for the heap).
ProcessMemory read_process_memory();

// Appends the readings in the Prometheus text format: process_resident_memory_bytes (the name
// Prometheus' client libraries use), folio:heap_in_use_bytes and folio:heap_free_bytes.
void render_process_memory(std::string& out, const ProcessMemory& m);

}  // namespace folio::server
