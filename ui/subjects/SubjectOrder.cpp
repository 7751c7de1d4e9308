#include "ui/subjects/SubjectOrder.h"

#include "ui/subjects/SubjectFigures.h"
#include "ui/subjects/SubjectsModel.h"

#include <algorithm>
#include <cstring>

namespace tollgate::ui {

namespace {

char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

bool containsFolded(QByteArrayView haystack, QByteArrayView needle)
{
    if (needle.size() > haystack.size())
        return false;
    for (qsizetype i = 0; i + needle.size() <= haystack.size(); ++i) {
        qsizetype j = 0;
        while (j < needle.size() && lower(haystack[i + j]) == needle[j])
            ++j;
        if (j == needle.size())
            return true;
    }
    return false;
}

// The first 8 bytes, big-endian: most user comparisons end here, without touching the buffer.
quint64 prefixKey(QByteArrayView id)
{
    quint64 key = 0;
    for (int i = 0; i < 8; ++i)
        key = (key << 8) | (i < id.size() ? quint8(id[i]) : 0);
    return key;
}

} // namespace

bool SubjectFilter::accepts(const CompactRow& row, QByteArrayView user, const QByteArray& rowAction,
                            const FilterJoin& join) const
{
    if (actionSet && rowAction != action)
        return false;
    switch (state) {
    case State::Any:
        break;
    case State::Banned:
        if (!row.has(CompactRow::Banned))
            return false;
        break;
    case State::Denied:
        if (row.tier != quint8(Tier::Deny) || join.shadow(row.action))
            return false;
        break;
    case State::Shadow:
        if (!join.shadow(row.action))
            return false;
        break;
    case State::WouldDeny:
        if (row.tier != quint8(Tier::Deny) || !join.shadow(row.action))
            return false;
        break;
    case State::Warned:
        if (row.tier != quint8(Tier::Warn))
            return false;
        break;
    case State::NearLimit:
        if (!row.has(CompactRow::Near))
            return false;
        break;
    case State::Errors:
        if (!row.has(CompactRow::HasError))
            return false;
        break;
    case State::Overridden:
    case State::Exempt: {
        const OverrideMarks::Mark* mark =
            join.marks ? join.marks->find(user, rowAction, join.nowMs) : nullptr;
        const OverrideKind wanted =
            state == State::Exempt ? OverrideKind::Unlimited : OverrideKind::Limit;
        if (!mark || mark->kind != wanted)
            return false;
        break;
    }
    }
    if (text.isEmpty())
        return true;
    if (text.endsWith('*')) // the text is lower-cased by the model
        return user.size() >= text.size() - 1 &&
               containsFolded(user.first(text.size() - 1), QByteArrayView(text).chopped(1));
    return containsFolded(user, text);
}

std::vector<int> actionRanks(const QList<QByteArray>& actions)
{
    std::vector<int> byName(size_t(actions.size()));
    for (size_t i = 0; i < byName.size(); ++i)
        byName[i] = int(i);
    std::sort(byName.begin(), byName.end(),
              [&](int a, int b) { return actions.at(a) < actions.at(b); });
    std::vector<int> rank(byName.size());
    for (size_t i = 0; i < byName.size(); ++i)
        rank[size_t(byName[i])] = int(i);
    return rank;
}

SortContext SortContext::of(const QList<QByteArray>& actions, const ActionPolicies& policies,
                            const OverrideMarks* marks, qint64 steadyMs, qint64 epochMs)
{
    return {actions, actionRanks(actions), policies.byIndex(actions), marks, steadyMs, epochMs};
}

double sortKey(const CompactRow& row, QByteArrayView user, const RowExtra* extra, int column,
               const SortContext& context)
{
    const bool known = row.has(CompactRow::StateKnown);
    switch (column) {
    case SubjectsModel::Action:
        return row.action < context.ranks.size() ? context.ranks[row.action] : 0;
    case SubjectsModel::Count:
        return known && row.limit > 0 ? double(row.count) / double(row.limit) : -1.0;
    case SubjectsModel::Remaining:
        return known ? double(row.remaining()) : -1.0;
    case SubjectsModel::Ttl:
        return double(row.resetDeadline); // a deadline: no "now" in the comparison
    case SubjectsModel::Since: {
        // Unknown last: ascending lists the longest-standing bans and denials first.
        const Since since = sinceOf(row, extra);
        return since.kind == Since::Kind::None ? 1e18 : double(since.epochMs);
    }
    case SubjectsModel::Rate: {
        const Policy* policy =
            row.action < context.policies.size() ? context.policies[row.action] : nullptr;
        if (!policy)
            return -1.0;
        const OverrideMarks::Mark* mark = nullptr; // the override's windows, when it has some
        if (context.marks && !context.marks->isEmpty() && row.action < context.actions.size())
            mark = context.marks->find(user, context.actions.at(row.action), context.epochMs);
        return rateOf(row, policy, mark, context.steadyMs);
    }
    case SubjectsModel::Ban:
        return !extra || !extra->ban      ? -1.0
               : extra->ban->untilMs == 0 ? 1e18
                                          : double(extra->ban->untilMs);
    default:
        return 0;
    }
}

RowOrder computeOrder(const StoreSnapshot& snap, const OrderRequest& request)
{
    RowOrder order;
    const SubjectFilter& filter = request.filter;
    const SortSpec& sort = request.sort;
    const qsizetype n = snap.rows.size();
    static const ActionPolicies kNoPolicies;
    const ActionPolicies& policies = request.policies ? *request.policies : kNoPolicies;
    std::vector<bool> leaving;
    if (request.retirePass != 0) {
        leaving.assign(size_t(n), false);
        for (qsizetype i = 0; i < n; ++i) {
            const CompactRow& row = snap.rows.at(i);
            if (!row.has(CompactRow::Retired) && SubjectStore::unseenBy(row, request.retirePass)) {
                order.retired.push_back(quint32(i));
                leaving[size_t(i)] = true;
            }
        }
    }
    auto stays = [&](quint32 i) { return leaving.empty() || !leaving[i]; };
    if (request.keep) {
        order.rows.reserve(request.keep->size());
        for (quint32 i : *request.keep)
            if (stays(i) && !snap.rows.at(i).has(CompactRow::Retired))
                order.rows.push_back(i);
    } else {
        const std::vector<bool> shadow = policies.shadowByIndex(snap.actions);
        const FilterJoin join{request.marks.get(), request.nowMs, &shadow};
        order.rows.reserve(size_t(n));
        for (qsizetype i = 0; i < n; ++i) {
            const CompactRow& row = snap.rows.at(i);
            if (row.has(CompactRow::Retired) || !stays(quint32(i)))
                continue;
            if (filter.isEmpty() ||
                filter.accepts(row, snap.user(row), snap.actions.at(row.action), join))
                order.rows.push_back(quint32(i));
        }
    }
    if (sort.column >= 0 && !request.keep) {
        // One numeric key per row, computed once; ties fall back to the user id.
        std::vector<std::pair<double, quint64>> keys(static_cast<size_t>(n));
        const SortContext context = SortContext::of(snap.actions, policies, request.marks.get(),
                                                    request.steadyNowMs, request.nowMs);
        for (quint32 i : order.rows) {
            const CompactRow& row = snap.rows.at(i);
            keys[i] = {sortKey(row, snap.user(row), snap.extra(row), sort.column, context),
                       prefixKey(snap.user(row))};
        }
        auto less = [&](quint32 a, quint32 b) {
            if (keys[a] != keys[b])
                return keys[a] < keys[b];
            const QByteArrayView ua = snap.user(snap.rows.at(a));
            const QByteArrayView ub = snap.user(snap.rows.at(b));
            const int c = std::memcmp(ua.data(), ub.data(), size_t(qMin(ua.size(), ub.size())));
            if (c != 0 || ua.size() != ub.size())
                return c != 0 ? c < 0 : ua.size() < ub.size();
            return a < b;
        };
        if (sort.order == Qt::AscendingOrder)
            std::sort(order.rows.begin(), order.rows.end(), less);
        else
            std::sort(order.rows.begin(), order.rows.end(),
                      [&](quint32 a, quint32 b) { return less(b, a); });
    }
    order.viewRowOf.assign(size_t(n), -1);
    for (size_t v = 0; v < order.rows.size(); ++v)
        order.viewRowOf[order.rows[v]] = qint32(v);
    return order;
}

} // namespace tollgate::ui
