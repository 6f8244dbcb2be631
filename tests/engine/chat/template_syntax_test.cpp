// Templates that cannot be parsed: the error names the line and column (1-based, in code points) and
// says what is wrong, as Jinja2's parser and compiler say it.
#include <gtest/gtest.h>

#include "engine/chat/chat_template.h"

namespace folio {
namespace {

struct Broken {
    const char* source;
    int line;
    int column;
    const char* detail;
};

const Broken kBroken[] = {
    {"{% if x %}", 1, 11,
     "Unexpected end of template. Jinja was looking for the following tags: 'elif' or 'else' or 'endif'. The "
     "innermost block that needs to be closed is 'if'."},
    {"Hello\n{{ name }\n", 2, 9, "unexpected '}'"},
    {"{% for m in messages %}\n  {{ m.content }\n{% endfor %}", 2, 16, "unexpected '}'"},
    {"{{ 1 +* 2 }}", 1, 7, "unexpected '*'"},
    {"{% if x %}a{% endfor %}", 1, 15,
     "Encountered unknown tag 'endfor'. Jinja was looking for the following tags: 'elif' or 'else' or 'endif'. The "
     "innermost block that needs to be closed is 'if'."},
    {"{% if true %}\n{% else %}\n{% else %}\n{% endif %}", 3, 4,
     "Encountered unknown tag 'else'. Jinja was looking for the following tags: 'endif'. The innermost block that "
     "needs to be closed is 'if'."},
    {"{% for x in y %}{% endif %}{% endfor %}", 1, 20,
     "Encountered unknown tag 'endif'. Jinja was looking for the following tags: 'endfor' or 'else'. The innermost "
     "block that needs to be closed is 'for'."},
    {"{{ 'unterminated }}", 1, 4, "unexpected char \"'\" at 3"},
    {"line one\n{% set x = %}", 2, 12, "Expected an expression, got 'end of statement block'"},
    {"{% macro m(a=1, b) %}{% endmacro %}", 1, 17, "non-default argument follows default argument"},
    {"{{ x | nosuchfilter }}", 1, 8, "No filter named 'nosuchfilter'."},
    {"{{ x is nosuchtest }}", 1, 6, "No test named 'nosuchtest'."},
    {"{% for x in y %}{% break %}{% endfor %}{% continue %}", 1, 43, "'continue' not properly in loop"},
    {"{% break %}", 1, 4, "'break' outside loop"},
    {"{% for loop in x %}{% endfor %}", 1, 8, "Can't assign to special loop variable in for-loop target"},
    {"a\r\nb\r\n{% if %}", 3, 7, "Expected an expression, got 'end of statement block'"},
    {"{{ 'ok' }}\n{# not closed", 2, 3, "Missing end of comment tag"},
    {"ab\xff", 1, 3, "the template is not valid UTF-8 (byte 0xff)"},
    {"{{ '\\x4' }}", 1, 4, "truncated \\xXX escape"},
    {"{% raw %}never closed", 1, 10, "Missing end of raw directive"},
    {"{% block a %}{% endblock %}{% block a %}{% endblock %}", 1, 31, "block 'a' defined twice"},
    {"{% include 'x.jinja' %}", 1, 4,
     "the 'include' tag is not supported: a chat template is rendered on its own, without other templates or HTML "
     "escaping"},
    {"{% do x %}", 1, 4, "Encountered unknown tag 'do'."},
    {"{{ x ! y }}", 1, 6, "unexpected char '!' at 5"},
    {"{{ (1, 2 }}", 1, 10, "unexpected '}', expected ')'"},
    {"{{ [1, 2) }}", 1, 9, "unexpected ')', expected ']'"},
    {"{% set 1 = 2 %}", 1, 8, "can't assign to 'const'"},
    {"{{ x is defined is none }}", 1, 17, "You cannot chain multiple tests with is"},
    {"{{ f(a=1, 2) }}", 1, 5, "invalid syntax for function call expression"},
    {"{% endif %}", 1, 4, "Encountered unknown tag 'endif'."},
    {"{% %}", 1, 4, "tag name expected"},
    {"{{ x.'a' }}", 1, 6, "expected name or number"},
    {"{{ 1 }}{% for %}", 1, 15, "Expected an expression, got 'end of statement block'"},
    {"{{ 99999999999999999999 }}", 1, 4, "integer literal too large (integers are 64-bit)"},
    {"{% if x %}{% endif extra %}", 1, 20, "expected token 'end of statement block', got 'extra'"},
    {"{% filter %}{% endfilter %}", 1, 11, "expected token 'name', got 'end of statement block'"},
};

class SyntaxErrors : public ::testing::TestWithParam<Broken> {};

TEST_P(SyntaxErrors, NameLineColumnAndCause) {
    const Broken& b = GetParam();
    try {
        ChatTemplate::parse(b.source);
        FAIL() << "parsed without error: " << testing::PrintToString(std::string(b.source));
    } catch (const TemplateSyntaxError& e) {
        EXPECT_EQ(e.line(), b.line);
        EXPECT_EQ(e.column(), b.column);
        EXPECT_EQ(e.detail(), b.detail);
        const std::string what = e.what();
        EXPECT_NE(what.find("line " + std::to_string(b.line) + ", column " + std::to_string(b.column)), std::string::npos)
            << what;
    }
}

INSTANTIATE_TEST_SUITE_P(Templates, SyntaxErrors, ::testing::ValuesIn(kBroken));

TEST(SyntaxErrors, FirstErrorIsTheOneJinjaReports) {
    // Jinja lexes lazily: a bad tag before a bad character is reported first...
    try {
        ChatTemplate::parse("{% endfor %} {{ ! }}");
        FAIL();
    } catch (const TemplateSyntaxError& e) {
        EXPECT_EQ(e.column(), 4);
    }
    // ...and an unknown filter (a compile error) only after the whole template parsed.
    try {
        ChatTemplate::parse("{{ x | nofilter }}{% if %}");
        FAIL();
    } catch (const TemplateSyntaxError& e) {
        EXPECT_EQ(e.detail(), "Expected an expression, got 'end of statement block'");
    }
}

TEST(SyntaxErrors, NestingBeyondTheLimitIsASyntaxError) {
    const std::string deep = "{{ " + std::string(200, '(') + "1" + std::string(200, ')') + " }}";
    try {
        ChatTemplate::parse(deep);
        FAIL();
    } catch (const TemplateSyntaxError& e) {
        EXPECT_EQ(e.detail(), "the template is nested too deeply (more than 150 levels)");
        EXPECT_EQ(e.line(), 1);
    }
    std::string chain = "{{ 1";
    for (int i = 0; i < 300; ++i) chain += " + 1";
    try {
        ChatTemplate::parse(chain + " }}");
        FAIL();
    } catch (const TemplateSyntaxError& e) {
        EXPECT_EQ(e.detail(), "expression nested too deeply (more than 200 levels)");
    }
    // Within the limits, deep but reasonable templates parse.
    EXPECT_NO_THROW(ChatTemplate::parse("{{ " + std::string(30, '(') + "1" + std::string(30, ')') + " }}"));
}

TEST(SyntaxErrors, UnknownFilterInsideIfFailsOnlyWhenEvaluated) {
    // Jinja2 defers this check to run time inside {% if %} ("soft" frames).
    const ChatTemplate t = ChatTemplate::parse("{% if flag %}{{ x | nosuch }}{% endif %}ok");
    EXPECT_EQ(t.render({{"flag", false}}), "ok");
    try {
        t.render({{"flag", true}});
        FAIL();
    } catch (const TemplateRenderError& e) {
        EXPECT_EQ(e.detail(), "TemplateRuntimeError: No filter named 'nosuch' found.");
    }
}

}  // namespace
}  // namespace folio
