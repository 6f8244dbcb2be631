// folio-cli chat: an interactive terminal chat with the model's template. Ctrl-C stops a reply;
// Ctrl-D (or /exit) quits; /reset starts over; /system TEXT sets the system prompt.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>
#include <unistd.h>

#include "app/cli/commands.h"
#include "app/cli/engine_setup.h"
#include "app/cli/reply_engine.h"
#include "engine/core/error.h"

namespace folio::cli {

namespace {
// Set by SIGINT while a reply streams; a signal handler can only touch a lock-free atomic.
std::atomic<bool> g_interrupted{false};
void on_sigint(int) { g_interrupted.store(true); }
}  // namespace

int run_chat(int argc, char** argv, int first) {
    auto options = model_options();
    options.merge(sampling_options());
    options.merge(remote_options());
    options.insert({"max-tokens", "system"});
    Args args(argc, argv, first, options, model_flags());
    if (!args.positional().empty()) throw Error("unexpected argument '" + args.positional()[0] + "'");
    auto engine = make_reply_engine(args, true);
    const SamplingParams sampling = engine->sampling;
    const int max_tokens = args.get_int("max-tokens", 1024);
    std::string system = args.get_or("system", "");
    std::vector<ChatMessage> history;
    const bool tty = isatty(STDIN_FILENO);
    std::signal(SIGINT, on_sigint);

    std::fprintf(stderr, "folio chat with %s on %s. /reset, /system TEXT, /exit; Ctrl-C stops a reply.\n",
                 engine->model_name().c_str(), engine->backend().c_str());
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
        const RequestId id = engine->submit(req);
        std::string reply;
        bool done = false, cancelled = false;
        while (!done) {
            if (g_interrupted.exchange(false) && !cancelled) {
                engine->cancel(id);
                cancelled = true;
            }
            for (const Event& ev : engine->wait_events(std::chrono::milliseconds(50))) {
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

}  // namespace folio::cli
