#include "engine/chat/chat_template.h"

#include "engine/core/error.h"
#include "engine/jinja/template_parser.h"
#include "engine/jinja/template_renderer.h"

namespace folio {

std::tm chat_template_reference_date() {
    std::tm tm{};
    tm.tm_year = 2024 - 1900;
    tm.tm_mon = 6;
    tm.tm_mday = 26;
    tm.tm_wday = 5;    // a Friday
    tm.tm_yday = 207;  // 0-based day of a leap year
    tm.tm_isdst = -1;  // Python's timetuple() of a naive datetime
    return tm;
}

std::tm chat_template_local_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    localtime_r(&t, &tm);
    return tm;
}

ChatTemplate ChatTemplate::parse(std::string source) {
    ChatTemplate t;
    t.ast_ = jinja::parse_template(source);
    t.source_ = std::move(source);
    return t;
}

std::string ChatTemplate::render(const nlohmann::ordered_json& context) const { return render(context, ChatTemplateOptions{}); }

std::string ChatTemplate::render(const nlohmann::ordered_json& context, const ChatTemplateOptions& options) const {
    if (!ast_) throw Error("rendering a chat template that was never parsed");
    jinja::RenderSettings settings;
    settings.now = options.now;
    settings.limits.max_output_bytes = options.max_output_bytes;
    settings.limits.max_steps = options.max_steps;
    settings.limits.max_depth = options.max_depth;
    jinja::Renderer renderer(*ast_, context, settings);
    try {
        return renderer.render();
    } catch (const jinja::Fault& f) {  // raised outside any template position (should not happen)
        throw TemplateRenderError(std::string(jinja::fault_kind_name(f.kind())) + ": " + f.what(), 1, 1);
    }
}

}  // namespace folio
