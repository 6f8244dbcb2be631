#include "app/gui/store/store_types.h"

namespace folio::app {

QJsonObject SamplingSettings::toJson() const {
    return QJsonObject{{"temperature", temperature}, {"top_p", topP}, {"top_k", topK}, {"min_p", minP},
                       {"repetition_penalty", repetitionPenalty}, {"max_tokens", maxTokens},
                       {"seed", seed}};
}

SamplingSettings SamplingSettings::fromJson(const QJsonObject& o) {
    SamplingSettings s;
    s.temperature = o.value("temperature").toDouble(s.temperature);
    s.topP = o.value("top_p").toDouble(s.topP);
    s.topK = o.value("top_k").toInt(s.topK);
    s.minP = o.value("min_p").toDouble(s.minP);
    s.repetitionPenalty = o.value("repetition_penalty").toDouble(s.repetitionPenalty);
    s.maxTokens = o.value("max_tokens").toInt(s.maxTokens);
    s.seed = o.value("seed").toInteger(s.seed);
    return s;
}

QString statusName(MessageStatus s) {
    switch (s) {
    case MessageStatus::Complete: return QStringLiteral("complete");
    case MessageStatus::Streaming: return QStringLiteral("streaming");
    case MessageStatus::Interrupted: return QStringLiteral("interrupted");
    case MessageStatus::Error: return QStringLiteral("error");
    }
    return QStringLiteral("complete");
}

MessageStatus statusFromName(const QString& s) {
    if (s == QLatin1String("streaming")) return MessageStatus::Streaming;
    if (s == QLatin1String("interrupted")) return MessageStatus::Interrupted;
    if (s == QLatin1String("error")) return MessageStatus::Error;
    return MessageStatus::Complete;
}

}  // namespace folio::app
