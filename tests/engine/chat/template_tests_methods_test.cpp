// Every `is` test, and the Python methods templates call on strings, dicts and lists.
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

class TestsAndMethods : public ::testing::TestWithParam<Case> {};

TEST_P(TestsAndMethods, RenderAsJinja) {
    EXPECT_EQ(render(GetParam().source, test::messages_context()), GetParam().expected) << GetParam().source;
}

const Case kCases[] = {
    // tests
    {"{{ x is defined }}{{ x is undefined }}{{ messages is defined }}{{ messages[0].nope is defined }}", "FalseTrueTrueFalse"},
    {"{{ none is none }}{{ 0 is none }}{{ tools is none }}{{ nope is none }}", "TrueFalseTrueFalse"},
    {"{{ 'a' is string }}{{ 1 is string }}{{ 1 is number }}{{ 1.5 is number }}{{ true is number }}{{ '1' is number }}",
     "TrueFalseTrueTrueTrueFalse"},
    {"{{ 1 is integer }}{{ true is integer }}{{ 1.0 is integer }}{{ 1.0 is float }}{{ 1 is float }}", "TrueFalseFalseTrueFalse"},
    {"{{ true is boolean }}{{ 1 is boolean }}{{ true is true }}{{ 1 is true }}{{ false is false }}{{ 0 is false }}",
     "TrueFalseTrueFalseTrueFalse"},
    {"{{ [] is iterable }}{{ 'a' is iterable }}{{ {} is iterable }}{{ 1 is iterable }}{{ none is iterable }}{{ nope is iterable }}",
     "TrueTrueTrueFalseFalseTrue"},
    {"{{ {} is mapping }}{{ [] is mapping }}{{ messages[0] is mapping }}{{ namespace() is mapping }}", "TrueFalseTrueFalse"},
    {"{{ [] is sequence }}{{ 'a' is sequence }}{{ {} is sequence }}{{ 1 is sequence }}{{ range(2) is sequence }}",
     "TrueTrueTrueFalseTrue"},
    {"{{ 3 is odd }}{{ 3 is even }}{{ 4 is even }}{{ 9 is divisibleby 3 }}{{ 9 is divisibleby(4) }}{{ -3 is odd }}",
     "TrueFalseTrueTrueFalseTrue"},
    {"{{ 'ab' is lower }}{{ 'aB' is lower }}{{ 'AB' is upper }}{{ '1' is upper }}", "TrueFalseTrueFalse"},
    {"{{ 1 is eq 1 }}{{ 1 is equalto(2) }}{{ 1 is ne 2 }}{{ 2 is gt 1 }}{{ 2 is ge 2 }}{{ 1 is lt 2 }}{{ 3 is le 2 }}"
     "{{ 2 is greaterthan 1 }}{{ 1 is lessthan 1 }}{{ [1, 2] | select('==', 1) | list }}",
     "TrueFalseTrueTrueTrueTrueFalseTrueFalse[1]"},
    {"{{ 2 is in [1, 2] }}{{ 'x' is in 'abc' }}{{ 'role' is in messages[0] }}", "TrueFalseTrue"},
    {"{{ none is sameas none }}{{ 1 is sameas 1 }}{{ [] is sameas [] }}{{ messages is sameas messages }}", "TrueTrueFalseTrue"},
    {"{{ raise_exception is callable }}{{ 'a'.upper is callable }}{{ 1 is callable }}{{ namespace is callable }}",
     "TrueTrueFalseTrue"},
    {"{{ 'length' is filter }}{{ 'urlize' is filter }}{{ 'nope' is filter }}{{ 'odd' is test }}{{ 'nope' is test }}",
     "TrueTrueFalseTrueFalse"},
    {"{{ 'a' is not string }}{{ not 'a' is string }}{{ 1 is not defined }}", "FalseFalseFalse"},
    {"{{ 'x' is escaped }}{{ 'x' | safe is escaped }}{{ 'x' | e is escaped }}{{ (('x' | e) ~ '') is escaped }}", "FalseTrueTrueFalse"},
    // str methods
    {"[{{ '  a b  '.strip() }}][{{ '  a  '.lstrip() }}][{{ '  a  '.rstrip() }}][{{ 'xxaxx'.strip('x') }}][{{ '\u00a0a\u3000'.strip() }}]",
     "[a b][a  ][  a][a][a]"},
    {"{{ 'a,b,,c'.split(',') }}{{ ' a  b '.split() }}{{ 'a b c'.split(' ', 1) }}{{ 'a b c'.rsplit(' ', 1) }}{{ 'a  b'.split(maxsplit=0) }}",
     "['a', 'b', '', 'c']['a', 'b']['a', 'b c']['a b', 'c']['a  b']"},
    {"{{ 'a\\nb\\r\\nc'.splitlines() }}{{ 'a\\nb'.splitlines(true) }}", "['a', 'b', 'c']['a\\n', 'b']"},
    {"{{ 'abc'.startswith('ab') }}{{ 'abc'.startswith(('x', 'a')) }}{{ 'abc'.endswith('bc') }}{{ 'abc'.startswith('b', 1) }}",
     "TrueTrueTrueTrue"},
    {"{{ 'Hello World'.upper() }} {{ 'Hello World'.lower() }} {{ \"they're bill's\".title() }} {{ 'hELLO'.capitalize() }} {{ 'aBc'.swapcase() }}",
     "HELLO WORLD hello world They'Re Bill'S Hello AbC"},
    {"{{ 'hello'.replace('l', 'L') }}{{ 'hello'.replace('l', 'L', 1) }}{{ 'ab'.replace('', '-') }}", "heLLoheLlo-a-b-"},
    {"{{ 'abcb'.find('b') }}{{ 'abcb'.rfind('b') }}{{ 'abc'.find('z') }}{{ 'abcb'.index('c') }}{{ 'aaa'.count('a') }}{{ 'abcb'.count('b', 2) }}",
     "13-1231"},
    {"{{ '-'.join(['a', 'b', 'c']) }} {{ ', '.join(messages | map(attribute='role')) }}", "a-b-c system, user, assistant"},
    {"[{{ 'ab'.center(6, '*') }}][{{ 'ab'.ljust(4) }}][{{ 'ab'.rjust(4, '.') }}][{{ '42'.zfill(5) }}][{{ '-4'.zfill(4) }}]",
     "[**ab**][ab  ][..ab][00042][-004]"},
    {"{{ 'a=b=c'.partition('=') }}{{ 'a=b=c'.rpartition('=') }}{{ 'abc'.partition('x') }}", "('a', '=', 'b=c')('a=b', '=', 'c')('abc', '', '')"},
    {"{{ 'prefix_x'.removeprefix('prefix_') }}{{ 'x.txt'.removesuffix('.txt') }}{{ 'a\\tb'.expandtabs(4) }}", "xxa   b"},
    {"{{ 'abc'.isalpha() }}{{ 'a1'.isalnum() }}{{ '12'.isdigit() }}{{ '1.5'.isdigit() }}{{ ' '.isspace() }}{{ 'Ab'.istitle() }}"
     "{{ 'x_1'.isidentifier() }}{{ 'ab'.isascii() }}{{ 'é'.isascii() }}",
     "TrueTrueTrueFalseTrueTrueTrueTrueFalse"},
    {"{{ '{} and {}'.format(1, 'b') }}|{{ '{0}{1}{0}'.format('a', 'b') }}|{{ '{name}!'.format(name='x') }}|{{ '{:>5}|{:<5}|{:^5}'.format('a', 'b', 'c') }}",
     "1 and b|aba|x!|    a|b    |  c  "},
    {"{{ '{:.2f}'.format(3.14159) }}|{{ '{:,}'.format(1234567) }}|{{ '{:08.3f}'.format(-3.5) }}|{{ '{:x}{:X}{:o}{:b}'.format(255, 255, 8, 5) }}|{{ '{:.1%}'.format(0.25) }}",
     "3.14|1,234,567|-003.500|ffFF10101|25.0%"},
    {"{{ '{0[role]} {0.content}'.format(messages[0]) }}|{{ '{!r}'.format('a') }}|{{ '{{}}{}'.format(1) }}|{{ '{:+d}'.format(5) }}",
     "system Be brief.|'a'|{}1|+5"},
    {"{{ '{a}-{b}'.format_map({'a': 1, 'b': 2}) }}", "1-2"},
    // dict, list, tuple, number methods
    {"{{ messages[0].items() | list }}{{ messages[0].keys() | list }}{{ messages[0].values() | list }}",
     "[('role', 'system'), ('content', 'Be brief.')]['role', 'content']['system', 'Be brief.']"},
    {"{{ messages[0].get('role') }}|{{ messages[0].get('nope') }}|{{ messages[0].get('nope', 'dflt') }}|{{ {'a': 1}.copy() }}",
     "system|None|dflt|{'a': 1}"},
    {"{{ {'a': 1}.items() }}|{{ {'a': 1}.keys() }}|{{ {'a': 1}.values() }}",
     "dict_items([('a', 1)])|dict_keys(['a'])|dict_values([1])"},
    {"{{ [1, 2, 1].count(1) }}{{ [1, 2, 1].index(2) }}{{ (1, 2).index(2) }}{{ [1].copy() }}", "211[1]"},
    {"{{ (5).bit_length() }} {{ 2.0.is_integer() }} {{ 2.5.is_integer() }} {{ (3).real }} {{ 1.5.imag }}", "3 True False 3 0.0"},
};

INSTANTIATE_TEST_SUITE_P(All, TestsAndMethods, ::testing::ValuesIn(kCases));

TEST(MethodErrors, AsPythonReportsThem) {
    EXPECT_EQ(render_error("{{ 'abc'.index('z') }}"), "ValueError: substring not found");
    EXPECT_EQ(render_error("{{ [1].index(5) }}"), "ValueError: 5 is not in list");
    EXPECT_EQ(render_error("{{ 'a'.split('') }}"), "ValueError: empty separator");
    EXPECT_EQ(render_error("{{ 'a'.startswith(1) }}"), "TypeError: startswith first arg must be str or a tuple of str, not int");
    EXPECT_EQ(render_error("{{ '-'.join([1, 2]) }}"), "TypeError: sequence item 0: expected str instance, int found");
    EXPECT_EQ(render_error("{{ 'a'.strip(chars='a') }}"), "TypeError: str.strip() takes no keyword arguments");
    EXPECT_EQ(render_error("{{ '{} {}'.format(1) }}"), "IndexError: Replacement index 1 out of range for positional args tuple");
    EXPECT_EQ(render_error("{{ '{x}'.format(y=1) }}"), "KeyError: 'x'");
    EXPECT_EQ(render_error("{{ 'x'.encode() }}"), "TemplateRuntimeError: str.encode() is not supported by this template engine");
    EXPECT_EQ(render_error("{{ 1 is divisibleby }}"), "TypeError: test_divisibleby() missing 1 required positional argument: 'num'");
    EXPECT_EQ(render_error("{{ 'a' is odd }}"), "TypeError: not all arguments converted during string formatting");
}

}  // namespace
}  // namespace folio
