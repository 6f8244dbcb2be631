// Every filter, with the output Jinja2 3.1 gives (tojson is transformers' json.dumps override).
#include <gtest/gtest.h>

#include "tests/engine/chat/render_helpers.h"

namespace folio {
namespace {

using test::json;
using test::render;
using test::render_error;

struct Case {
    const char* source;
    const char* expected;
};

class Filters : public ::testing::TestWithParam<Case> {};

TEST_P(Filters, RenderAsJinja) {
    const json ctx = json::parse(R"({
        "users": [{"name": "bob", "city": "NY", "age": 30}, {"name": "Ann", "city": "ca", "age": 25},
                  {"name": "cid", "city": "CA", "age": 30}],
        "text": "  Hello World\u00a0 ",
        "d": {"b": 2, "a": 1, "C": 3}
    })");
    EXPECT_EQ(render(GetParam().source, ctx), GetParam().expected) << GetParam().source;
}

const Case kCases[] = {
    // strings
    {"{{ 'hello WORLD' | upper }}|{{ 'Hello' | lower }}|{{ 'hELLO wORLD' | capitalize }}", "HELLO WORLD|hello|Hello world"},
    {"{{ 'hello world-wide (x)' | title }}|{{ \"it's\" | title }}", "Hello World-Wide (X)|It's"},
    {"[{{ text | trim }}]|[{{ 'xxhixx' | trim('x') }}]|[{{ '\u3000a\u3000' | trim }}]", "[Hello World]|[hi]|[a]"},
    {"{{ 'banana' | replace('a', 'o') }}|{{ 'banana' | replace('a', 'o', 2) }}|{{ 'abc' | replace('', '.') }}",
     "bonono|bonona|.a.b.c."},
    {"{{ 'a\nb\n\nc' | indent }}|{{ 'a\nb' | indent(2, true) }}|{{ 'a\n\nb' | indent(1, blank=true) }}|{{ 'x' | indent('> ', first=true) }}",
     "a\n    b\n\n    c|  a\n  b|a\n \n b|> x"},
    {"{{ 'one two  three' | wordcount }}|{{ 'héllo wörld' | wordcount }}|{{ '' | wordcount }}", "3|2|0"},
    {"[{{ 'ab' | center(6) }}]|[{{ 'abc' | center(2) }}]", "[  ab  ]|[abc]"},
    {"{{ 'hello world foo' | truncate(9) }}|{{ 'hello world' | truncate(11) }}|{{ 'abcdefghij' | truncate(5, true, '...', 0) }}|{{ 'a b c d e f g' | truncate(8, false, '..', 0) }}",
     "hello...|hello world|ab...|a b c.."},
    {"{{ '%s-%03d-%.2f' | format('a', 7, 3.14159) }}|{{ '%(x)s!' | format(x='y') }}", "a-007-3.14|y!"},
    {"{{ '<a href=\"x\">&\\'</a>' | e }}|{{ '<b>' | escape }}|{{ 5 | e }}", "&lt;a href=&#34;x&#34;&gt;&amp;&#39;&lt;/a&gt;|&lt;b&gt;|5"},
    {"{{ '<b>' | safe }}|{{ 3 | string }}|{{ none | string }}|{{ {'a': [1]} | string }}", "<b>|3|None|{'a': [1]}"},
    // Markup (what |safe and |escape return): + and % escape the other side, |e leaves it alone
    {"{% set x = \"<b>'\" %}{{ x|safe + x }}|{{ x + x|safe }}|{{ x|e|e }}|{{ x|forceescape|forceescape }}|{{ (x|safe) ~ x }}",
     "<b>'&lt;b&gt;&#39;|&lt;b&gt;&#39;<b>'|&lt;b&gt;&#39;|&amp;lt;b&amp;gt;&amp;#39;|<b>'<b>'"},
    {"{% set x = \"<b>'\" %}{{ ('%s!'|safe) % x }}|{{ (x|safe).upper() }}|{{ [x|safe] }}|{{ x|safe|tojson }}|{{ ('|'|safe).join([x, 'y']) }}",
     "&lt;b&gt;&#39;!|<B>'|[Markup(\"<b>'\")]|\"<b>'\"|&lt;b&gt;&#39;|y"},
    {"{{ 'abc' | reverse }}|{{ [1, 2, 3] | reverse | list }}|{{ 'héllo' | length }}|{{ 'abc' | count }}", "cba|[3, 2, 1]|5|3"},
    // numbers
    {"{{ -3 | abs }}|{{ -2.5 | abs }}|{{ 3.7 | int }}|{{ '42' | int }}|{{ '42.9' | int }}|{{ 'x' | int }}|{{ 'x' | int(7) }}",
     "3|2.5|3|42|42|0|7"},
    {"{{ '0x1A' | int(0, 16) }}|{{ '0b101' | int(base=0) }}|{{ ' 1_000 ' | int }}|{{ true | int }}|{{ none | int }}",
     "26|5|1000|1|0"},
    {"{{ '3.5' | float }}|{{ 'x' | float }}|{{ 'x' | float(1.5) }}|{{ 2 | float }}|{{ ' 1e3 ' | float }}|{{ 'inf' | float }}",
     "3.5|0.0|1.5|2.0|1000.0|inf"},
    {"{{ 2.5 | round }}|{{ 3.5 | round }}|{{ 2.675 | round(2) }}|{{ 2.1 | round(0, 'ceil') }}|{{ 2.9 | round(1, 'floor') }}|{{ 5 | round }}",
     "2.0|4.0|2.67|3.0|2.9|5"},
    {"{{ 1234 | round(-2) }}|{{ 1250 | round(-2) }}|{{ 1350 | round(-2) }}", "1200|1200|1400"},
    {"{{ 1 | filesizeformat }}|{{ 999 | filesizeformat }}|{{ 12345 | filesizeformat }}|{{ 2048 | filesizeformat(true) }}|{{ 3000000 | filesizeformat }}",
     "1 Byte|999 Bytes|12.3 kB|2.0 KiB|3.0 MB"},
    // sequences
    {"{{ [3, 1, 2] | sort }}|{{ [3, 1, 2] | sort(reverse=true) }}|{{ ['b', 'A', 'c'] | sort }}|{{ ['b', 'A', 'c'] | sort(case_sensitive=true) }}",
     "[1, 2, 3]|[3, 2, 1]|['A', 'b', 'c']|['A', 'b', 'c']"},
    {"{{ users | sort(attribute='age') | map(attribute='name') | join(',') }}|{{ users | sort(attribute='age,name') | map(attribute='name') | join(',') }}",
     "Ann,bob,cid|Ann,bob,cid"},
    {"{{ users | sort(attribute='age', reverse=true) | map(attribute='name') | join(',') }}", "bob,cid,Ann"},
    {"{{ [1, 2, 2, 3, 1] | unique | list }}|{{ ['a', 'A', 'b'] | unique | list }}|{{ ['a', 'A'] | unique(true) | list }}|{{ users | unique(attribute='city') | map(attribute='name') | list }}",
     "[1, 2, 3]|['a', 'b']|['a', 'A']|['bob', 'Ann']"},
    {"{{ [1, 2, 3] | first }}|{{ [1, 2, 3] | last }}|{{ 'abc' | first }}|{{ [] | first is defined }}|{{ d | first }}", "1|3|a|False|b"},
    {"{{ [1, 2, 3] | sum }}|{{ [1, 2] | sum(start=10) }}|{{ users | sum(attribute='age') }}|{{ [[1], [2]] | sum(start=[]) }}|{{ [0.5, 1] | sum }}",
     "6|13|85|[1, 2]|1.5"},
    {"{{ [3, 1, 2] | max }}|{{ [3, 1, 2] | min }}|{{ ['b', 'A', 'c'] | max }}|{{ ['b', 'A', 'c'] | max(case_sensitive=true) }}|{{ users | min(attribute='age') }}|{{ [] | max is defined }}",
     "3|1|c|c|{'name': 'Ann', 'city': 'ca', 'age': 25}|False"},
    {"{{ [1, 2, 3] | join }}|{{ [1, 2, 3] | join(', ') }}|{{ users | join('/', attribute='name') }}|{{ ['a', none] | join('-') }}",
     "123|1, 2, 3|bob/Ann/cid|a-None"},
    {"{{ 'ab' | list }}|{{ d | list }}|{{ (1, 2) | list }}|{{ range(3) | list }}", "['a', 'b']|['b', 'a', 'C']|[1, 2]|[0, 1, 2]"},
    {"{{ [1, 2, 3, 4, 5] | batch(2) | list }}|{{ [1, 2, 3] | batch(2, 'x') | list }}",
     "[[1, 2], [3, 4], [5]]|[[1, 2], [3, 'x']]"},
    {"{{ [1, 2, 3, 4, 5] | slice(2) | list }}|{{ [1, 2, 3, 4] | slice(3, 0) | list }}",
     "[[1, 2, 3], [4, 5]]|[[1, 2], [3, 0], [4, 0]]"},
    {"{{ [1, 2, 3, 4] | select('even') | list }}|{{ [1, 2, 3, 4] | reject('odd') | list }}|{{ [0, 1, '', 'a', none] | select | list }}|{{ [0, 1] | reject | list }}",
     "[2, 4]|[2, 4]|[1, 'a']|[0]"},
    {"{{ [1, 5, 10] | select('>', 3) | list }}|{{ [1, 5, 10] | select('divisibleby', 5) | list }}|{{ ['a', 1] | select('string') | list }}",
     "[5, 10]|[5, 10]|['a']"},
    {"{{ users | selectattr('city', 'equalto', 'NY') | map(attribute='name') | list }}|{{ users | rejectattr('age', 'eq', 30) | map(attribute='name') | list }}|{{ users | selectattr('nope') | list }}",
     "['bob']|['Ann']|[]"},
    {"{{ [1, 2] | map('string') | list }}|{{ ['a', 'b'] | map('upper') | join }}|{{ users | map(attribute='nope', default='?') | join }}|{{ [[1, 2], [3]] | map('length') | list }}",
     "['1', '2']|AB|???|[2, 1]"},
    {"{{ [1, 2] | select | length if false else 'lazy' }}|{{ ([1, 2] | select) is iterable }}|{{ ([1, 2] | select) is sequence }}",
     "lazy|True|False"},
    {"{{ [1, 2] | select }}", "<generator object select_or_reject>"},
    // mappings
    {"{{ d | dictsort }}|{{ d | dictsort(true) }}|{{ d | dictsort(by='value', reverse=true) }}",
     "[('a', 1), ('b', 2), ('C', 3)]|[('C', 3), ('a', 1), ('b', 2)]|[('C', 3), ('b', 2), ('a', 1)]"},
    {"{{ d | items | list }}|{% for k, v in d | items %}{{ k }}{{ v }}{% endfor %}|{{ nope | items | list }}",
     "[('b', 2), ('a', 1), ('C', 3)]|b2a1C3|[]"},
    {"{% for city, people in users | groupby('city') %}{{ city }}:{{ people | map(attribute='name') | join(',') }};{% endfor %}",
     "ca:Ann,cid;NY:bob;"},
    {"{% for g in users | groupby('city', case_sensitive=true) %}{{ g.grouper }}:{{ g.list | length }};{% endfor %}|{{ users | groupby('age') | map(attribute='grouper') | list }}",
     "CA:1;NY:1;ca:1;|[25, 30]"},
    {"{{ d | length }}|{{ d | attr('keys') is callable }}|{{ d | attr('b') is defined }}", "3|True|False"},
    // default
    {"{{ nope | default('d') }}|{{ '' | default('d') }}|{{ '' | default('d', true) }}|{{ none | default('d') }}|{{ nope | d }}",
     "d||d|None|"},
    // tojson: json.dumps(x, ensure_ascii=False, indent=..., separators=..., sort_keys=...)
    {"{{ {'a': [1, 2.5, none, true, 'é\"\\n\\t'], 'b': {}} | tojson }}", "{\"a\": [1, 2.5, null, true, \"é\\\"\\n\\t\"], \"b\": {}}"},
    {"{{ {'b': 1, 'a': {'c': [1, 2]}} | tojson(indent=2) }}", "{\n  \"b\": 1,\n  \"a\": {\n    \"c\": [\n      1,\n      2\n    ]\n  }\n}"},
    {"{{ [] | tojson(indent=2) }}|{{ {} | tojson(indent=2) }}|{{ [1, [2]] | tojson(indent=0) }}", "[]|{}|[\n1,\n[\n2\n]\n]"},
    {"{{ {'b': 1, 'a': 2} | tojson(sort_keys=true) }}|{{ {'a': 1, 'b': [2]} | tojson(separators=(',', ':')) }}",
     "{\"a\": 2, \"b\": 1}|{\"a\":1,\"b\":[2]}"},
    {"{{ '中文😀' | tojson }}|{{ '中文😀' | tojson(ensure_ascii=true) }}|{{ 1.0 | tojson }}|{{ 1e100 | tojson }}|{{ (1, 2) | tojson }}",
     "\"中文😀\"|\"\\u4e2d\\u6587\\ud83d\\ude00\"|1.0|1e+100|[1, 2]"},
    {"{{ {1: 'a', none: 'b', true: 'c', 2.5: 'd'} | tojson }}", "{\"1\": \"c\", \"null\": \"b\", \"2.5\": \"d\"}"},
    {"{{ ('\\x01\\x7f' ~ '<&>') | tojson }}", "\"\\u0001\x7f<&>\""},
};

INSTANTIATE_TEST_SUITE_P(All, Filters, ::testing::ValuesIn(kCases));

TEST(FilterErrors, AsJinjaReportsThem) {
    EXPECT_EQ(render_error("{{ 5 | length }}"), "TypeError: object of type 'int' has no len()");
    EXPECT_EQ(render_error("{{ ([1] | select) | length }}"), "TypeError: object of type 'generator' has no len()");
    EXPECT_EQ(render_error("{{ 'a' | abs }}"), "TypeError: bad operand type for abs(): 'str'");
    EXPECT_EQ(render_error("{{ [1, 'a'] | sort }}"), "TypeError: '<' not supported between instances of 'str' and 'int'");
    EXPECT_EQ(render_error("{{ 3 | dictsort }}"), "AttributeError: 'int' object has no attribute 'items'");
    EXPECT_EQ(render_error("{{ d | dictsort(by='x') }}", {{"d", json::object()}}),
              "FilterArgumentError: You can only sort by either \"key\" or \"value\"");
    EXPECT_EQ(render_error("{{ 2.5 | round(method='up') }}"), "FilterArgumentError: method must be common, ceil or floor");
    EXPECT_EQ(render_error("{{ [1] | map }}"), "FilterArgumentError: map requires a filter argument");
    EXPECT_EQ(render_error("{{ [1] | map('nofilter') | list }}"), "TemplateRuntimeError: No filter named 'nofilter'.");
    EXPECT_EQ(render_error("{{ [1] | select('notest') | list }}"), "TemplateRuntimeError: No test named 'notest'.");
    EXPECT_EQ(render_error("{{ 'x' | truncate(1) }}"), "AssertionError: expected length >= 3, got 1");
    EXPECT_EQ(render_error("{{ '%d' | format('x') }}"), "TypeError: %d format: a real number is required, not str");
    EXPECT_EQ(render_error("{{ 'x' | format(1, a=2) }}"),
              "FilterArgumentError: can't handle positional and keyword arguments at the same time");
    EXPECT_EQ(render_error("{{ [[1]] | unique | list }}"), "TypeError: unhashable type: 'list'");
    EXPECT_EQ(render_error("{{ 'x' | indent(nope=1) }}"), "TypeError: do_indent() got an unexpected keyword argument 'nope'");
    EXPECT_EQ(render_error("{{ [1] | last(2) }}"), "TypeError: do_last() takes at most 0 arguments (1 given)");
    EXPECT_EQ(render_error("{{ [1] | sum(start='') }}"), "TypeError: sum() can't sum strings [use ''.join(seq) instead]");
    EXPECT_EQ(render_error("{{ ['a'] | sum }}"), "TypeError: unsupported operand type(s) for +: 'int' and 'str'");
    EXPECT_EQ(render_error("{{ 3 | items }}"), "TypeError: Can only get item pairs from a mapping.");
}

}  // namespace
}  // namespace folio
