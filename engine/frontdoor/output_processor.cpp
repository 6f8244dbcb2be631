#include "engine/frontdoor/output_processor.h"

#include <exception>
#include <utility>

#include "engine/core/error.h"

namespace folio {

OutputProcessor::OutputProcessor(std::shared_ptr<const Tokenizer> tokenizer, const std::string& model_name)
    : tokenizer_(std::move(tokenizer)) {
    if (!tokenizer_) throw Error("the model " + model_name + " has no tokenizer: the engine needs one to stream text");
}

void OutputProcessor::add(RequestId id, OutputRequest request) {
    TextStream text(*tokenizer_, request.stop_strings, request.continues_text);
    requests_[id] = std::make_unique<State>(State{std::move(request), std::move(text)});
}

bool OutputProcessor::fork(RequestId parent, RequestId child, bool continues_text) {
    const auto it = requests_.find(parent);
    if (it == requests_.end()) return false;
    OutputRequest r = it->second->request;
    r.continues_text = r.continues_text || continues_text;
    r.input_ms = 0;  // the child never went through the input processor
    add(child, std::move(r));
    return true;
}

void OutputProcessor::process(std::vector<CoreEvent>&& core_events, std::vector<Event>& out, std::vector<RequestId>& aborts) {
    for (CoreEvent& c : core_events) {
        const auto it = requests_.find(c.id);
        if (it == requests_.end()) continue;  // ended here already, or never the front door's
        State& s = *it->second;
        auto end_event = [&](Event::Kind kind, FinishReason reason, std::string message, RequestTimings timings,
                             std::vector<int32_t> prompt_ids) {
            Event e;
            e.kind = kind;
            e.id = c.id;
            e.reason = reason;
            e.text = s.text.end();
            e.message = std::move(message);
            e.timings = timings;
            e.timings.input_ms = s.request.input_ms;
            e.prompt_ids = std::move(prompt_ids);
            out.push_back(std::move(e));
        };
        if (c.token >= 0) {
            Event t;
            t.kind = Event::Kind::Token;
            t.id = c.id;
            t.token = c.token;
            t.logprobs = std::move(c.logprobs);
            if (c.finished && c.reason == FinishReason::Eos) {
                t.text = s.text.end();  // an end token: its own text is never shown, what is held is
            } else {
                TextChunk chunk;
                try {
                    chunk = s.text.push(c.token);
                } catch (const std::exception& e) {
                    // The model sampled an id its tokenizer does not have (a padded vocabulary).
                    out.push_back(std::move(t));
                    end_event(Event::Kind::Error, FinishReason::Error, std::string("cannot show the reply: ") + e.what(), c.timings,
                              c.finished ? std::move(c.prompt_ids) : s.request.prompt_ids);
                    if (!c.finished) aborts.push_back(c.id);
                    requests_.erase(it);
                    continue;
                }
                t.text = std::move(chunk.text);
                if (chunk.stopped) {
                    out.push_back(std::move(t));
                    end_event(Event::Kind::Finished, FinishReason::StopString, {}, c.timings,
                              c.finished ? std::move(c.prompt_ids) : s.request.prompt_ids);
                    if (!c.finished) aborts.push_back(c.id);
                    requests_.erase(it);
                    continue;
                }
                // The last token: nothing more can complete a stop string, so nothing is held back.
                if (c.finished && c.reason == FinishReason::Length) t.text += s.text.end();
            }
            out.push_back(std::move(t));
        }
        if (!c.finished) continue;
        end_event(c.reason == FinishReason::Error ? Event::Kind::Error : Event::Kind::Finished, c.reason, std::move(c.message),
                  c.timings, std::move(c.prompt_ids));
        requests_.erase(it);
    }
}

}  // namespace folio
