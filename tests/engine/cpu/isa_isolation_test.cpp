// Proves on the compiled objects that AVX2/AVX-512/AMX instructions stay inside the kernel tables
// (kernels_isa.h): an instruction-set object exports nothing but its `table`, and every function
// in it outside its own anonymous namespace (out-of-line copies of inline functions and templates
// the linker may pick for the whole program, static initialisers, sanitizer constructors) holds
// baseline x86-64 instructions only. A deliberately leaky object shows the check catches a leak.
//
//   isa_isolation_test NM OBJDUMP LEAKY_OBJECT ISA=OBJECT...
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
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

// An instruction beyond the x86-64 baseline: every VEX/EVEX encoding (v...), AVX-512 mask
// instructions (k...), AMX, BMI1/2, POPCNT/LZCNT, or a ymm/zmm/mask/tile register operand.
bool beyond_baseline(const std::string& mnemonic, const std::string& operands) {
    static const std::regex mn("^(v|k[a-z]|tile|tdp|ldtilecfg|sttilecfg|andn$|bextr|blsi|blsmsk|blsr|bzhi|mulx|pdep|pext|rorx|sarx|shlx|shrx|popcnt|lzcnt)");
    static const std::regex reg("%(ymm|zmm|tmm|k[0-7]\\b)");
    return std::regex_search(mnemonic, mn) || std::regex_search(operands, reg);
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
    static const std::regex sym("^[0-9a-fA-F]*\\s+([A-Za-z])\\s+(.*)$");
    for (const auto& l : lines(run(g_nm + " -C --defined-only '" + object + "'"))) {
        std::smatch m;
        if (!std::regex_match(l, m, sym)) continue;
        const char type = m[1].str()[0];
        const bool code = type == 'T' || type == 'W' || type == 'i';
        const bool global_data = type == 'D' || type == 'B' || type == 'R';
        // Weak or unique data (guard variables, inline constants) holds no instructions, nor does the
        // one-byte ODR indicator AddressSanitizer adds next to each global (the table's, here).
        const bool asan_odr = m[2].str().rfind("__odr_asan.", 0) == 0;
        if ((code || global_data) && !asan_odr && m[2].str() != table) r.exported.push_back(std::string(1, type) + " " + m[2].str());
    }
    const std::regex own("^(\\S+ )?folio::cpu::" + isa + "::\\(anonymous namespace\\)::");
    static const std::regex header("^[0-9a-f]+ <(.*)>:$");
    static const std::regex insn("^\\s*[0-9a-f]+:\\s+(?:(?:lock|rep[a-z]*|notrack|bnd|data16|[c-gs]s)\\s+)*([a-z][a-z0-9.]*)\\s*(.*)$");
    std::string fn;
    bool inside = false, leaked = false;
    for (const auto& l : lines(run(g_objdump + " -d -C --no-show-raw-insn '" + object + "'"))) {
        std::smatch m;
        if (std::regex_match(l, m, header)) {
            fn = m[1];
            inside = std::regex_search(fn, own);
            leaked = false;
            r.kernel_functions += inside;
            continue;
        }
        if (!std::regex_match(l, m, insn) || !beyond_baseline(m[1], m[2])) continue;
        if (inside) {
            ++r.isa_instructions;
        } else if (!leaked) {
            r.leaks.push_back(fn + ": " + m[1].str() + " " + m[2].str());
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
