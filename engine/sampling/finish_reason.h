#pragma once
// Why a sequence stopped generating. The engine core decides all but StopString, which the front
// door's output processor decides on the text (engine/frontdoor/text_stream.h).
namespace folio {

enum class FinishReason {
    Eos,         // an end-of-sequence token (not included in the text)
    StopString,  // a stop string matched (not included in the text)
    Length,      // max_tokens reached
    ContextFull, // the model's context length reached
    Cancelled,   // cancel() was called
    Error,       // see Event::message
};

const char* finish_reason_name(FinishReason r);  // "stop", "stop_string", "length", "context", "cancelled", "error"

}  // namespace folio
