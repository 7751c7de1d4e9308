#include "ui/subjects/SubjectOrder.h"

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

bool SubjectFilter::accepts(const CompactRow& row, QByteArrayView user,
                            const QByteArray& rowAction) const
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
        if (row.tier != quint8(Tier::Deny))
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
    }
    if (text.isEmpty())
        return true;
    if (text.endsWith('*')) // the text is lower-cased by the model
        return user.size() >= text.size() - 1 &&
               containsFolded(user.first(text.size() - 1), QByteArrayView(text).chopped(1));
    return containsFolded(user, text);
}

RowOrder computeOrder(const StoreSnapshot& snap, const SubjectFilter& filter, const SortSpec& sort)
{
    RowOrder order;
    const qsizetype n = snap.rows.size();
    order.rows.reserve(size_t(n));
    for (qsizetype i = 0; i < n; ++i) {
        const CompactRow& row = snap.rows.at(i);
        if (filter.isEmpty() || filter.accepts(row, snap.user(row), snap.actions.at(row.action)))
            order.rows.push_back(quint32(i));
    }
    if (sort.column >= 0) {
        // One numeric key per row, computed once; ties fall back to the user id.
        std::vector<std::pair<double, quint64>> keys(static_cast<size_t>(n));
        std::vector<int> actionRank(size_t(snap.actions.size()));
        {
            std::vector<int> byName(actionRank.size());
            for (size_t i = 0; i < byName.size(); ++i)
                byName[i] = int(i);
            std::sort(byName.begin(), byName.end(),
                      [&](int a, int b) { return snap.actions.at(a) < snap.actions.at(b); });
            for (size_t i = 0; i < byName.size(); ++i)
                actionRank[size_t(byName[i])] = int(i);
        }
        for (quint32 i : order.rows) {
            const CompactRow& row = snap.rows.at(i);
            const bool known = row.has(CompactRow::StateKnown);
            double key = 0;
            switch (sort.column) {
            case SubjectsModel::Action:
                key = actionRank[row.action];
                break;
            case SubjectsModel::Count:
                key = known && row.limit > 0 ? double(row.count) / double(row.limit) : -1.0;
                break;
            case SubjectsModel::Remaining:
                key = known ? double(row.remaining()) : -1.0;
                break;
            case SubjectsModel::Ttl:
                key = double(row.resetDeadline); // a deadline: no "now" in the comparison
                break;
            case SubjectsModel::Ban: {
                const RowExtra* extra = snap.extra(row);
                key = !extra || !extra->ban      ? -1.0
                      : extra->ban->untilMs == 0 ? 1e18
                                                 : double(extra->ban->untilMs);
                break;
            }
            default:
                break;
            }
            keys[i] = {key, prefixKey(snap.user(row))};
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
