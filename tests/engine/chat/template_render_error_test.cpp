// Errors while rendering: raise_exception's message reaches the caller unchanged; every other runtime
// error is a TemplateRenderError with Python's exception name, its message and the template position;
// runaway templates stop at the render limits.
#include <gtest/gtest.h>

#include "engine/chat/chat_template.h"
#include "tests/engine/chat/render_helpers.h"

namespace folio {
namespace {

using test::json;
using test::render;
using test::render_error;

TEST(RenderErrors, RaiseExceptionCarriesExactlyItsMessage) {
    const ChatTemplate t = ChatTemplate::parse("a{{ raise_exception('Roles must alternate: ' ~ n) }}b");
    try {
        t.render({{"n", 3}});
        FAIL();
    } catch (const TemplateRaisedError& e) {
        EXPECT_STREQ(e.what(), "Roles must alternate: 3");
    }
    // Raised from inside a macro called in a loop: still the same error type and message.
    const ChatTemplate nested = ChatTemplate::parse(
        "{% macro check(m) %}{% if m.role == 'tool' %}{{ raise_exception('no tools') }}{% endif %}{% endmacro %}"
        "{% for m in messages %}{{ check(m) }}{% endfor %}");
    EXPECT_THROW(nested.render(json::parse(R"({"messages": [{"role": "user"}, {"role": "tool"}]})")), TemplateRaisedError);
}

TEST(RenderErrors, PythonErrorsWithTheirPosition) {
    try {
        render("line one\n{{ 'a' + n }}", {{"n", 1}});
        FAIL();
    } catch (const TemplateRenderError& e) {
        EXPECT_EQ(e.detail(), "TypeError: can only concatenate str (not \"int\") to str");
        EXPECT_EQ(e.line(), 2);
        EXPECT_EQ(e.column(), 8);  // the '+'
        EXPECT_STREQ(e.what(),
                     "template error at line 2, column 8: TypeError: can only concatenate str (not \"int\") to str");
    }
    EXPECT_EQ(render_error("{{ foo.bar }}"), "UndefinedError: 'foo' is undefined");
    EXPECT_EQ(render_error("{{ messages[0].nope.deeper }}", test::messages_context()),
              "UndefinedError: 'dict object' has no attribute 'nope'");
    EXPECT_EQ(render_error("{{ messages[7].role }}", test::messages_context()),
              "UndefinedError: list object has no element 7");
    EXPECT_EQ(render_error("{{ n / 0 }}", {{"n", 1}}), "ZeroDivisionError: division by zero");
    EXPECT_EQ(render_error("{{ n // 0 }}", {{"n", 1}}), "ZeroDivisionError: integer division or modulo by zero");
    EXPECT_EQ(render_error("{{ n < 'a' }}", {{"n", 1}}),
              "TypeError: '<' not supported between instances of 'int' and 'str'");
    EXPECT_EQ(render_error("{{ nope + 1 }}"), "UndefinedError: 'nope' is undefined");
    EXPECT_EQ(render_error("{{ nope | tojson }}"), "TypeError: Object of type Undefined is not JSON serializable");
    EXPECT_EQ(render_error("{% for a, b in [[1, 2, 3]] %}{% endfor %}"),
              "ValueError: too many values to unpack (expected 2)");
    EXPECT_EQ(render_error("{% for a, b in [1] %}{% endfor %}"), "TypeError: cannot unpack non-iterable int object");
    EXPECT_EQ(render_error("{% set x = 1 %}{% set x.a = 2 %}"),
              "TemplateRuntimeError: cannot assign attribute on non-namespace object");
    EXPECT_EQ(render_error("{{ none() }}"), "TypeError: 'NoneType' object is not callable");
    EXPECT_EQ(render_error("{{ 'abc'.nosuchmethod() }}"), "UndefinedError: 'str object' has no attribute 'nosuchmethod'");
    EXPECT_EQ(render_error("{{ [1,2,3][::0] }}"), "ValueError: slice step cannot be zero");
    EXPECT_EQ(render_error("{% macro m(a) %}{% endmacro %}{{ m(1, 2) }}"),
              "TypeError: macro 'm' takes not more than 1 argument(s)");
    EXPECT_EQ(render_error("{% macro m(a) %}{% endmacro %}{{ m(b=1) }}"), "TypeError: macro 'm' takes no keyword argument 'b'");
    EXPECT_EQ(render_error("{% for x in 3 %}{% endfor %}"), "TypeError: 'int' object is not iterable");
}

TEST(RenderErrors, TheSandboxForbidsMutation) {
    // Reading a mutating method gives an Undefined (prints nothing); calling it is a SecurityError.
    EXPECT_EQ(render("[{{ messages.append }}]", test::messages_context()), "[]");
    EXPECT_EQ(render_error("{{ messages.append(1) }}", test::messages_context()),
              "SecurityError: access to attribute 'append' of 'list' object is unsafe.");
    EXPECT_EQ(render_error("{{ messages[0].update({}) }}", test::messages_context()),
              "SecurityError: access to attribute 'update' of 'dict' object is unsafe.");
    EXPECT_EQ(render_error("{{ ''.__class__() }}"), "SecurityError: access to attribute '__class__' of 'str' object is unsafe.");
    EXPECT_EQ(render_error("{{ range(100001) | length }}"),
              "OverflowError: Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
    EXPECT_EQ(render("{{ range(100000) | length }}"), "100000");
}

TEST(RenderErrors, UnsupportedFeaturesSaySo) {
    EXPECT_EQ(render_error("{{ 'see https://x.org' | urlize }}"),
              "TemplateRuntimeError: the 'urlize' filter is not supported by this template engine");
    EXPECT_EQ(render_error("{{ lipsum() }}"),
              "TemplateRuntimeError: lipsum() (random text) is not supported by this template engine");
    // ... but only when evaluated.
    EXPECT_EQ(render("{% if false %}{{ x | wordwrap }}{% endif %}ok"), "ok");
}

TEST(RenderErrors, RunawayTemplatesStopAtTheLimits) {
    ChatTemplateOptions small;
    small.max_steps = 100000;
    small.max_output_bytes = 1 << 16;
    small.max_depth = 100;
    auto error_of = [&](const std::string& source) -> std::string {
        try {
            ChatTemplate::parse(source).render(json::object(), small);
        } catch (const TemplateRenderError& e) {
            return e.detail();
        }
        return "(no error)";
    };
    EXPECT_EQ(error_of("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"),
              "render limit exceeded: the template ran more than 100000 steps (a runaway loop?)");
    EXPECT_EQ(error_of("{% for i in range(100) %}{{ 'x' * 1000 }}{% endfor %}"),
              "render limit exceeded: text of more than 65536 bytes (the render output limit)");
    EXPECT_EQ(error_of("{% set s = 'ab' * 40000 %}"), "render limit exceeded: a string of 80000 exceeds the render limit of 65536");
    EXPECT_EQ(error_of("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"),
              "render limit exceeded: the template recursed more than 100 levels deep");
    // The same templates within the limits render.
    EXPECT_EQ(ChatTemplate::parse("{% for i in range(3) %}{{ 'x' * 2 }}{% endfor %}").render(json::object(), small), "xxxxxx");
}

TEST(RenderErrors, ContextMustBeAnObject) {
    EXPECT_THROW(ChatTemplate::parse("x").render(json::array()), Error);
    EXPECT_THROW(ChatTemplate::parse("x").render(json("text")), Error);
}

}  // namespace
}  // namespace folio
