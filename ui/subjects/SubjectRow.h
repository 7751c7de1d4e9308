#pragma once

#include "core/limits/HitResult.h"
#include "core/limits/Moderation.h"

#include <QByteArray>
#include <QPair>
#include <optional>

namespace tollgate::ui {

/// (user, action); action is empty for a row that only carries a user-wide ban.
using SubjectKey = QPair<QByteArray, QByteArray>;

/// One row of the subjects table, as the background refresh fetched it.
struct SubjectRow
{
    QByteArray user;
    QByteArray action;
    bool hasPolicy = false;
    bool stateKnown = false;        // peeked (at least once)
    HitResult state;                // what a hit of cost 1 would get
    qint64 resetDeadline = 0;       // steady-clock ms (QDeadlineTimer) when the window empties
    std::optional<BanInfo> ban;     // ban of this action
    std::optional<BanInfo> userBan; // ban of every action of the user
    QString error;

    SubjectKey key() const { return {user, action}; }
    bool banned() const { return ban.has_value() || userBan.has_value(); }
    /// At 90 % of the limit or more, or already warned / denied.
    bool nearLimit() const
    {
        if (!stateKnown || state.limit <= 0)
            return false;
        return state.tier == Tier::Warn || state.tier == Tier::Deny ||
               state.remaining * 10 <= state.limit;
    }
};

} // namespace tollgate::ui
