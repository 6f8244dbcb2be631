// Jinja2 statements and whitespace, one behaviour per test, with the output Jinja2 3.1 gives under
// transformers' settings (trim_blocks, lstrip_blocks, loopcontrols).
#include <gtest/gtest.h>

#include "tests/engine/chat/render_helpers.h"

namespace folio {
namespace {

using test::json;
using test::render;

TEST(Whitespace, TrimBlocksDropsTheNewlineAfterABlockTag) {
    EXPECT_EQ(render("{% if true %}\nyes\n{% endif %}\nafter"), "yes\nafter");
    // ...but not after {{ }} or with +%}
    EXPECT_EQ(render("{{ 'x' }}\ny"), "x\ny");
    EXPECT_EQ(render("{% if true +%}\nyes{% endif %}"), "\nyes");
    // only one newline, and only \n (\r\n was normalized to \n first)
    EXPECT_EQ(render("{% if true %}\n\nyes{% endif %}"), "\nyes");
    EXPECT_EQ(render("{% if true %}\r\nyes{% endif %}"), "yes");
}

TEST(Whitespace, LstripBlocksDropsIndentationBeforeATagAtLineStart) {
    EXPECT_EQ(render("a\n    {% if true %}b{% endif %}"), "a\nb");
    EXPECT_EQ(render("\t  {# comment #}x"), "x");
    // not before {{ }}, not after text on the same line, not with {%+
    EXPECT_EQ(render("a\n    {{ 'b' }}"), "a\n    b");
    EXPECT_EQ(render("a  {% if true %}b{% endif %}"), "a  b");
    EXPECT_EQ(render("a\n  {%+ if true %}b{% endif %}"), "a\n  b");
    // Unicode spaces count as whitespace, as in Python's \s
    EXPECT_EQ(render("a\n\u00a0\u3000{% if true %}b{% endif %}"), "a\nb");
}

TEST(Whitespace, MinusStripsAllWhitespaceOnItsSide) {
    EXPECT_EQ(render("a  \n\n  {{- 'b' -}}  \n\n  c"), "abc");
    EXPECT_EQ(render("a \n {%- if true -%} \n b \n {%- endif -%} \n c"), "abc");
    EXPECT_EQ(render("a \n {#- note -#} \n c"), "ac");
    EXPECT_EQ(render("x \u00a0{{- 'y' }}"), "xy");
}

TEST(Whitespace, TheFinalNewlineOfTheTemplateIsDropped) {
    EXPECT_EQ(render("hello\n"), "hello");
    EXPECT_EQ(render("hello\n\n"), "hello\n");
    EXPECT_EQ(render("hello\r\n"), "hello");
    EXPECT_EQ(render("{{ 'x' }}\n"), "x");
}

TEST(Whitespace, RawBlocksAndCommentsAreNotTemplateCode) {
    EXPECT_EQ(render("{% raw %}{{ x }}{% if %}{% endraw %}"), "{{ x }}{% if %}");
    EXPECT_EQ(render("{% raw -%}  x  {%- endraw %}|"), "x|");
    EXPECT_EQ(render("a{# {{ x }} {% if %} #}b"), "ab");
    EXPECT_EQ(render("a{#\nmulti\nline\n#}\nb"), "ab");  // trim_blocks applies to comments too
}

TEST(Statements, IfElifElse) {
    const char* t = "{% if n > 2 %}big{% elif n > 0 %}small{% else %}none{% endif %}";
    EXPECT_EQ(render(t, {{"n", 3}}), "big");
    EXPECT_EQ(render(t, {{"n", 1}}), "small");
    EXPECT_EQ(render(t, {{"n", 0}}), "none");
    EXPECT_EQ(render("{% if x %}defined{% else %}falsy{% endif %}"), "falsy");  // undefined is falsy
    EXPECT_EQ(render("{% if [] or {} or '' or 0 or 0.0 or none %}t{% else %}f{% endif %}"), "f");
}

TEST(Statements, ForLoopVariables) {
    const json ctx = {{"xs", {"a", "b", "c"}}};
    EXPECT_EQ(render("{% for x in xs %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}"
                     "{{ loop.first }}{{ loop.last }}{{ loop.length }};{% endfor %}",
                     ctx),
              "1032TrueFalse3;2121FalseFalse3;3210FalseTrue3;");
    EXPECT_EQ(render("{% for x in xs %}{{ loop.previtem | default('-') }}{{ x }}{{ loop.nextitem | default('-') }} "
                     "{% endfor %}",
                     ctx),
              "-ab abc bc- ");
    EXPECT_EQ(render("{% for x in xs %}{{ loop.cycle('odd', 'even') }} {% endfor %}", ctx), "odd even odd ");
    EXPECT_EQ(render("{% for x in [1, 1, 2] %}{{ loop.changed(x) }} {% endfor %}"), "True False True ");
    EXPECT_EQ(render("{% for x in xs %}{{ loop.depth }}{{ loop.depth0 }}{% endfor %}", ctx), "101010");
    EXPECT_EQ(render("{% for x in xs %}{{ loop }}{% endfor %}", ctx), "<LoopContext 1/3><LoopContext 2/3><LoopContext 3/3>");
}

TEST(Statements, ForOverStringsDictsAndPairs) {
    EXPECT_EQ(render("{% for c in 'héllo' %}{{ c }}.{% endfor %}"), "h.é.l.l.o.");
    EXPECT_EQ(render("{% for k in {'b': 1, 'a': 2} %}{{ k }}{% endfor %}"), "ba");
    EXPECT_EQ(render("{% for k, v in {'b': 1, 'a': 2}.items() %}{{ k }}={{ v }} {% endfor %}"), "b=1 a=2 ");
    EXPECT_EQ(render("{% for a, b in [[1, 2], (3, 4), 'xy'] %}{{ a }}{{ b }}{% endfor %}"), "1234xy");
    EXPECT_EQ(render("{% for (a, b) in [[1, 2]] %}{{ b }}{{ a }}{% endfor %}"), "21");
    EXPECT_EQ(render("{% for x in nothing %}a{% endfor %}"), "");
}

TEST(Statements, ForWithFilterElseBreakContinue) {
    EXPECT_EQ(render("{% for x in range(10) if x is odd %}{{ x }}/{{ loop.index }}/{{ loop.length }} {% endfor %}"),
              "1/1/5 3/2/5 5/3/5 7/4/5 9/5/5 ");
    EXPECT_EQ(render("{% for x in [] %}a{% else %}empty{% endfor %}"), "empty");
    EXPECT_EQ(render("{% for x in [1, 2, 3, 4] %}{% if x == 3 %}{% break %}{% endif %}{{ x }}{% endfor %}"), "12");
    EXPECT_EQ(render("{% for x in [1, 2, 3] %}{% if x == 2 %}{% continue %}{% endif %}{{ x }}{% endfor %}"), "13");
    // Jinja's else runs when no iteration completed: one left by break or continue does not count.
    EXPECT_EQ(render("{% for x in [1] %}{% break %}{% else %}else{% endfor %}"), "else");
    EXPECT_EQ(render("{% for x in [1, 2] %}{% continue %}{% else %}else{% endfor %}"), "else");
    EXPECT_EQ(render("{% for x in [1, 2] %}{% if x == 2 %}{% break %}{% endif %}{% else %}else{% endfor %}"), "");
}

TEST(Statements, RecursiveLoops) {
    const json tree = json::parse(R"({"tree": [{"n": "a", "c": [{"n": "b", "c": []}, {"n": "c", "c": [{"n": "d", "c": []}]}]}]})");
    EXPECT_EQ(render("{% for i in tree recursive %}{{ i.n }}{{ loop.depth }}{% if i.c %}({{ loop(i.c) }}){% endif %}"
                     "{% endfor %}",
                     tree),
              "a1(b2c2(d3))");
}

TEST(Scoping, SetInsideALoopIsLocalToTheIteration) {
    EXPECT_EQ(render("{% set x = 'out' %}{% for i in [1, 2] %}{% set x = i %}{{ x }}{% endfor %}{{ x }}"), "12out");
    // each iteration starts again from the enclosing value
    EXPECT_EQ(render("{% for i in [1, 2] %}{% if i == 1 %}{% set y = 'set' %}{% endif %}[{{ y }}]{% endfor %}"), "[set][]");
    // a name read before it is set in the loop comes from the enclosing scope
    EXPECT_EQ(render("{% for i in [1, 2] %}{{ x }}{% set x = 'in' %}{{ x }}{% endfor %}{{ x }}", {{"x", "ctx"}}),
              "ctxinctxinctx");
}

TEST(Scoping, JinjaQuirksOfTheCompiledScopes) {
    // A name the template assigns at top level is undefined in a loop before that assignment runs,
    // even when the caller passed a value for it.
    EXPECT_EQ(render("{% for i in [1] %}[{{ foo }}]{% endfor %}{% set foo = 'late' %}", {{"foo", "ctx"}}), "[]");
    // ...whereas at top level it is read from the context until assigned.
    EXPECT_EQ(render("{{ foo }}{% set foo = 'late' %}{{ foo }}", {{"foo", "ctx"}}), "ctxlate");
    // A macro sees the enclosing variable's value at call time.
    EXPECT_EQ(render("{% set y = 1 %}{% macro m() %}{{ y }}{% endmacro %}{% set y = 2 %}{{ m() }}"), "2");
    // Rebinding a context variable is visible afterwards, also in loops.
    EXPECT_EQ(render("{% set messages = messages[1:] %}{% for m in messages %}{{ m.role }} {% endfor %}",
                     test::messages_context()),
              "user assistant ");
}

TEST(Scoping, NamespaceCarriesStateOutOfLoops) {
    EXPECT_EQ(render("{% set ns = namespace(found=false, count=0) %}{% for m in messages %}"
                     "{% if m.role == 'user' %}{% set ns.found = true %}{% endif %}{% set ns.count = ns.count + 1 %}"
                     "{% endfor %}{{ ns.found }} {{ ns.count }} {{ ns }}",
                     test::messages_context()),
              "True 3 <Namespace {'found': True, 'count': 3}>");
    EXPECT_EQ(render("{% set ns = namespace({'a': 1}, b=2) %}{{ ns.a }}{{ ns['b'] }}{{ ns.c is defined }}"), "12False");
}

TEST(Statements, SetBlocksFilterBlocksAndWith) {
    EXPECT_EQ(render("{% set greeting %}Hello {{ name }}!{% endset %}[{{ greeting }}]", {{"name", "Ann"}}), "[Hello Ann!]");
    EXPECT_EQ(render("{% set up | upper | trim %}  shout  {% endset %}[{{ up }}]"), "[SHOUT]");
    EXPECT_EQ(render("{% filter upper %}a{{ 'b' }}c{% endfilter %}"), "ABC");
    EXPECT_EQ(render("{% filter replace('a', 'o') %}banana{% endfilter %}"), "bonono");
    EXPECT_EQ(render("{% with a = 1, b = 2 %}{{ a + b }}{% endwith %}[{{ a }}]"), "3[]");
    EXPECT_EQ(render("{% set a, b = 1, 2 %}{{ b }}{{ a }}"), "21");
}

TEST(Statements, Macros) {
    EXPECT_EQ(render("{% macro greet(name, greeting='Hello') %}{{ greeting }}, {{ name }}!{% endmacro %}"
                     "{{ greet('Bob') }} {{ greet('Ann', greeting='Hi') }} {{ greet(name='Zed') }}"),
              "Hello, Bob! Hi, Ann! Hello, Zed!");
    EXPECT_EQ(render("{% macro m(a, b) %}[{{ a }}|{{ b }}]{% endmacro %}{{ m(1) }}"), "[1|]");  // missing → undefined
    EXPECT_EQ(render("{% macro m() %}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1, 2, x=3) }}"), "(1, 2){'x': 3}");
    EXPECT_EQ(render("{% macro m(a, b=a * 2) %}{{ b }}{% endmacro %}{{ m(4) }}"), "8");  // defaults see earlier params
    EXPECT_EQ(render("{% macro fact(n) %}{% if n <= 1 %}1{% else %}{{ n * fact(n - 1) | int }}{% endif %}{% endmacro %}"
                     "{{ fact(5) }}"),
              "120");
    EXPECT_EQ(render("{% macro m() %}{% endmacro %}{{ m }} {{ m.name }} {{ m.arguments }}"), "<Macro 'm'> m ()");
}

TEST(Statements, CallBlocksPassCaller) {
    EXPECT_EQ(render("{% macro wrap(tag) %}<{{ tag }}>{{ caller() }}</{{ tag }}>{% endmacro %}"
                     "{% call wrap('b') %}bold{% endcall %}"),
              "<b>bold</b>");
    EXPECT_EQ(render("{% macro each(xs) %}{% for x in xs %}{{ caller(x) }}{% endfor %}{% endmacro %}"
                     "{% call(item) each([1, 2]) %}<{{ item }}>{% endcall %}"),
              "<1><2>");
}

TEST(Statements, BlocksRenderInPlaceAndGenerationIsTransparent) {
    EXPECT_EQ(render("a{% block content %}b{% endblock %}c"), "abc");
    // an unscoped block sees the context and top-level variables, not loop variables
    EXPECT_EQ(render("{% set t = 'T' %}{% for x in [1] %}{% block b %}{{ t }}[{{ x }}]{% endblock %}{% endfor %}"), "T[]");
    EXPECT_EQ(render("{% for x in [1] %}{% block b scoped %}[{{ x }}]{% endblock %}{% endfor %}"), "[1]");
    // transformers' {% generation %} marks assistant text and renders it unchanged
    EXPECT_EQ(render("{% generation %}answer {{ 1 + 1 }}{% endgeneration %}"), "answer 2");
}

TEST(Expressions, LiteralsAndEscapes) {
    EXPECT_EQ(render("{{ 'a\\nb' }}|{{ \"it's\" }}|{{ 'a' 'b' }}|{{ '\\u00e9\\U0001F600\\x41\\101' }}"),
              "a\nb|it's|ab|é😀AA");
    EXPECT_EQ(render("{{ 'line\\\nnext' }}"), "linenext");     // backslash-newline continues the line
    EXPECT_EQ(render("{{ '\\d\\q' }}"), "\\d\\q");                 // unknown escapes are kept
    EXPECT_EQ(render("{{ '\\é' }}"), "\\xe9");                    // Jinja's backslashreplace quirk
    EXPECT_EQ(render("{{ 'a\nb' }}"), "a\nb");                    // raw newline inside a literal
    EXPECT_EQ(render("{{ 0x1F }} {{ 0o17 }} {{ 0b101 }} {{ 1_000 }} {{ 1.5e3 }} {{ 1E2 }} {{ 2.0 }}"),
              "31 15 5 1000 1500.0 100.0 2.0");
    EXPECT_EQ(render("{{ true }} {{ True }} {{ false }} {{ none }} {{ None }}"), "True True False None None");
    EXPECT_EQ(render("{{ [1, 'a', none] }} {{ (1,) }} {{ () }} {{ {'a': [1, 2]} }} {{ 1, 2 }}"),
              "[1, 'a', None] (1,) () {'a': [1, 2]} (1, 2)");
}

TEST(Expressions, ArithmeticFollowsPython) {
    EXPECT_EQ(render("{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 7 / 2 }} {{ 10 / 5 }} {{ 2 ** 10 }} {{ 2 ** -1 }}"),
              "3 -4 1 2 3.5 2.0 1024 0.5");
    EXPECT_EQ(render("{{ 2 ** 3 ** 2 }} {{ -2 ** 2 }} {{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }} {{ 7.5 // 2 }} {{ -7.5 % 2 }}"),
              "64 4 7 9 3.0 0.5");  // Jinja's ** is left-associative and binds looser than unary minus
    EXPECT_EQ(render("{{ 0.1 + 0.2 }} {{ 1e16 }} {{ 1e15 }} {{ 1e-5 }} {{ 0.0001 }} {{ -0.0 }} {{ 1 / 3 }}"),
              "0.30000000000000004 1e+16 1000000000000000.0 1e-05 0.0001 -0.0 0.3333333333333333");
    EXPECT_EQ(render("{{ 'ab' * 3 }} {{ 2 * [0] }} {{ [1] + [2] }} {{ (1,) + (2,) }} {{ true + true }}"),
              "ababab [0, 0] [1, 2] (1, 2) 2");
    EXPECT_EQ(render("{{ 'a' ~ 1 ~ none ~ true ~ nope }}"), "a1NoneTrue");
}

TEST(Expressions, ComparisonsMembershipAndLogic) {
    EXPECT_EQ(render("{{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }} {{ 1 == 1.0 }} {{ true == 1 }} {{ 'a' < 'b' }} {{ [1, 2] < [1, 3] }}"),
              "True False True True True True");
    EXPECT_EQ(render("{{ (1 == 1) != (2 == 3) }} {{ {'a': 1, 'b': 2} == {'b': 2, 'a': 1} }} {{ [1] == (1,) }} {{ nope == nope }}"),
              "True True False True");
    EXPECT_EQ(render("{{ 'ell' in 'hello' }} {{ 2 in [1, 2] }} {{ 'role' in m }} {{ 'x' not in m }} {{ 1 in nope }}",
                     {{"m", {{"role", "user"}}}}),
              "True True True True False");
    EXPECT_EQ(render("{{ 0 or 'b' }} {{ 'a' and 'b' }} {{ [] and 1 }} {{ not 0 }} {{ not 'x' }}"), "b b [] True False");
    EXPECT_EQ(render("{{ 'yes' if 1 else 'no' }}|{{ 'yes' if 0 }}|{{ 'a' if 0 else 'b' if 0 else 'c' }}"), "yes||c");
}

TEST(Expressions, SubscriptsSlicesAndAttributes) {
    const json ctx = test::messages_context();
    EXPECT_EQ(render("{{ messages[0].role }} {{ messages[0]['role'] }} {{ messages.0.role }} {{ messages[-1].role }}", ctx),
              "system system system assistant");
    EXPECT_EQ(render("{{ messages[2].tool_calls[0].function.arguments.city }}", ctx), "Zürich");
    EXPECT_EQ(render("{{ [1, 2, 3, 4, 5][1:3] }} {{ [1, 2, 3, 4, 5][::2] }} {{ [1, 2, 3][::-1] }} {{ [1, 2, 3][-2:] }} "
                     "{{ [1, 2][5:] }}"),
              "[2, 3] [1, 3, 5] [3, 2, 1] [2, 3] []");
    EXPECT_EQ(render("{{ 'héllo'[1] }} {{ 'héllo'[1:3] }} {{ 'hello'[::-1] }} {{ 'abc'[10] is defined }}"), "é él olleh False");
    EXPECT_EQ(render("{{ range(10)[2:8:3] }} {{ (1, 2, 3)[1:] }}"), "range(2, 8, 3) (2, 3)");
    // x.name prefers Python attributes (dict methods), x['name'] prefers keys
    EXPECT_EQ(render("{{ d['items'] }} {{ d.get('items') }} {{ d.items() | list }}", {{"d", {{"items", 5}}}}),
              "5 5 [('items', 5)]");
    EXPECT_EQ(render("[{{ messages[0].nope }}][{{ none.x }}][{{ 3.x }}]", ctx), "[][][]");
}

TEST(Expressions, UndefinedIsLenient) {
    EXPECT_EQ(render("[{{ nope }}][{{ nope is defined }}][{{ nope | default('d') }}][{{ nope | length }}]"
                     "[{{ nope | list }}][{{ nope | string }}][{{ nope is iterable }}][{{ nope is sequence }}]"),
              "[][False][d][0][[]][][True][True]");
    EXPECT_EQ(render("{% for x in nope %}a{% else %}empty{% endfor %}{{ nope | join(',') }}{{ nope | upper }}"), "empty");
}

TEST(Expressions, GlobalsAndStrftime) {
    EXPECT_EQ(render("{{ range(3) | list }} {{ range(1, 10, 4) | list }} {{ range(3) }} {{ range(5, 0, -2) | list }}"),
              "[0, 1, 2] [1, 5, 9] range(0, 3) [5, 3, 1]");
    EXPECT_EQ(render("{{ dict(a=1, b=2) }} {{ dict([('x', 1)], y=2) }}"), "{'a': 1, 'b': 2} {'x': 1, 'y': 2}");
    EXPECT_EQ(render("{% set c = cycler('a', 'b') %}{{ c.next() }}{{ c.next() }}{{ c.next() }}{{ c.current }}"
                     "{% set j = joiner('; ') %}{% for i in [1, 2, 3] %}{{ j() }}{{ i }}{% endfor %}"),
              "abab1; 2; 3");
    EXPECT_EQ(render("{{ strftime_now('%d %b %Y') }}|{{ strftime_now('%Y-%m-%d %H:%M:%S %A %j %f%z') }}"),
              "26 Jul 2024|2024-07-26 00:00:00 Friday 208 000000");
    ChatTemplateOptions other;
    other.now = std::tm{};
    other.now.tm_year = 125;
    other.now.tm_mon = 0;
    other.now.tm_mday = 2;
    EXPECT_EQ(ChatTemplate::parse("{{ strftime_now('%d %B %Y') }}").render(json::object(), other), "02 January 2025");
}

}  // namespace
}  // namespace folio
