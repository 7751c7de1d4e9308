#pragma once

#include "tollgate/Overrides.h"

#include <QByteArrayView>
#include <QHash>
#include <memory>
#include <vector>

namespace tollgate::ui {

/// Which users have overrides, for the Subjects page to join against its rows: built once per
/// read of the override index (on a worker, from OverrideStore::list), then shared read-only
/// by the model (a lookup per painted row) and the sorting worker (a lookup per row, only
/// while filtering by override). Its size grows with the overrides, never with the subjects.
class OverrideMarks
{
public:
    struct Mark
    {
        OverrideKind kind = OverrideKind::Limit;
        qint64 untilMs = 0; // 0 = permanent
        std::vector<WindowLimit> windows;
        QString reason;
        QString actor;
    };

    OverrideMarks() = default;
    explicit OverrideMarks(const std::vector<Override>& overrides);

    /// The override that applies to (user, action) at epoch ms `nowMs`: the action's own, else
    /// the user's every-action one; null when none (or it has ended). `action` empty (a
    /// user-wide ban row): the every-action one only.
    const Mark* find(QByteArrayView user, const QByteArray& action, qint64 nowMs) const;

    qint64 overriddenUsers() const { return m_limitUsers; } // with at least one Limit override
    qint64 exemptUsers() const { return m_exemptUsers; }    // with at least one Unlimited
    bool isEmpty() const { return m_byUser.isEmpty(); }

private:
    // user -> (action -> mark); "*" for every action.
    QHash<QByteArray, QHash<QByteArray, Mark>> m_byUser;
    qint64 m_limitUsers = 0;
    qint64 m_exemptUsers = 0;
};

using SharedOverrideMarks = std::shared_ptr<const OverrideMarks>;

} // namespace tollgate::ui
