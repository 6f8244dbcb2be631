// Random templates for a bounded time: mutations of the real chat templates and soups of Jinja
// tokens, rendered with random conversations. Whatever comes in, the engine must return a string or
// throw a folio::Error (syntax, raised, render or limit errors): never crash, hang, overflow the stack,
// leak, or trip ASan/UBSan. The seed is fixed, so a failure reproduces; its template is printed.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/chat/builtin_templates.h"
#include "engine/chat/chat_template.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

using json = nlohmann::ordered_json;

const char* kTokens[] = {
    "{%", "%}", "{{", "}}", "{#", "#}", "{%-", "-%}", "{{-", "-}}", "{%+", "+%}", "(", ")", "[", "]", "{", "}",
    "'", "\"", "'a'", "\"b\"", "'\\n'", "'\\x'", "'\\u12'", " ", "\n", "\t", ",", ":", ".", "|", "~", "+", "-",
    "*", "/", "//", "%", "**", "==", "!=", "<", ">=", "=", "if", "elif", "else", "endif", "for", "in", "endfor",
    "set", "endset", "macro", "endmacro", "call", "endcall", "caller()", "filter", "endfilter", "with", "endwith",
    "block", "endblock", "raw", "endraw", "break", "continue", "recursive", "loop", "loop(x)", "loop.index",
    "loop.length", "loop.nextitem", "not", "and", "or", "is", "defined", "none", "true", "false", "0", "1", "-1",
    "2.5", "1e400", "99999999999999999999", "messages", "message", "m", "x", "ns", "namespace(a=1)", "ns.a",
    "raise_exception('e')", "range(100000)", "range(3)", "strftime_now('%Y')", "tojson", "tojson(indent=2)", "trim",
    "length", "map", "select", "selectattr('role')", "join", "default", "items()", "keys()", "strip()",
    "split()", "upper", "[1:]", "[::-1]", "[0]", "['role']", "'%s' %", "format", "cycler(1)", "joiner()",
    "dict(a=1)", "indent(4)", "batch(2)", "groupby('role')", "sort", "unique", "first", "last", "string", "int",
    "float", "round", "abs", "*", "**x", "x * 100000", "'a' * 99999999", "[x, x]", "{'k': x}",
};

std::vector<std::string> seeds() {
    std::vector<std::string> out;
    for (const char* f : {"llama2-chat.json", "mistral-7b-instruct-v0.1.json", "tinyllama-chat.json",
                          "qwen2.5-instruct.json", "llama3-instruct.json"})
        out.push_back(json::parse(test::read_file(test::fixture_path("chat-templates/" + std::string(f))))
                          .at("chat_template")
                          .get<std::string>());
    // Features the real templates do not use, so mutations reach them too.
    out.push_back(
        "{% macro m(a, b=2) %}{{ a ~ b ~ varargs|length ~ kwargs|length }}{{ caller() if caller is defined }}"
        "{% endmacro %}{% call(x) m(1, 3) %}[{{ x }}]{% endcall %}{{ m('q', c=1) }}"
        "{% set ns = namespace(n=0, l=[]) %}{% for m in messages recursive %}{% set ns.n = ns.n + 1 %}"
        "{% set ns.l = ns.l + [m] %}{{ loop.index }}{% if m is mapping and m.content is string %}"
        "{{ m.content | trim | upper | replace('A', 'b') }}{% endif %}{% endfor %}{{ ns.l | tojson }}"
        "{% filter upper %}{% for k, v in {'a': 1}.items() %}{{ k }}{{ v }}{% else %}none{% endfor %}{% endfilter %}"
        "{% set s %}{{ messages | map(attribute='role') | join(',') }}{% endset %}{{ s.split(',') | unique | list }}"
        "{% for i in range(5) if i is odd %}{% if loop.last %}{% break %}{% endif %}{{ i }}{% continue %}{% endfor %}"
        "{{ '%s=%d' | format('x', 3) }}{{ '{0}{1}'.format('a', 2) }}{{ strftime_now('%d %b %Y') }}");
    for (const auto& b : builtin_chat_templates()) out.emplace_back(b.source);
    return out;
}

class Fuzzer {
public:
    explicit Fuzzer(uint32_t seed) : rng_(seed) {}

    std::string mutate(std::string s) {
        const int edits = pick(1, 6);
        for (int i = 0; i < edits; ++i) {
            const size_t n = s.size();
            switch (pick(0, 6)) {
            case 0:  // delete a range
                if (n) {
                    const size_t at = size_t(pick(0, int(n) - 1));
                    s.erase(at, size_t(pick(1, 20)));
                }
                break;
            case 1:  // insert a token
                s.insert(size_t(pick(0, int(n))), token());
                break;
            case 2:  // duplicate a range
                if (n) {
                    const size_t at = size_t(pick(0, int(n) - 1));
                    s.insert(size_t(pick(0, int(n))), s.substr(at, size_t(pick(1, 40))));
                }
                break;
            case 3:  // flip a byte (also into invalid UTF-8)
                if (n) s[size_t(pick(0, int(n) - 1))] = char(pick(0, 255));
                break;
            case 4:  // truncate
                if (n) s.resize(size_t(pick(0, int(n))));
                break;
            case 5:  // replace a range by a token
                if (n) {
                    const size_t at = size_t(pick(0, int(n) - 1));
                    s.replace(at, size_t(pick(1, 10)), token());
                }
                break;
            default:  // nest: wrap a range in a block
                if (n) {
                    const size_t a = size_t(pick(0, int(n) - 1)), b = size_t(pick(int(a), int(n)));
                    s.insert(b, "{% endfor %}");
                    s.insert(a, "{% for x in messages %}");
                }
                break;
            }
        }
        return s;
    }

    std::string soup() {
        std::string s;
        const int n = pick(1, 60);
        for (int i = 0; i < n; ++i) s += token();
        return s;
    }

    // A template from a small grammar: valid more often than a mutation, so evaluation gets exercised.
    std::string grammar(int depth = 0) {
        static const char* atoms[] = {"1", "0", "-3", "2.5", "'ab'", "''", "none", "true", "[1, 'x']", "[]", "(1,)",
                                      "{'k': 1}", "x", "nope", "messages", "messages[0]", "m", "loop", "ns", "range(3)",
                                      "'%s'", "1e300", "9223372036854775807"};
        static const char* binops[] = {"+", "-", "*", "/", "//", "%", "**", "~", "==", "<", ">=", "in", "not in",
                                       "and", "or"};
        static const char* filters[] = {"length", "string", "int", "float", "trim", "upper", "title", "first", "last",
                                        "list", "sort", "unique|list", "join(',')", "tojson", "tojson(indent=1)",
                                        "default('D')", "abs", "round(1)", "reverse|list", "sum", "max", "items|list",
                                        "dictsort", "wordcount", "select|list", "map('string')|list", "batch(2)|list",
                                        "center(5)", "indent(2)", "replace('a', 'b')", "format(1)", "e", "slice(2)|list",
                                        "groupby('role')", "selectattr('role')|list", "map(attribute='content')|list",
                                        "truncate(3)", "capitalize", "attr('role')", "filesizeformat"};
        static const char* tests[] = {"defined", "none", "string", "number", "iterable", "mapping", "sequence", "odd",
                                      "divisibleby(2)", "callable", "in([1])", "eq(1)", "lower", "sameas(1)"};
        static const char* methods[] = {"strip()", "split()", "startswith('a')", "get('k')", "items()", "keys()",
                                        "count(1)", "index(1)", "title()", "replace('a','x')", "format(1, 2)",
                                        "join(['1'])", "splitlines()", "center(3, '*')", "zfill(4)", "rsplit(',', 1)"};
        auto pick_of = [&](auto& arr) { return std::string(arr[size_t(pick(0, int(std::size(arr)) - 1))]); };
        std::function<std::string(int)> expr = [&](int d) -> std::string {
            const int r = pick(0, 99);
            if (d > 3 || r < 25) return pick_of(atoms);
            if (r < 45) return "(" + expr(d + 1) + " " + pick_of(binops) + " " + expr(d + 1) + ")";
            if (r < 60) return "(" + expr(d + 1) + " | " + pick_of(filters) + ")";
            if (r < 70) return "(" + expr(d + 1) + " is " + (pick(0, 2) ? "" : "not ") + pick_of(tests) + ")";
            if (r < 78) return pick_of(atoms) + "." + pick_of(methods);
            if (r < 84) return "(" + expr(d + 1) + " if " + expr(d + 1) + " else " + expr(d + 1) + ")";
            if (r < 90) return pick_of(atoms) + "[" + (pick(0, 1) ? "1:" : "::-1") + "]";
            if (r < 95) return "[" + expr(d + 1) + ", " + expr(d + 1) + "]";
            return "(not " + expr(d + 1) + ")";
        };
        std::string out;
        const int n = pick(1, 5);
        for (int i = 0; i < n; ++i) {
            switch (pick(0, 7)) {
            case 0: out += "{{ " + expr(0) + " }}"; break;
            case 1: out += "{% set x = " + expr(0) + " %}"; break;
            case 2: out += "{% if " + expr(0) + " %}" + (depth < 3 ? grammar(depth + 1) : "a") + "{% else %}b{% endif %}"; break;
            case 3:
                out += "{% for m in " + expr(0) + (pick(0, 1) ? " if " + expr(0) : "") + " %}" +
                       (depth < 3 ? grammar(depth + 1) : "{{ loop.index }}") + "{% else %}e{% endfor %}";
                break;
            case 4: out += "{% set ns = namespace(v=" + expr(0) + ") %}{% set ns.v = " + expr(0) + " %}"; break;
            case 5: out += "{% macro mac(a, b=" + expr(0) + ") %}{{ a ~ b }}{% endmacro %}{{ mac(" + expr(0) + ") }}"; break;
            case 6: out += "{% filter " + std::string(pick(0, 1) ? "upper" : "trim") + " %}" + expr(0) + "{% endfilter %}"; break;
            default: out += "text\n"; break;
            }
        }
        return out;
    }

    json context() {
        static const char* roles[] = {"system", "user", "assistant", "tool", "", "User"};
        static const char* contents[] = {"hi", "", " spaced\u00a0 ", "multi\nline", "{{ x }}", "\xc3\xa9\xe4\xb8\xad",
                                         "\xff\xfe"};
        json messages = json::array();
        const int n = pick(0, 6);
        for (int i = 0; i < n; ++i) {
            json m = json::object();
            if (pick(0, 9)) m["role"] = roles[pick(0, 5)];
            switch (pick(0, 9)) {
            case 0: m["content"] = nullptr; break;
            case 1: m["content"] = json::array({json{{"type", "text"}, {"text", "part"}}}); break;
            case 2: m["content"] = 42; break;
            default: m["content"] = std::string(contents[pick(0, 5)]);
            }
            if (!pick(0, 4)) m["tool_calls"] = json::array({json{{"function", {{"name", "f"}, {"arguments", {{"a", 1}}}}}}});
            messages.push_back(m);
        }
        json ctx = json::object();
        ctx["messages"] = messages;
        ctx["add_generation_prompt"] = bool(pick(0, 1));
        if (pick(0, 1)) ctx["bos_token"] = "<s>";
        if (pick(0, 1)) ctx["eos_token"] = "</s>";
        ctx["tools"] = pick(0, 2) ? json(nullptr) : json::array({json{{"name", "t"}, {"parameters", json::object()}}});
        return ctx;
    }

    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

private:
    std::string token() { return kTokens[size_t(pick(0, int(std::size(kTokens)) - 1))]; }
    std::mt19937 rng_;
};

// FOLIO_FUZZ_SECONDS and FOLIO_FUZZ_SEED run it longer or differently by hand; CI uses the defaults.
int env_int(const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::atoi(v) : fallback;
}

TEST(TemplateFuzz, RandomTemplatesNeverCrashOrHang) {
    const std::vector<std::string> corpus = seeds();
    const int seed = env_int("FOLIO_FUZZ_SEED", 20240726);
    Fuzzer fuzz{uint32_t(seed)};
    ChatTemplateOptions options;
    options.max_steps = 200'000;  // small limits keep each case quick, and exercise the limit paths
    options.max_output_bytes = 1 << 20;
    const int seconds = env_int("FOLIO_FUZZ_SECONDS", 4);
    const bool verbose = env_int("FOLIO_FUZZ_VERBOSE", 0) != 0;  // prints every case, to find a hang
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    int cases = 0, parsed = 0, rendered = 0;
    while (std::chrono::steady_clock::now() < deadline && (cases < 200000 || seconds > 4)) {
        const int kind = fuzz.pick(0, 9);
        const std::string source = kind < 2   ? fuzz.soup()
                                   : kind < 5 ? fuzz.grammar()
                                              : fuzz.mutate(corpus[size_t(fuzz.pick(0, int(corpus.size()) - 1))]);
        ++cases;
        if (verbose) std::fprintf(stderr, "case %d: %s\n", cases, testing::PrintToString(source).c_str());
        try {
            const ChatTemplate t = ChatTemplate::parse(source);
            ++parsed;
            for (int k = 0; k < 2; ++k) {
                try {
                    t.render(fuzz.context(), options);
                    ++rendered;
                } catch (const Error&) {
                }
            }
        } catch (const TemplateSyntaxError&) {
        } catch (const std::exception& e) {
            ADD_FAILURE() << "seed " << seed << " case " << cases << " threw a non-folio exception: " << e.what() << "\n"
                          << "template: " << testing::PrintToString(source);
            break;
        }
    }
    RecordProperty("cases", cases);
    std::printf("fuzz: %d templates, %d parsed, %d renders succeeded\n", cases, parsed, rendered);
    EXPECT_GT(cases, 100);
    EXPECT_GT(parsed, 10);
    EXPECT_GT(rendered, 10);
}

// Deep nesting in every form the parser and renderer recurse on stops with an error, never a crash.
TEST(TemplateFuzz, DeepNestingIsAnErrorNotACrash) {
    auto rejects = [](const std::string& source) {
        try {
            ChatTemplate::parse(source).render(json::object());
            return false;
        } catch (const Error&) {
            return true;
        }
    };
    const int n = 100000;
    EXPECT_TRUE(rejects("{{ " + std::string(size_t(n), '(') + "1" + std::string(size_t(n), ')') + " }}"));
    EXPECT_TRUE(rejects("{{ " + std::string(size_t(n), '[') + std::string(size_t(n), ']') + " }}"));
    std::string nots = "{{ ";
    for (int i = 0; i < n; ++i) nots += "not ";
    EXPECT_TRUE(rejects(nots + "1 }}"));
    std::string minus = "{{ " + std::string(size_t(n), '-') + "1 }}";
    EXPECT_TRUE(rejects(minus));
    std::string sum = "{{ 1";
    for (int i = 0; i < n; ++i) sum += " + 1";
    EXPECT_TRUE(rejects(sum + " }}"));
    std::string ifs;
    for (int i = 0; i < 2000; ++i) ifs += "{% if true %}";
    for (int i = 0; i < 2000; ++i) ifs += "{% endif %}";
    EXPECT_TRUE(rejects(ifs));
    std::string filters = "{{ 'x'";
    for (int i = 0; i < n; ++i) filters += "|trim";
    EXPECT_TRUE(rejects(filters + " }}"));
    std::string attrs = "{{ x";
    for (int i = 0; i < n; ++i) attrs += ".a";
    EXPECT_TRUE(rejects(attrs + " }}"));
    // Recursion at render time: a macro calling itself, a recursive loop over itself.
    EXPECT_TRUE(rejects("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"));
    EXPECT_TRUE(rejects("{% set x = [[]] %}{% for i in x recursive %}{{ loop(x) }}{% endfor %}"));
    // Values nested by a loop: [[[[...]]]] built 100000 deep.
    EXPECT_TRUE(rejects("{% set ns = namespace(v=[]) %}{% for i in range(100000) %}{% set ns.v = [ns.v] %}{% endfor %}"
                        "{{ ns.v }}"));
}

// A namespace that contains itself prints as Python prints it, and is freed without leaking.
TEST(TemplateFuzz, SelfReferenceIsPrintedAndFreed) {
    EXPECT_EQ(ChatTemplate::parse("{% set ns = namespace() %}{% set ns.me = ns %}{{ ns }}").render(json::object()),
              "<Namespace {'me': <Namespace {...}>}>");
    EXPECT_EQ(ChatTemplate::parse("{% set ns = namespace(l=[]) %}{% set ns.l = [ns] %}{{ ns.l | length }}")
                  .render(json::object()),
              "1");
}

TEST(TemplateFuzz, DeepJsonContextIsAnErrorNotACrash) {
    json ctx = json::object();
    ctx["messages"] = json::parse(std::string(5000, '[') + std::string(5000, ']'));
    EXPECT_THROW(ChatTemplate::parse("{{ messages }}").render(ctx), Error);
}

}  // namespace
}  // namespace folio
