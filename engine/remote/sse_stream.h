#pragma once
// Server-sent events as OpenAI-compatible servers stream them: bytes in (any split), each event's
// data payload out ("data: {...}" lines, joined with '\n' when an event has several). Comments
// (": ..."), other fields and CR LF line ends are handled; "[DONE]" is passed on like any payload.
#include <functional>
#include <string>

namespace folio::remote {

class SseStream {
public:
    explicit SseStream(std::function<void(const std::string& data)> on_data) : on_data_(std::move(on_data)) {}
    void feed(const char* bytes, size_t size);
    // Bytes received that did not yet make a whole event (a connection cut mid-event).
    bool has_partial_event() const { return !line_.empty() || !data_.empty(); }

private:
    void end_line();
    std::function<void(const std::string&)> on_data_;
    std::string line_;
    std::string data_;
    bool has_data_ = false;
};

}  // namespace folio::remote
