// A reply's text (app/text): the Markdown splitter and the reasoning splitter on any bytes. The first
// byte picks where the reply is cut while it streams; the rest is the reply. What must hold: the
// stream's parts at the cut and at the end equal the whole splitter's, the parts it called closed at
// the cut are still there at the end, and no prose, quote or heading leaves an image for a Text item
// to load ("![" or an <img> tag).
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "app/text/markdown_parts.h"
#include "app/text/reasoning_split.h"

namespace {

using folio::text::MarkdownPart;

bool loads_image(const std::string& s) {
    if (s.find("![") != std::string::npos) return true;
    for (size_t p = s.find('<'); p != std::string::npos; p = s.find('<', p + 1)) {
        if (p + 4 > s.size()) break;
        std::string tag = s.substr(p + 1, 3);
        for (char& c : tag) c = char(c | 0x20);
        const bool boundary = p + 4 == s.size() || !(std::isalnum(static_cast<unsigned char>(s[p + 4])) || s[p + 4] == '_');
        if (tag == "img" && boundary && s.find('>', p + 4) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string_view reply(reinterpret_cast<const char*>(data) + 1, size - 1);
    const std::string_view prefix = reply.substr(0, reply.size() * data[0] / 255);

    folio::text::MarkdownStream stream;
    const std::vector<MarkdownPart> at_cut = stream.update(prefix);
    if (at_cut != folio::text::split_markdown(prefix)) __builtin_trap();
    const size_t closed = stream.closed_parts();
    const std::vector<MarkdownPart>& whole = stream.update(reply);
    if (stream.restarted() || whole != folio::text::split_markdown(reply)) __builtin_trap();
    if (whole.size() < closed) __builtin_trap();
    for (size_t i = 0; i < closed; ++i) {
        if (!(whole[i] == at_cut[i])) __builtin_trap();  // a closed part changed
    }
    for (const MarkdownPart& p : whole) {
        if (p.kind != MarkdownPart::Kind::Code && loads_image(p.text)) __builtin_trap();
    }

    for (bool complete : {false, true}) {
        const folio::text::ReasoningSplit s = folio::text::split_reasoning(reply, complete);
        if (s.thinking && !s.has_reasoning) __builtin_trap();
        if (s.reasoning.size() + s.answer.size() > reply.size()) __builtin_trap();
    }
    return 0;
}
