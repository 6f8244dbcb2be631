// Proves on the compiled objects that AVX2/AVX-512/AMX instructions stay inside the kernel tables
// (kernels_isa.h): an instruction-set object exports nothing but its `table`, and every function
// in it outside its own anonymous namespace (out-of-line copies of inline functions and templates
// the linker may pick for the whole program, static initialisers, sanitizer constructors) holds
// baseline x86-64 instructions only. A deliberately leaky object shows the check catches a leak.
//
//   isa_isolation_test NM OBJDUMP LEAKY_OBJECT ISA=OBJECT...
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::string g_nm, g_objdump, g_leaky;
std::map<std::string, std::string> g_objects;  // isa -> object file

std::string run(const std::string& cmd) {
    std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
    if (!p) return {};
    std::string out;
    char buf[1 << 16];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p.get())) > 0;) out.append(buf, n);
    return out;
}

std::vector<std::string> lines(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

// The lines of nm and objdump are parsed by hand: with std::regex this test took 20 s under the
// sanitizers (2.8 s now) and GCC 12 warned inside libstdc++'s regex.
bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_space(char c) { return c == ' ' || c == '\t'; }
size_t skip(std::string_view s, size_t i, bool (*pred)(char)) {
    while (i < s.size() && pred(s[i])) ++i;
    return i;
}

// An instruction beyond the x86-64 baseline: every VEX/EVEX encoding (v...), AVX-512 mask
// instructions (k...), AMX, BMI1/2, POPCNT/LZCNT, or a ymm/zmm/mask/tile register operand.
bool beyond_baseline(std::string_view mnemonic, std::string_view operands) {
    if (mnemonic == "andn") return true;  // (andnps and andnpd are SSE)
    if (starts_with(mnemonic, "v") || (mnemonic.size() > 1 && mnemonic[0] == 'k' && mnemonic[1] >= 'a' && mnemonic[1] <= 'z')) return true;
    for (std::string_view p : {"tile", "tdp", "ldtilecfg", "sttilecfg", "bextr", "blsi", "blsmsk", "blsr", "bzhi", "mulx", "pdep",
                               "pext", "rorx", "sarx", "shlx", "shrx", "popcnt", "lzcnt"})
        if (starts_with(mnemonic, p)) return true;
    for (size_t i = operands.find('%'); i != std::string_view::npos; i = operands.find('%', i + 1)) {
        const std::string_view r = operands.substr(i + 1);
        if (starts_with(r, "ymm") || starts_with(r, "zmm") || starts_with(r, "tmm")) return true;
        // %k0..%k7, not followed by a word character
        if (r.size() >= 2 && r[0] == 'k' && r[1] >= '0' && r[1] <= '7' &&
            (r.size() == 2 || !(std::isalnum(static_cast<unsigned char>(r[2])) || r[2] == '_')))
            return true;
    }
    return false;
}

// nm: "ADDRESS TYPE NAME" -> type and name.
bool parse_symbol(std::string_view l, char& type, std::string& name) {
    size_t i = skip(l, 0, is_hex);
    const size_t j = skip(l, i, is_space);
    if (j == i || j >= l.size() || !std::isalpha(static_cast<unsigned char>(l[j]))) return false;
    const size_t k = skip(l, j + 1, is_space);
    if (k == j + 1) return false;
    type = l[j];
    name = std::string(l.substr(k));
    return true;
}

// objdump: "ADDRESS <NAME>:" starts a function.
bool parse_function_header(std::string_view l, std::string& name) {
    const size_t i = skip(l, 0, [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
    if (i == 0 || l.substr(i, 2) != " <" || l.size() < i + 4 || l.substr(l.size() - 2) != ">:") return false;
    name = std::string(l.substr(i + 2, l.size() - i - 4));
    return true;
}

// objdump: "  ADDRESS:\t[PREFIX ...]MNEMONIC OPERANDS", prefixes (lock, rep*, notrack, bnd, data16,
// segment overrides) skipped.
bool parse_instruction(std::string_view l, std::string& mnemonic, std::string& operands) {
    size_t i = skip(l, 0, is_space);
    const size_t a = skip(l, i, [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
    if (a == i || a >= l.size() || l[a] != ':') return false;
    i = skip(l, a + 1, is_space);
    if (i == a + 1) return false;
    for (;;) {
        const auto word_char = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.'; };
        if (i >= l.size() || l[i] < 'a' || l[i] > 'z') return false;
        const size_t e = skip(l, i, word_char);
        const std::string_view w = l.substr(i, e - i);
        const bool segment = w.size() == 2 && w[1] == 's' && (w[0] == 's' || (w[0] >= 'c' && w[0] <= 'g'));
        const bool prefix = w == "lock" || starts_with(w, "rep") || w == "notrack" || w == "bnd" || w == "data16" || segment;
        const size_t next = skip(l, e, is_space);
        if (prefix && next > e && next < l.size()) {
            i = next;
            continue;
        }
        mnemonic = std::string(w);
        operands = std::string(l.substr(next));
        return true;
    }
}

struct Report {
    std::vector<std::string> exported;  // global or weak symbols other than the table
    std::vector<std::string> leaks;     // functions outside the kernels with non-baseline instructions
    int kernel_functions = 0;           // functions inside the ISA's anonymous namespace
    int isa_instructions = 0;           // non-baseline instructions inside them
};

Report inspect(const std::string& object, const std::string& isa) {
    Report r;
    const std::string table = "folio::cpu::" + isa + "::table";
    // nm: "ADDRESS TYPE NAME"; lower-case types are local, upper-case global, u unique (GNU), v/w weak.
    for (const auto& l : lines(run(g_nm + " -C --defined-only '" + object + "'"))) {
        char type = 0;
        std::string name;
        if (!parse_symbol(l, type, name)) continue;
        const bool code = type == 'T' || type == 'W' || type == 'i';
        const bool global_data = type == 'D' || type == 'B' || type == 'R';
        // Weak or unique data (guard variables, inline constants) holds no instructions, nor does the
        // one-byte ODR indicator AddressSanitizer adds next to each global (the table's, here).
        const bool asan_odr = starts_with(name, "__odr_asan.");
        if ((code || global_data) && !asan_odr && name != table) r.exported.push_back(std::string(1, type) + " " + name);
    }
    // A kernel: a name in the ISA's anonymous namespace, after the return type a template function's
    // demangled name starts with ("float __vector(16) folio::cpu::..."): the prefix right after a space
    // with the parentheses before it balanced (not a parameter of some other function).
    const std::string own = "folio::cpu::" + isa + "::(anonymous namespace)::";
    const auto is_own = [&](const std::string& fn) {
        for (size_t at = fn.find(own); at != std::string::npos; at = fn.find(own, at + 1)) {
            if (at == 0) return true;
            if (fn[at - 1] != ' ') continue;
            int depth = 0;
            for (size_t i = 0; i < at; ++i) depth += fn[i] == '(' ? 1 : fn[i] == ')' ? -1 : 0;
            if (depth == 0) return true;
        }
        return false;
    };
    std::string fn, mnemonic, operands;
    bool inside = false, leaked = false;
    for (const auto& l : lines(run(g_objdump + " -d -C --no-show-raw-insn '" + object + "'"))) {
        if (parse_function_header(l, fn)) {
            inside = is_own(fn);
            leaked = false;
            r.kernel_functions += inside;
            continue;
        }
        if (!parse_instruction(l, mnemonic, operands) || !beyond_baseline(mnemonic, operands)) continue;
        if (inside) {
            ++r.isa_instructions;
        } else if (!leaked) {
            r.leaks.push_back(fn + ": " + mnemonic + " " + operands);
            leaked = true;
        }
    }
    return r;
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += "\n  " + x;
    return s;
}

TEST(IsaIsolation, ToolsAndObjectsAreThere) {
    ASSERT_FALSE(g_objects.empty()) << "no instruction-set objects given on the command line";
    EXPECT_FALSE(run(g_nm + " --version").empty()) << "cannot run nm (" << g_nm << "); install binutils";
    EXPECT_FALSE(run(g_objdump + " --version").empty()) << "cannot run objdump (" << g_objdump << "); install binutils";
    for (const char* isa : {"avx2", "avx512", "amx"}) EXPECT_EQ(g_objects.count(isa), 1u) << isa;
}

TEST(IsaIsolation, EachObjectExportsOnlyItsTable) {
    for (const auto& [isa, object] : g_objects) {
        const Report r = inspect(object, isa);
        EXPECT_TRUE(r.exported.empty()) << object << " exports symbols besides folio::cpu::" << isa << "::table:" << join(r.exported);
    }
}

TEST(IsaIsolation, InstructionSetCodeStaysInsideTheKernels) {
    for (const auto& [isa, object] : g_objects) {
        const Report r = inspect(object, isa);
        EXPECT_TRUE(r.leaks.empty()) << object << ": functions outside folio::cpu::" << isa
                                     << "::(anonymous namespace) use instructions beyond x86-64:" << join(r.leaks);
        // The check looked at real kernels: the target region took effect.
        EXPECT_GT(r.kernel_functions, 3) << object;
        EXPECT_GT(r.isa_instructions, 100) << object << ": the kernels hold no " << isa << " instructions";
    }
}

// The object built from isa_leak_sample.cpp (the mistake kernels_isa.h forbids: -mavx512f on the
// command line and shared inline code) must be caught on both counts.
TEST(IsaIsolation, TheCheckCatchesALeakyObject) {
    const Report r = inspect(g_leaky, "avx512");
    EXPECT_FALSE(r.exported.empty()) << "the leaky sample's exported functions went unnoticed";
    bool weak_inline = false;
    for (const auto& l : r.leaks) weak_inline = weak_inline || l.find("leaky_sum_of_squares") != std::string::npos;
    EXPECT_TRUE(weak_inline) << "the AVX-512 code of the sample's inline function went unnoticed; leaks found:" << join(r.leaks);
}

}  // namespace

int main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    if (argc < 5) {
        std::fprintf(stderr, "usage: %s NM OBJDUMP LEAKY_OBJECT ISA=OBJECT...\n", argv[0]);
        return 2;
    }
    g_nm = argv[1];
    g_objdump = argv[2];
    g_leaky = argv[3];
    for (int i = 4; i < argc; ++i) {
        const std::string a = argv[i];
        const auto eq = a.find('=');
        if (eq != std::string::npos) g_objects[a.substr(0, eq)] = a.substr(eq + 1);
    }
    return RUN_ALL_TESTS();
}
