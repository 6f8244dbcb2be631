#pragma once
// The human-readable reports of folio-bench, built printf style line by line. The reports align their
// figures in one column after an indented label; row() keeps that layout in one place.
#include <algorithm>
#include <cstdio>
#include <string>

namespace folio::bench {

template <class... Args>
std::string printf_string(const char* fmt, Args... args) {
    const int n = std::snprintf(nullptr, 0, fmt, args...);
    std::string s(size_t(std::max(n, 0)), '\0');
    std::snprintf(s.data(), s.size() + 1, fmt, args...);
    return s;
}

struct ReportText {
    explicit ReportText(int width = 20) : label_width(width) {}

    int label_width;  // the figures start after two spaces and this many columns of label
    std::string text;

    template <class... Args>
    void line(const char* fmt, Args... args) {
        text += printf_string(fmt, args...);
    }
    // "  <label, padded>" then the formatted figures, then a newline.
    template <class... Args>
    void row(const char* label, const char* fmt, Args... args) {
        line("  %-*s", label_width, label);
        line(fmt, args...);
        text += '\n';
    }
};

}  // namespace folio::bench
