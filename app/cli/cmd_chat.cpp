// folio-cli chat: an interactive terminal chat with the model's template. Ctrl-C stops a reply;
// Ctrl-D (or /exit) quits; /reset starts over; /system TEXT sets the system prompt.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>
#include <unistd.h>

#include "app/cli/command_line.h"
#include "app/cli/commands.h"
#include "app/cli/engine_setup.h"
#include "engine/core/error.h"

namespace folio::cli {

namespace {
// Set by SIGINT while a reply streams; a signal handler can only touch a lock-free atomic.
std::atomic<bool> g_interrupted{false};
void on_sigint(int) { g_interrupted.store(true); }

std::string usage() {
    return std::string(
               "usage: folio-cli chat --model DIR|dummy:NAME [options]\n"
               "\n"
               "An interactive chat with the model's chat template: one line per message on stdin, replies on\n"
               "stdout. /reset starts over, /system TEXT sets the system prompt, /exit or Ctrl-D quits; Ctrl-C\n"
               "stops a reply.\n"
               "\n"
               "  --system TEXT            the system prompt\n"
               "  --max-tokens N           at most N new tokens per reply (default 1024)\n"
               "\n") +
           model_options_usage() + "\n" + remote_options_usage() + "\n" + sampling_options_usage();
}

int run(int argc, char** argv, int first) {
    auto options = model_options();
    options.merge(sampling_options());
    options.merge(remote_options());
    options.insert({"max-tokens", "system"});
    Args args(argc, argv, first, options, model_flags());
    args.expect_no_positional();
    if (args.get_int("max-tokens", 1024) <= 0) throw UsageError("--max-tokens must be positive");
    if (!is_remote(args)) backend_from_args(args);  // a bad --backend is reported before the model loads
    OpenedEngine opened = open_engine(args, true);
    EngineClient& engine = *opened.client;
    const SamplingParams sampling = opened.sampling;
    const int max_tokens = args.get_int("max-tokens", 1024);
    std::string system = args.get_or("system", "");
    std::vector<ChatMessage> history;
    const bool tty = isatty(STDIN_FILENO);
    std::signal(SIGINT, on_sigint);

    std::fprintf(stderr, "folio chat with %s on %s. /reset, /system TEXT, /exit; Ctrl-C stops a reply.\n",
                 model_display_name(engine.model_info()).c_str(), engine.describe().c_str());
    for (;;) {
        if (tty) std::fprintf(stderr, "\n> ");
        std::string line;
        if (!std::getline(std::cin, line)) break;
        if (line == "/exit" || line == "/quit") break;
        if (line == "/reset") {
            history.clear();
            std::fprintf(stderr, "(conversation cleared)\n");
            continue;
        }
        if (line.rfind("/system ", 0) == 0) {
            system = line.substr(8);
            std::fprintf(stderr, "(system prompt set)\n");
            continue;
        }
        if (line.empty()) continue;
        history.push_back({"user", line});
        Request req;
        if (!system.empty()) req.messages.push_back({"system", system});
        req.messages.insert(req.messages.end(), history.begin(), history.end());
        req.sampling = sampling;
        req.stop.max_tokens = max_tokens;
        g_interrupted = false;
        auto events = std::make_shared<EventQueue>();  // this reply's
        const RequestId id = engine.submit(req, EventQueue::sink_of(events));
        std::string reply;
        bool done = false, cancelled = false;
        while (!done) {
            if (g_interrupted.exchange(false) && !cancelled) {
                engine.cancel(id);
                cancelled = true;
            }
            for (const Event& ev : events->wait(std::chrono::milliseconds(50))) {
                if (ev.id != id) continue;
                if (ev.kind == Event::Kind::Token) {
                    reply += ev.text;
                    std::fwrite(ev.text.data(), 1, ev.text.size(), stdout);
                    std::fflush(stdout);
                } else if (ev.kind == Event::Kind::Error) {
                    // A reply cut short (a server gone mid-reply) keeps its text on screen and in
                    // the history, so the conversation can go on from it.
                    std::fprintf(stderr, "\nerror: %s\n", ev.message.c_str());
                    if (reply.empty()) history.pop_back();
                    else history.push_back({"assistant", reply});
                    done = true;
                } else {
                    if (ev.reason == FinishReason::Cancelled) std::fprintf(stderr, " [stopped]");
                    if (ev.reason == FinishReason::Length || ev.reason == FinishReason::ContextFull)
                        std::fprintf(stderr, " [%s]", finish_reason_name(ev.reason));
                    std::fputc('\n', stdout);
                    history.push_back({"assistant", reply});
                    done = true;
                }
            }
        }
    }
    std::signal(SIGINT, SIG_DFL);
    return 0;
}

}  // namespace

const Command chat_command = {"chat", "an interactive chat in the terminal", usage, run};

}  // namespace folio::cli
