#include "app/cli/command_line.h"

#include <cstdio>
#include <exception>

#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace folio::cli {

const char* folio_version() { return FOLIO_VERSION; }

void log_to_stderr() {
    spdlog::set_default_logger(spdlog::stderr_color_mt("folio"));
    spdlog::set_level(spdlog::level::warn);
    spdlog::cfg::load_env_levels();
}

int run_program(const std::string& name, const std::string& usage, const std::function<int()>& body) {
    try {
        return body();
    } catch (const HelpRequested&) {
        std::fputs(usage.c_str(), stdout);
        return std::fflush(stdout) == 0 ? 0 : 1;
    } catch (const VersionRequested&) {
        std::printf("%s %s\n", name.substr(0, name.find(' ')).c_str(), folio_version());  // the program's, not the command's
        return std::fflush(stdout) == 0 ? 0 : 1;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "%s: %s\n\n%s", name.c_str(), e.what(), usage.c_str());
        return 2;
    } catch (const Error& e) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: internal error: %s\n", name.c_str(), e.what());
        return 1;
    }
}

}  // namespace folio::cli
