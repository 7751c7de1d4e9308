#include "tollgate/Moderation.h"

namespace tollgate {

std::optional<LimitEvent> LimitEvent::parse(const QByteArray& payload)
{
    const qsizetype first = payload.indexOf('\n');
    const qsizetype second = first < 0 ? -1 : payload.indexOf('\n', first + 1);
    if (second < 0)
        return std::nullopt;
    bool ok = false;
    const qsizetype userLength = payload.mid(first + 1, second - first - 1).toLongLong(&ok);
    const QByteArray ids = payload.mid(second + 1);
    if (!ok || userLength < 0 || userLength > ids.size())
        return std::nullopt;
    return LimitEvent{payload.left(first), ids.left(userLength), ids.mid(userLength)};
}

} // namespace tollgate
