// The Python text primitives the engine is built on: UTF-8 handling (invalid bytes round-trip),
// str.isspace()'s Unicode whitespace, case mapping, repr() of strings and floats, formatting.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/jinja/python_format.h"
#include "engine/jinja/python_repr.h"
#include "engine/jinja/python_text.h"

namespace folio::jinja {
namespace {

TEST(PythonText, InvalidUtf8RoundTripsAndCountsByteByByte) {
    const std::string bad = "a\xff\xc3(\xe2\x82";
    EXPECT_EQ(to_utf8(to_code_points(bad)), bad);
    EXPECT_EQ(code_point_count(bad), 6u);
    EXPECT_EQ(code_point_count("héllo 😀"), 7u);
    EXPECT_EQ(find_invalid_utf8("ok é"), std::string::npos);
    EXPECT_EQ(find_invalid_utf8("ok \xc0\x80"), 3u);  // overlong
    EXPECT_EQ(find_invalid_utf8("\xed\xa0\x80"), 0u);  // a surrogate
}

TEST(PythonText, WhitespaceIsPythonsStrIsspace) {
    for (char32_t c : {U'\t', U'\n', U'\v', U'\f', U'\r', U'\x1c', U' ', U'\x85', U'\xa0', U'\u1680', U'\u2000', U'\u200a',
                       U'\u2028', U'\u2029', U'\u202f', U'\u205f', U'\u3000'})
        EXPECT_TRUE(py_isspace(c)) << unsigned(c);
    for (char32_t c : {U'a', U'\u200b', U'\ufeff', U'_'}) EXPECT_FALSE(py_isspace(c)) << unsigned(c);
    EXPECT_EQ(py_strip("\u3000\u00a0 x \u2003\n", std::nullopt, true, true), "x");
    EXPECT_EQ(py_strip("\u200bx\u200b", std::nullopt, true, true), "\u200bx\u200b");  // zero-width space is not space
    EXPECT_EQ(py_strip("ébé", std::string("é"), true, true), "b");
}

TEST(PythonText, CaseMapping) {
    EXPECT_EQ(py_upper("straße ÿ ǆ"), "STRASSE Ÿ Ǆ");
    EXPECT_EQ(py_lower("ΣΟΦΟΣ ΟΔΟΣ"), "σοφος οδος");  // final sigma
    EXPECT_EQ(py_lower("İ"), "i\u0307");
    EXPECT_EQ(py_title("hello wORLD 3rd o'neil"), "Hello World 3Rd O'Neil");
    EXPECT_EQ(py_title("ǆungla"), "ǅungla");
    EXPECT_EQ(py_capitalize("élan VITAL"), "Élan vital");
    EXPECT_EQ(py_upper("привет"), "ПРИВЕТ");
    EXPECT_EQ(py_upper("中文"), "中文");
}

TEST(PythonText, SplitReplaceFind) {
    EXPECT_EQ(py_split("  a  b ", std::nullopt, -1), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(py_split("a\u3000b", std::nullopt, -1), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(py_split(" a b c ", std::nullopt, 1), (std::vector<std::string>{"a", "b c "}));
    EXPECT_EQ(py_rsplit(" a b c ", std::nullopt, 1), (std::vector<std::string>{" a b", "c"}));
    EXPECT_EQ(py_split("a,b,", std::string(","), -1), (std::vector<std::string>{"a", "b", ""}));
    EXPECT_EQ(py_splitlines("a\r\nb\u0085c\u2028", false), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(py_replace("héé", "", "-", 2), "-h-éé");
    EXPECT_EQ(py_find("héllo", "l", std::nullopt, std::nullopt, false), 2);
    EXPECT_EQ(py_find("héllo", "l", -2, std::nullopt, true), 3);
    EXPECT_EQ(py_substr("héllo", -3, std::nullopt), "llo");
}

TEST(PythonRepr, StringsAsPythonQuotesThem) {
    EXPECT_EQ(py_string_repr("abc"), "'abc'");
    EXPECT_EQ(py_string_repr("it's"), "\"it's\"");
    EXPECT_EQ(py_string_repr("it's \"x\""), "'it\\'s \"x\"'");
    EXPECT_EQ(py_string_repr("a\nb\tc\\d\x01"), "'a\\nb\\tc\\\\d\\x01'");
    EXPECT_EQ(py_string_repr("é😀\u00a0\u200b\u3000"), "'é😀\\xa0\\u200b\\u3000'");
    EXPECT_EQ(py_string_repr("\xff"), "'\\udcff'");
}

TEST(PythonRepr, FloatsAsPythonPrintsThem) {
    EXPECT_EQ(float_repr(1.0), "1.0");
    EXPECT_EQ(float_repr(0.1), "0.1");
    EXPECT_EQ(float_repr(-2.5), "-2.5");
    EXPECT_EQ(float_repr(1e16), "1e+16");
    EXPECT_EQ(float_repr(1234567890123456.0), "1234567890123456.0");
    EXPECT_EQ(float_repr(1e-5), "1e-05");
    EXPECT_EQ(float_repr(0.0001), "0.0001");
    EXPECT_EQ(float_repr(1.5e-7), "1.5e-07");
    EXPECT_EQ(float_repr(1.7976931348623157e308), "1.7976931348623157e+308");
    EXPECT_EQ(float_repr(5e-324), "5e-324");
    EXPECT_EQ(float_repr(0.30000000000000004), "0.30000000000000004");
    EXPECT_EQ(float_repr(-0.0), "-0.0");
    EXPECT_EQ(float_repr(std::numeric_limits<double>::infinity()), "inf");
    EXPECT_EQ(float_repr(-std::numeric_limits<double>::infinity()), "-inf");
    EXPECT_EQ(float_repr(std::nan("")), "nan");
    EXPECT_EQ(float_repr(100.0), "100.0");
    EXPECT_EQ(float_repr(123456.789), "123456.789");
}

TEST(PythonRepr, ContainersAndLimits) {
    const Value v = Value::dict({{Value::string("a"), Value::list({Value::integer(1), Value::none(), Value::boolean(true)})},
                                 {Value::string("b"), Value::tuple({Value::number(1.5)})}});
    EXPECT_EQ(py_repr(v, 1000), "{'a': [1, None, True], 'b': (1.5,)}");
    EXPECT_EQ(py_str(Value::undefined("x"), 1000), "");
    EXPECT_EQ(py_repr(Value::list({Value::undefined("x")}), 1000), "[Undefined]");
    EXPECT_THROW(py_repr(Value::list({Value::string(std::string(2000, 'x'))}), 1000), Fault);
}

TEST(PythonFormat, PercentFormatting) {
    const size_t lim = 1 << 20;
    EXPECT_EQ(percent_format("%s|%r|%d|%5.2f|%-4s|%04d|%x|%#o|%c|%%|%e|%g", Value::tuple({Value::string("a"), Value::string("b"),
              Value::number(3.9), Value::number(3.14159), Value::string("x"), Value::integer(-7), Value::integer(255),
              Value::integer(8), Value::integer(65), Value::number(12345.678), Value::number(0.0001)}), lim),
              "a|'b'|3| 3.14|x   |-007|ff|0o10|A|%|1.234568e+04|0.0001");
    EXPECT_EQ(percent_format("%(a)s-%(b)d", Value::dict({{Value::string("a"), Value::string("x")},
                                                         {Value::string("b"), Value::integer(2)}}), lim),
              "x-2");
    EXPECT_EQ(percent_format("%s", Value::list({Value::integer(1)}), lim), "[1]");
    EXPECT_EQ(percent_format("plain", Value::list({Value::integer(1)}), lim), "plain");  // a list is "a mapping" here
    EXPECT_THROW(percent_format("plain", Value::integer(1), lim), Fault);
    EXPECT_THROW(percent_format("%s %s", Value::tuple({Value::integer(1)}), lim), Fault);
    EXPECT_THROW(percent_format("%z", Value::integer(1), lim), Fault);
}

TEST(PythonFormat, FormatSpecMiniLanguage) {
    const size_t lim = 1 << 20;
    EXPECT_EQ(format_value(Value::number(1234.5), ".2", lim), "1.2e+03");
    EXPECT_EQ(format_value(Value::number(12.0), ".3", lim), "12.0");
    EXPECT_EQ(format_value(Value::number(5.0), ".0", lim), "5e+00");
    EXPECT_EQ(format_value(Value::number(1e-7), "", lim), "1e-07");
    EXPECT_EQ(format_value(Value::integer(1234567), ",", lim), "1,234,567");
    EXPECT_EQ(format_value(Value::integer(255), "#010x", lim), "0x000000ff");
    EXPECT_EQ(format_value(Value::integer(-5), "=+8", lim), "-      5");
    EXPECT_EQ(format_value(Value::boolean(true), ">5", lim), "    1");
    EXPECT_EQ(format_value(Value::string("ab"), "*^7", lim), "**ab***");
    EXPECT_EQ(format_value(Value::number(-0.0), "f", lim), "-0.000000");
    EXPECT_EQ(format_value(Value::number(0.125), ".1%", lim), "12.5%");
    EXPECT_THROW(format_value(Value::string("x"), "d", lim), Fault);
    EXPECT_THROW(format_value(Value::none(), "5", lim), Fault);
}

}  // namespace
}  // namespace folio::jinja
