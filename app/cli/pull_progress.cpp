#include "app/cli/pull_progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "engine/hub/blob_download.h"

namespace folio::cli {

using hub::FileState;
using hub::human_bytes;

std::string duration_text(double s) {
    if (s < 0) return "?";
    const long t = long(s + 0.5);
    char buf[32];
    if (t >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t / 60) % 60);
    else if (t >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
    else std::snprintf(buf, sizeof buf, "%lds", t);
    return buf;
}

namespace {

std::string rate_text(double bps) { return bps > 0 ? human_bytes(bps) + "/s" : "--"; }

int percent(uint64_t done, uint64_t total) { return total ? int(done * 100 / total) : 100; }

std::string fit(const std::string& s, size_t width) {
    if (s.size() <= width) return s + std::string(width - s.size(), ' ');
    if (width <= 3) return s.substr(0, width);
    std::string r = "...";
    r.append(s, s.size() - (width - 3), std::string::npos);
    return r;
}

std::string bar_line(const std::string& name, size_t name_w, uint64_t done, uint64_t total, double bps, double eta, int width) {
    std::string tail = " ";
    tail += std::to_string(percent(done, total));
    tail += "% " + human_bytes(double(done)) + "/" + human_bytes(double(total)) + " " + rate_text(bps) + " " + duration_text(eta);
    if (tail.size() < 40) tail.resize(40, ' ');  // the bars line up
    const int bar_w = std::max(10, width - int(name_w) - int(tail.size()) - 4);
    const int filled = total ? int(double(done) / double(total) * bar_w) : bar_w;
    return fit(name, name_w) + " [" + std::string(size_t(filled), '#') + std::string(size_t(bar_w - filled), '-') + "]" + tail;
}

}  // namespace

PullProgress::PullProgress(FILE* out, bool terminal) : out_(out), terminal_(terminal) {
    winsize ws{};
    if (terminal_ && ::ioctl(fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 40) width_ = ws.ws_col - 1;
}

void PullProgress::clear_frame() {
    if (!terminal_ || drawn_lines_ == 0) return;
    std::fprintf(out_, "\x1b[%dF", drawn_lines_);  // to the first line of the frame
    for (int i = 0; i < drawn_lines_; ++i) std::fprintf(out_, "\x1b[2K\n");
    std::fprintf(out_, "\x1b[%dF", drawn_lines_);
    drawn_lines_ = 0;
}

void PullProgress::draw(const hub::PullStatus& s) {
    std::vector<std::string> lines;
    const size_t name_w = size_t(std::clamp(width_ / 3, 12, 48));
    for (const auto& f : s.files)
        if (f.state == FileState::Downloading)
            lines.push_back(bar_line(f.path, name_w, f.done, f.size, f.bytes_per_second, f.eta_seconds, width_));
    lines.push_back(bar_line("total", name_w, s.done_bytes, s.total_bytes, s.bytes_per_second, s.eta_seconds, width_));
    // Overwrite the previous frame line by line (no blank flash), clearing what it had beyond.
    if (drawn_lines_ > 0) std::fprintf(out_, "\x1b[%dF", drawn_lines_);
    for (const auto& l : lines) std::fprintf(out_, "\x1b[2K%s\n", l.c_str());
    for (int i = int(lines.size()); i < drawn_lines_; ++i) std::fprintf(out_, "\x1b[2K\n");
    if (drawn_lines_ > int(lines.size())) std::fprintf(out_, "\x1b[%dF", drawn_lines_ - int(lines.size()));
    drawn_lines_ = int(lines.size());
    std::fflush(out_);
}

void PullProgress::plain(const hub::PullStatus& s) {
    for (const auto& f : s.files) {
        auto& before = states_[f.path];
        if (f.state == before) continue;
        if (f.state == FileState::Downloading)
            std::fprintf(out_, "downloading %s (%s%s)\n", f.path.c_str(), human_bytes(double(f.size)).c_str(),
                         f.done > 0 ? (", resuming at " + human_bytes(double(f.done))).c_str() : "");
        else if (f.state == FileState::Done)
            std::fprintf(out_, "verified %s\n", f.path.c_str());
        else if (f.state == FileState::Cached && before != FileState::Waiting)
            std::fprintf(out_, "cached %s\n", f.path.c_str());
        before = f.state;
    }
    const auto now = std::chrono::steady_clock::now();
    const int p = percent(s.done_bytes, s.total_bytes);
    if (s.done_bytes > 0 && s.done_bytes < s.total_bytes && (p / 10 != last_plain_percent_ / 10 || now - last_plain_ > std::chrono::seconds(10))) {
        std::fprintf(out_, "progress: %d%%, %s of %s, %s, %s left\n", p, human_bytes(double(s.done_bytes)).c_str(),
                     human_bytes(double(s.total_bytes)).c_str(), rate_text(s.bytes_per_second).c_str(),
                     duration_text(s.eta_seconds).c_str());
        last_plain_ = now;
        last_plain_percent_ = p;
    }
    std::fflush(out_);
}

void PullProgress::on_status(const hub::PullStatus& s) {
    if (!announced_) {
        announced_ = true;
        uint64_t cached = 0;
        int cached_files = 0;
        for (const auto& f : s.files)
            if (f.state == FileState::Cached) {
                cached += f.size;
                ++cached_files;
            }
        std::fprintf(out_, "%s@%s is commit %s: %zu file%s, %s", s.repo_id.c_str(), s.revision.c_str(), s.commit.c_str(),
                     s.files.size(), s.files.size() == 1 ? "" : "s", human_bytes(double(s.total_bytes)).c_str());
        if (cached_files) std::fprintf(out_, " (%d already in the cache, %s)", cached_files, human_bytes(double(cached)).c_str());
        std::fprintf(out_, "\n");
        if (!s.skipped.empty()) {
            std::string list;
            for (size_t i = 0; i < s.skipped.size() && i < 4; ++i) list += (i ? ", " : "") + s.skipped[i];
            if (s.skipped.size() > 4) list += ", ...";
            std::fprintf(out_, "skipping %zu file%s (%s): --include or --all fetches them\n", s.skipped.size(),
                         s.skipped.size() == 1 ? "" : "s", list.c_str());
        }
        for (const auto& f : s.files) states_[f.path] = f.state == FileState::Cached ? FileState::Cached : FileState::Waiting;
    }
    last_ = s;
    if (terminal_) draw(s);
    else plain(s);
}

void PullProgress::on_notice(const std::string& n) {
    clear_frame();
    std::fprintf(out_, "note: %s\n", n.c_str());
    if (terminal_ && announced_) draw(last_);
    std::fflush(out_);
}

void PullProgress::finish() {
    if (terminal_ && announced_) {
        clear_frame();
        std::fprintf(out_, "%s\n", bar_line("total", size_t(std::clamp(width_ / 3, 12, 48)), last_.done_bytes, last_.total_bytes,
                                            last_.bytes_per_second, 0, width_).c_str());
    }
    std::fflush(out_);
}

}  // namespace folio::cli
