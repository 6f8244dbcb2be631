#include "app/text/markdown_parts.h"

#include <algorithm>
#include <utility>

namespace folio::text {
namespace {

using Fence = MarkdownSplitState::Fence;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

size_t skip_spaces(std::string_view s, size_t i) {
    while (i < s.size() && is_space(s[i])) ++i;
    return i;
}

std::string_view trimmed(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && is_space(s[b])) ++b;
    while (e > b && is_space(s[e - 1])) --e;
    return s.substr(b, e - b);
}

// Up to 3 spaces: where a block marker may start (npos after 4 or more).
size_t indent(std::string_view line) {
    size_t i = 0;
    while (i < line.size() && i < 4 && line[i] == ' ') ++i;
    return i > 3 ? std::string_view::npos : i;
}

// A fence opener: up to 3 spaces, then ``` or ~~~ (3 or more), then the info string (its first
// word); no backtick may follow the fence.
bool opening_fence(std::string_view line, Fence* f) {
    const size_t i = indent(line);
    if (i == std::string_view::npos || i >= line.size() || (line[i] != '`' && line[i] != '~')) return false;
    const char ch = line[i];
    size_t run = i;
    while (run < line.size() && line[run] == ch) ++run;
    if (run - i < 3) return false;
    if (line.find('`', run) != std::string_view::npos) return false;
    const size_t info = skip_spaces(line, run);
    size_t end = info;
    while (end < line.size() && !is_space(line[end])) ++end;
    f->ch = ch;
    f->length = run - i;
    f->info = std::string(line.substr(info, end - info));
    return true;
}

// At least as many of the opener's characters, nothing else, indented by up to 3 blanks.
bool closing_fence(std::string_view line, const Fence& f) {
    const std::string_view t = trimmed(line);
    if (t.size() < f.length) return false;
    if (std::any_of(t.begin(), t.end(), [&](char c) { return c != f.ch; })) return false;
    return size_t(t.data() - line.data()) <= 3;
}

// "## Title ##": up to 3 spaces, 1 to 6 '#', whitespace, the title (without a closing run of '#').
bool heading_line(std::string_view line, int* level, std::string* text) {
    const size_t i = indent(line);
    if (i == std::string_view::npos) return false;
    size_t run = i;
    while (run < line.size() && line[run] == '#') ++run;
    const size_t hashes = run - i;
    if (hashes < 1 || hashes > 6 || run >= line.size() || !is_space(line[run])) return false;
    std::string_view title = line.substr(skip_spaces(line, run));
    while (!title.empty() && is_space(title.back())) title.remove_suffix(1);
    while (!title.empty() && title.back() == '#') title.remove_suffix(1);
    while (!title.empty() && is_space(title.back())) title.remove_suffix(1);
    *level = int(hashes);
    *text = std::string(title);
    return true;
}

// "> text": up to 3 spaces, '>', an optional space.
bool quote_line(std::string_view line, std::string* inner) {
    size_t i = indent(line);
    if (i == std::string_view::npos || i >= line.size() || line[i] != '>') return false;
    ++i;
    if (i < line.size() && line[i] == ' ') ++i;
    *inner = std::string(line.substr(i));
    return true;
}

std::string join_lines(const std::vector<std::string>& lines, size_t begin, size_t end) {
    std::string out;
    for (size_t i = begin; i < end; ++i) {
        if (i > begin) out += '\n';
        out += lines[i];
    }
    return out;
}

void push_text(std::vector<MarkdownPart>& parts, MarkdownPart::Kind kind, std::vector<std::string>& lines) {
    size_t b = 0, e = lines.size();
    while (b < e && trimmed(lines[b]).empty()) ++b;
    while (e > b && trimmed(lines[e - 1]).empty()) --e;
    if (b < e) {
        MarkdownPart p;
        p.kind = kind;
        p.text = neutralize_images(join_lines(lines, b, e));
        parts.push_back(std::move(p));
    }
    lines.clear();
}

bool iequals_at(std::string_view s, size_t at, std::string_view lower) {
    if (at + lower.size() > s.size()) return false;
    for (size_t i = 0; i < lower.size(); ++i) {
        char c = s[at + i];
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
        if (c != lower[i]) return false;
    }
    return true;
}

bool is_word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// `![alt](url "title")` and `![alt](<url>)` -> `[image: alt](url)`.
std::string inline_images(std::string_view s) {
    std::string out;
    size_t last = 0;
    for (size_t p = s.find("!["); p != std::string_view::npos; p = s.find("![", p + 1)) {
        const size_t alt_end = s.find(']', p + 2);
        if (alt_end == std::string_view::npos) break;  // no later image can close either
        if (alt_end + 1 >= s.size() || s[alt_end + 1] != '(') continue;
        const size_t close = s.find(')', alt_end + 2);
        if (close == std::string_view::npos) break;
        size_t url = skip_spaces(s, alt_end + 2);
        if (s[url] == '<') ++url;
        size_t url_end = url;
        while (url_end < close && !is_space(s[url_end]) && s[url_end] != '>') ++url_end;
        out.append(s.substr(last, p - last));
        out.append("[image: ").append(s.substr(p + 2, alt_end - p - 2)).append("](");
        out.append(s.substr(url, url_end - url)).append(")");
        last = close + 1;
        p = close;
    }
    out.append(s.substr(last));
    return out;
}

// `![alt][ref]` -> `[image: alt][ref]`.
std::string reference_images(std::string_view s) {
    std::string out;
    size_t last = 0;
    for (size_t p = s.find("!["); p != std::string_view::npos; p = s.find("![", p + 1)) {
        const size_t alt_end = s.find(']', p + 2);
        if (alt_end == std::string_view::npos) break;
        if (alt_end + 1 >= s.size() || s[alt_end + 1] != '[') continue;
        const size_t ref_end = s.find(']', alt_end + 2);
        if (ref_end == std::string_view::npos) break;
        out.append(s.substr(last, p - last));
        out.append("[image: ").append(s.substr(p + 2, alt_end - p - 2)).append("][");
        out.append(s.substr(alt_end + 2, ref_end - alt_end - 2)).append("]");
        last = ref_end + 1;
        p = ref_end;
    }
    out.append(s.substr(last));
    return out;
}

// The address of an <img> tag's src attribute (empty when it has none).
std::string_view image_source(std::string_view tag) {
    for (size_t k = 0; k + 3 <= tag.size(); ++k) {
        if (!iequals_at(tag, k, "src")) continue;
        size_t j = skip_spaces(tag, k + 3);
        if (j >= tag.size() || tag[j] != '=') continue;
        j = skip_spaces(tag, j + 1);
        if (j < tag.size() && (tag[j] == '"' || tag[j] == '\'')) ++j;
        size_t end = j;
        while (end < tag.size() && !is_space(tag[end]) && tag[end] != '"' && tag[end] != '\'' && tag[end] != '>') ++end;
        if (end > j) return tag.substr(j, end - j);
    }
    return {};
}

// HTML images: keep the address as a link so the reader can still open it deliberately.
std::string html_images(std::string_view s) {
    std::string out;
    size_t last = 0;
    for (size_t p = s.find('<'); p != std::string_view::npos; p = s.find('<', p + 1)) {
        if (!iequals_at(s, p, "<img") || (p + 4 < s.size() && is_word(s[p + 4]))) continue;
        const size_t end = s.find('>', p + 4);
        if (end == std::string_view::npos) break;
        const std::string_view src = image_source(s.substr(p, end + 1 - p));
        out.append(s.substr(last, p - last));
        if (src.empty()) {
            out.append("[image]");
        } else {
            // A '<' in the address could start another tag once the address is out of this one.
            out.append("[image](");
            for (char c : src) c == '<' ? out.append("%3C") : out.append(1, c);
            out.append(")");
        }
        last = end + 1;
        p = end;
    }
    out.append(s.substr(last));
    return out;
}

// What the passes above leave or make of "![" ("!![a](u)" becomes "![image: a](u)"; a shortcut
// reference image "![logo]"; an image in an alt text or an address) is still an image to Markdown:
// "!\[" is a '!' and a literal '['.
std::string escape_image_marks(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    size_t last = 0;
    for (size_t p = s.find("!["); p != std::string_view::npos; p = s.find("![", p + 2)) {
        out.append(s.substr(last, p + 1 - last)).append("\\[");
        last = p + 2;
    }
    out.append(s.substr(last));
    return out;
}

}  // namespace

const char* kind_name(MarkdownPart::Kind k) {
    switch (k) {
    case MarkdownPart::Kind::Prose: return "prose";
    case MarkdownPart::Kind::Heading: return "heading";
    case MarkdownPart::Kind::Code: return "code";
    case MarkdownPart::Kind::Quote: return "quote";
    }
    return "prose";
}

std::string neutralize_images(std::string_view markdown) {
    return escape_image_marks(html_images(reference_images(inline_images(markdown))));
}

void MarkdownSplitState::line(std::string_view raw, std::vector<MarkdownPart>& out) {
    const std::string_view line = !raw.empty() && raw.back() == '\r' ? raw.substr(0, raw.size() - 1) : raw;
    if (in_code) {
        if (closing_fence(line, fence)) {
            out.push_back(MarkdownPart{MarkdownPart::Kind::Code, join_lines(code, 0, code.size()), fence.info, 0, false});
            code.clear();
            in_code = false;
        } else {
            code.emplace_back(line);
        }
        return;
    }
    Fence f;
    int level = 0;
    std::string text;
    if (opening_fence(line, &f)) {
        push_text(out, MarkdownPart::Kind::Prose, prose);
        push_text(out, MarkdownPart::Kind::Quote, quote);
        fence = std::move(f);
        in_code = true;
    } else if (quote_line(line, &text)) {
        push_text(out, MarkdownPart::Kind::Prose, prose);
        quote.push_back(std::move(text));
    } else if (heading_line(line, &level, &text)) {
        push_text(out, MarkdownPart::Kind::Prose, prose);
        push_text(out, MarkdownPart::Kind::Quote, quote);
        out.push_back(MarkdownPart{MarkdownPart::Kind::Heading, neutralize_images(text), {}, level, false});
    } else {
        // A blank line ends a quote; a non-blank line right after a quote continues it (lazy
        // continuation) only if the quote has not ended.
        if (!quote.empty() && !trimmed(line).empty()) {
            quote.emplace_back(line);
            return;
        }
        push_text(out, MarkdownPart::Kind::Quote, quote);
        prose.emplace_back(line);
    }
}

void MarkdownSplitState::finish(std::vector<MarkdownPart>& out) && {
    if (in_code) out.push_back(MarkdownPart{MarkdownPart::Kind::Code, join_lines(code, 0, code.size()), fence.info, 0, true});
    push_text(out, MarkdownPart::Kind::Prose, prose);
    push_text(out, MarkdownPart::Kind::Quote, quote);
}

const std::vector<MarkdownPart>& MarkdownStream::update(std::string_view text) {
    restarted_ = !text.starts_with(read_);
    if (restarted_) {  // not a continuation: start over
        state_ = {};
        read_.clear();
        closed_ = 0;
    }
    parts_.resize(closed_);  // the last update's open part and last line are read again
    // Complete lines go into the kept state; the line still being written is read on a copy.
    size_t consumed = read_.size();
    for (size_t nl; (nl = text.find('\n', consumed)) != std::string_view::npos; consumed = nl + 1)
        state_.line(text.substr(consumed, nl - consumed), parts_);
    read_.append(text.substr(read_.size(), consumed - read_.size()));
    closed_ = parts_.size();
    MarkdownSplitState tail = state_;
    tail.line(text.substr(consumed), parts_);
    std::move(tail).finish(parts_);
    return parts_;
}

std::vector<MarkdownPart> split_markdown(std::string_view markdown) {
    std::vector<MarkdownPart> parts;
    MarkdownSplitState state;
    size_t from = 0;
    for (size_t nl; (nl = markdown.find('\n', from)) != std::string_view::npos; from = nl + 1)
        state.line(markdown.substr(from, nl - from), parts);
    state.line(markdown.substr(from), parts);
    std::move(state).finish(parts);
    return parts;
}

}  // namespace folio::text
