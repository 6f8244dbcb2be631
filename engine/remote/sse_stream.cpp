#include "engine/remote/sse_stream.h"

namespace folio::remote {

void SseStream::feed(const char* bytes, size_t size) {
    for (size_t i = 0; i < size; ++i) {
        const char c = bytes[i];
        if (c == '\n') {
            end_line();
        } else {
            line_ += c;
        }
    }
}

void SseStream::end_line() {
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    if (line_.empty()) {  // a blank line ends the event
        if (has_data_) on_data_(data_);
        data_.clear();
        has_data_ = false;
        return;
    }
    if (line_.rfind("data:", 0) == 0) {
        std::string value = line_.substr(5);
        if (!value.empty() && value[0] == ' ') value.erase(0, 1);
        if (has_data_) data_ += '\n';
        data_ += value;
        has_data_ = true;
    }  // comments (":") and other fields (event:, id:, retry:) carry nothing we use
    line_.clear();
}

}  // namespace folio::remote
