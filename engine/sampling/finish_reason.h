#pragma once
// Why a sequence stopped generating. The stop checker decides the first three token by token; the
// engine adds the others.
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
