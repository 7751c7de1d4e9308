#pragma once

#include "service/decide/Decision.h"

#include <QByteArray>
#include <QJsonDocument>

// The HTTP endpoint's JSON: Envoy's rate limit request and response in protobuf's JSON mapping
// (field names as in the .proto, enums by name, durations as "1.500s"), and a hit's reply.
namespace tollgate::service {

/// QJsonDocument::fromJson for a request's body, keeping every U+FEFF of its strings: Qt's parser
/// drops a raw U+FEFF anywhere, so "\uFEFFalice" sent unescaped would count as "alice". A
/// leading one (a byte order mark) is skipped, as JSON allows.
QJsonDocument jsonFromBody(QByteArray body, QJsonParseError* error);

/// {"domain", "descriptors": [{"entries": [{"key", "value"}], "limit": {"requests_per_unit",
/// "unit"}, "hits_addend"}], "hits_addend"}; InvalidInput naming the field that is wrong.
Result<DecisionRequest> decisionRequestFromJson(const QByteArray& body);
/// Envoy's RateLimitResponse in protobuf's JSON mapping, with each status's `action` and
/// `user`; the text with a final newline.
QByteArray decisionJson(const Decision& decision);
/// hit.lua's reply: allowed, tier, count, limit, remaining, reset_ms, retry_after_ms, shadow,
/// would_ban, decided_by, override, message.
QByteArray hitJson(const HitResult& hit);

} // namespace tollgate::service
