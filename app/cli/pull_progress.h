#pragma once
// How `folio-cli pull` shows a download on stderr: bars redrawn in place on a terminal (one per file
// in flight and a total: bytes, speed, time left), plain lines otherwise (logs, CI, pipes).
#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "engine/hub/pull.h"

namespace folio::cli {

// "1m08s", "2h05m", "12s"; "?" for a negative (unknown) time.
std::string duration_text(double seconds);

class PullProgress : public hub::PullObserver {
public:
    // `terminal`: draw bars with ANSI escapes (stderr is a TTY).
    PullProgress(FILE* out, bool terminal);
    void on_status(const hub::PullStatus& s) override;
    void on_notice(const std::string& n) override;
    // Leaves the last frame on screen (a terminal) before the command prints its result.
    void finish();

private:
    void draw(const hub::PullStatus& s);
    void clear_frame();
    void plain(const hub::PullStatus& s);

    FILE* out_;
    bool terminal_;
    int width_ = 80;
    int drawn_lines_ = 0;
    bool announced_ = false;
    hub::PullStatus last_;
    std::map<std::string, hub::FileState> states_;
    std::chrono::steady_clock::time_point last_plain_{};
    int last_plain_percent_ = -1;
};

}  // namespace folio::cli
