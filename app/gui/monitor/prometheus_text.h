#pragma once
// The Prometheus text exposition format (what /metrics answers on vLLM, folio-server and most
// servers), parsed into samples. Plain C++, no Qt: a function of the text.
//   # HELP name text        # TYPE name counter|gauge|histogram|summary|untyped
//   name{label="value",...} value [timestamp]
// Label values escape \\, \" and \n; values are floats, NaN, +Inf or -Inf. A histogram's samples
// (name_bucket with its "le" label, name_sum, name_count) and a counter's (name_total, name_created)
// are samples of their own, each knowing the family its # TYPE line named.
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace folio::app {

struct MetricSample {
    std::string name;    // as written: "vllm:time_to_first_token_seconds_bucket"
    std::string family;  // the metric it belongs to: "vllm:time_to_first_token_seconds"; name when untyped
    std::vector<std::pair<std::string, std::string>> labels;  // in order, values unescaped
    double value = 0;

    // The label's value, or empty.
    std::string label(const std::string& key) const;
};

struct MetricsText {
    std::vector<MetricSample> samples;  // in the order of the text
    std::map<std::string, std::string> types;  // family -> its # TYPE ("counter", "histogram", ...)
};

// Thrown for text that is not the format, with the 1-based line and what is wrong there.
struct MetricsParseError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

MetricsText parse_metrics_text(const std::string& text);

}  // namespace folio::app
