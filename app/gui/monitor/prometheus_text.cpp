#include "app/gui/monitor/prometheus_text.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace folio::app {

namespace {

bool name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

struct Cursor {
    const std::string& s;
    size_t i;
    size_t end;
    int line;

    [[noreturn]] void fail(const std::string& what) const {
        throw MetricsParseError("line " + std::to_string(line) + " of the metrics: " + what + " (at \"" + s.substr(i, std::min<size_t>(end - i, 40)) +
                                "\")");
    }
    bool done() const { return i >= end; }
    char peek() const { return done() ? '\0' : s[i]; }
    void skip_blanks() {
        while (!done() && (s[i] == ' ' || s[i] == '\t')) ++i;
    }
    std::string name(const char* what) {
        if (done() || !name_start(s[i])) fail(std::string("expected ") + what);
        const size_t b = i;
        while (!done() && name_char(s[i])) ++i;
        return s.substr(b, i - b);
    }
    std::string rest() {
        std::string r = s.substr(i, end - i);
        i = end;
        return r;
    }
};

double parse_value(Cursor& c) {
    const size_t b = c.i;
    while (!c.done() && c.s[c.i] != ' ' && c.s[c.i] != '\t') ++c.i;
    std::string v = c.s.substr(b, c.i - b);
    if (v.empty()) c.fail("expected a value");
    if (v == "NaN" || v == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (v == "+Inf" || v == "Inf" || v == "+inf" || v == "inf") return std::numeric_limits<double>::infinity();
    if (v == "-Inf" || v == "-inf") return -std::numeric_limits<double>::infinity();
    // from_chars: no locale (the app's may write decimal commas), no leading '+'.
    const char* first = v.data() + (v[0] == '+' ? 1 : 0);
    double x = 0;
    const auto [p, ec] = std::from_chars(first, v.data() + v.size(), x);
    if (ec != std::errc() || p != v.data() + v.size()) {
        c.i = b;
        c.fail("\"" + v + "\" is not a number");
    }
    return x;
}

std::string parse_label_value(Cursor& c) {
    if (c.peek() != '"') c.fail("a label value must be in double quotes");
    ++c.i;
    std::string v;
    while (true) {
        if (c.done()) c.fail("a label value is not closed");
        const char ch = c.s[c.i++];
        if (ch == '"') return v;
        if (ch != '\\') {
            v += ch;
            continue;
        }
        if (c.done()) c.fail("a label value is not closed");
        const char e = c.s[c.i++];
        if (e == 'n')
            v += '\n';
        else if (e == '\\' || e == '"')
            v += e;
        else {
            // The format escapes only these; keep any other backslash as it came.
            v += '\\';
            v += e;
        }
    }
}

// The family a sample name belongs to, given the # TYPE lines seen so far: a histogram's
// _bucket/_sum/_count, a summary's _sum/_count, a counter's _total, and the _created of any of them.
std::string family_of(const std::string& name, const std::map<std::string, std::string>& types) {
    if (types.count(name)) return name;
    struct Suffix {
        const char* suffix;
        const char* kinds;  // the family types it belongs to, space-separated
    };
    static const Suffix suffixes[] = {{"_bucket", " histogram gaugehistogram "},
                                      {"_sum", " histogram gaugehistogram summary "},
                                      {"_count", " histogram gaugehistogram summary "},
                                      {"_total", " counter "},
                                      {"_created", " counter histogram summary "}};
    for (const Suffix& s : suffixes) {
        const std::string suf = s.suffix;
        if (name.size() <= suf.size() || name.compare(name.size() - suf.size(), suf.size(), suf) != 0) continue;
        const std::string base = name.substr(0, name.size() - suf.size());
        const auto it = types.find(base);
        if (it != types.end() && std::string(s.kinds).find(" " + it->second + " ") != std::string::npos) return base;
    }
    return name;
}

}  // namespace

std::string MetricSample::label(const std::string& key) const {
    for (const auto& [k, v] : labels)
        if (k == key) return v;
    return {};
}

MetricsText parse_metrics_text(const std::string& text) {
    MetricsText out;
    size_t pos = 0;
    int line_no = 0;
    while (pos < text.size()) {
        size_t eol = text.find('\n', pos);
        if (eol == std::string::npos) eol = text.size();
        size_t end = eol;
        if (end > pos && text[end - 1] == '\r') --end;
        Cursor c{text, pos, end, ++line_no};
        pos = eol + 1;
        c.skip_blanks();
        if (c.done()) continue;
        if (c.peek() == '#') {
            ++c.i;
            c.skip_blanks();
            const size_t b = c.i;
            while (!c.done() && c.s[c.i] != ' ' && c.s[c.i] != '\t') ++c.i;
            const std::string keyword = text.substr(b, c.i - b);
            if (keyword != "TYPE") continue;  // HELP, EOF and free comments carry nothing we read
            c.skip_blanks();
            const std::string family = c.name("a metric name after # TYPE");
            c.skip_blanks();
            std::string type = c.rest();
            while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.pop_back();
            out.types[family] = type;
            continue;
        }
        MetricSample s;
        s.name = c.name("a metric name");
        const size_t after_name = c.i;
        c.skip_blanks();
        bool spaced = c.i > after_name;
        if (c.peek() == '{') {
            ++c.i;
            while (true) {
                c.skip_blanks();
                if (c.peek() == '}') {
                    ++c.i;
                    break;
                }
                std::string key = c.name("a label name");
                c.skip_blanks();
                if (c.peek() != '=') c.fail("expected '=' after the label " + key);
                ++c.i;
                c.skip_blanks();
                s.labels.emplace_back(std::move(key), parse_label_value(c));
                c.skip_blanks();
                if (c.peek() == ',') {
                    ++c.i;
                    continue;
                }
                if (c.peek() != '}') c.fail("expected ',' or '}' in the labels");
            }
            const size_t after_labels = c.i;
            c.skip_blanks();
            spaced = c.i > after_labels;
        }
        if (!c.done() && !spaced) c.fail("expected a space before the value");
        s.value = parse_value(c);
        c.skip_blanks();
        if (!c.done()) {
            // An optional timestamp (Prometheus: integer milliseconds; OpenMetrics: seconds with a
            // fraction); nothing else may follow.
            const size_t b = c.i;
            while (!c.done() && c.s[c.i] != ' ' && c.s[c.i] != '\t') ++c.i;
            const std::string ts = text.substr(b, c.i - b);
            double t = 0;
            const auto [p, ec] = std::from_chars(ts.data(), ts.data() + ts.size(), t);
            if (ec != std::errc() || p != ts.data() + ts.size()) {
                c.i = b;
                c.fail("unexpected text after the value");
            }
            c.skip_blanks();
            if (!c.done()) c.fail("unexpected text after the timestamp");
        }
        s.family = family_of(s.name, out.types);
        out.samples.push_back(std::move(s));
    }
    return out;
}

}  // namespace folio::app
