#include "ui/user/UserBansTable.h"

#include "ui/common/DisplayText.h"

#include <QDateTime>
#include <algorithm>

namespace tollgate::ui {

UserBansTable::UserBansTable(QWidget* parent)
    : DetailTable(
          QStringLiteral("bansTableWidget"),
          {tr("Scope"), tr("Reason"), tr("Actor"), tr("Source"), tr("Expires"), tr("Started")},
          parent)
{
}

void UserBansTable::setBans(std::vector<BanInfo> bans)
{
    m_bans = std::move(bans);
    std::sort(m_bans.begin(), m_bans.end(),
              [](const BanInfo& a, const BanInfo& b) { return a.action < b.action; });
    setRowCount(int(m_bans.size()));
    for (int r = 0; r < int(m_bans.size()); ++r) {
        const BanInfo& ban = m_bans[size_t(r)];
        setCell(r, Scope, ban.action.isEmpty() ? tr("all actions") : displayId(ban.action));
        setCell(r, Reason, displayId(ban.reason.toUtf8()));
        setCell(r, Actor, displayId(ban.actor.toUtf8()));
        setCell(r, Source, displayId(ban.source.toUtf8()));
        setCell(r, Expires, QString());
        setCell(r, Started, ban.createdMs > 0 ? formatTime(ban.createdMs) : tr("unknown"));
    }
    tick(); // fills the countdowns, so the columns are sized for them
    fitColumns();
}

void UserBansTable::tick()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (int r = 0; r < int(m_bans.size()); ++r) {
        const BanInfo& ban = m_bans[size_t(r)];
        if (QTableWidgetItem* cell = item(r, Expires))
            cell->setText(ban.untilMs <= 0 ? tr("permanent")
                                           : tr("in %1 (%2)")
                                                 .arg(formatCountdown(ban.untilMs - now),
                                                      formatTime(ban.untilMs)));
    }
}

} // namespace tollgate::ui
