#include "ui/subjects/OverrideMarks.h"

namespace tollgate::ui {

OverrideMarks::OverrideMarks(const std::vector<Override>& overrides)
{
    for (const Override& o : overrides)
        m_byUser[o.user].insert(o.action, Mark{o.kind, o.untilMs, o.windows, o.reason, o.actor});
    for (const auto& actions : std::as_const(m_byUser)) {
        bool limit = false;
        bool exempt = false;
        for (const Mark& mark : actions) {
            limit = limit || mark.kind == OverrideKind::Limit;
            exempt = exempt || mark.kind == OverrideKind::Unlimited;
        }
        m_limitUsers += limit ? 1 : 0;
        m_exemptUsers += exempt ? 1 : 0;
    }
}

const OverrideMarks::Mark* OverrideMarks::find(QByteArrayView user, const QByteArray& action,
                                               qint64 nowMs) const
{
    auto live = [nowMs](const Mark& mark) { return mark.untilMs == 0 || nowMs < mark.untilMs; };
    if (m_byUser.isEmpty())
        return nullptr;
    // No copy of the id: the hash only reads it during the lookup.
    const QByteArray key = QByteArray::fromRawData(user.data(), user.size());
    const auto it = m_byUser.constFind(key);
    if (it == m_byUser.constEnd())
        return nullptr;
    if (!action.isEmpty()) {
        const auto own = it->constFind(action);
        if (own != it->constEnd() && live(*own))
            return &*own;
    }
    const auto every = it->constFind(QByteArray::fromRawData(Override::kEveryAction, 1));
    return every == it->constEnd() || !live(*every) ? nullptr : &*every;
}

} // namespace tollgate::ui
