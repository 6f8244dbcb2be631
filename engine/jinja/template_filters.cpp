// The filter registry: find_filter() over both halves of the table, and the Jinja2 built-ins this
// engine leaves out.
#include "engine/jinja/template_builtins.h"
#include "engine/jinja/template_filter_support.h"

namespace folio::jinja {

FilterFn find_filter(std::string_view name) {
    for (auto table : {filters::text_filters(), filters::sequence_filters()})
        for (const auto& e : table)
            if (name == e.name) return e.fn;
    return nullptr;
}

bool is_unimplemented_filter(std::string_view name) {
    static const char* names[] = {"pprint", "random", "striptags", "urlencode", "urlize", "wordwrap", "xmlattr"};
    for (const char* n : names)
        if (name == n) return true;
    return false;
}

}  // namespace folio::jinja
