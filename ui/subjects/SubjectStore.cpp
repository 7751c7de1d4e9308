#include "ui/subjects/SubjectStore.h"

#include "core/subjects/Usage.h"

namespace tollgate::ui {

namespace {

constexpr qint32 kAbsent = -2; // RowIndex::value() when nothing is stored (-1: retired)

quint64 fingerprint(QByteArrayView user, const QByteArray& action, quint64 salt)
{
    const size_t seed = qHash(user.size(), size_t(0x9e3779b97f4a7c15ULL ^ salt));
    const quint64 h = quint64(qHashBits(user.constData(), size_t(user.size()), seed));
    return quint64(qHashBits(action.constData(), size_t(action.size()), size_t(h)));
}

} // namespace

quint16 SubjectStore::actionIndex(const QByteArray& action)
{
    if (m_snapshot.actions.isEmpty()) {
        m_snapshot.actions << QByteArray();
        m_actionIndex.insert(QByteArray(), 0);
    }
    auto it = m_actionIndex.constFind(action);
    if (it != m_actionIndex.constEnd())
        return *it;
    const auto index = quint16(qMin<qsizetype>(m_snapshot.actions.size(), 0xFFFF));
    m_snapshot.actions << action;
    m_actionIndex.insert(action, index);
    return index;
}

void SubjectStore::storeUser(CompactRow& row, const QByteArray& user)
{
    if (user.size() < CompactRow::kLongUser) {
        if (const std::optional<quint32> at = m_snapshot.ids.append(user)) {
            row.userOffset = *at;
            row.userLength = quint16(user.size());
            return;
        }
    }
    row.userOffset = quint32(m_snapshot.longIds.size());
    row.userLength = CompactRow::kLongUser;
    m_snapshot.longIds.append(user);
}

void SubjectStore::prefetch(const Subject& subject) const
{
    m_index.prefetch(fingerprint(subject.user, subject.action, 0));
}

int SubjectStore::find(const QByteArray& user, const QByteArray& action) const
{
    return locate(user, action, nullptr);
}

int SubjectStore::locate(const QByteArray& user, const QByteArray& action, quint64* freeKey) const
{
    // Fingerprints may collide (about 1e-8 at a million rows): confirm, then probe on. A
    // retired row leaves -1 behind, so a probe chain through it stays intact; a new row takes
    // the first key that is free or retired.
    std::optional<quint64> free;
    for (quint64 salt = 0; salt < 4; ++salt) {
        const quint64 key = fingerprint(user, action, salt);
        const qint32 row = m_index.value(key, kAbsent);
        if (row == kAbsent) {
            if (freeKey)
                *freeKey = free.value_or(key);
            return -1;
        }
        if (row < 0) {
            if (!free)
                free = key;
            continue;
        }
        const CompactRow& r = m_snapshot.rows.at(row);
        if (m_snapshot.user(r) == user && m_snapshot.actions.at(r.action) == action)
            return row;
    }
    if (freeKey) {
        for (quint64 salt = 4; !free; ++salt) { // four taken by other rows: practically never
            const quint64 key = fingerprint(user, action, salt);
            if (m_index.value(key, -1) < 0)
                free = key;
        }
        *freeKey = *free;
    }
    return -1;
}

void SubjectStore::count(const CompactRow& row, int sign)
{
    m_totals.banned += row.has(CompactRow::Banned) ? sign : 0;
    m_totals.nearLimit += row.has(CompactRow::Near) ? sign : 0;
    m_totals.errors += row.has(CompactRow::HasError) ? sign : 0;
    if (row.tier == quint8(Tier::Deny)) {
        m_totals.denied += sign;
        if (m_totals.deniedByAction.size() <= row.action)
            m_totals.deniedByAction.resize(size_t(row.action) + 1);
        m_totals.deniedByAction[row.action] += sign;
    }
    m_totals.warned += row.tier == quint8(Tier::Warn) ? sign : 0;
}

std::pair<int, bool> SubjectStore::apply(const Subject& s, qint64 steadyNowMs, quint16 pass)
{
    quint64 freeKey = 0;
    int index = locate(s.user, s.action, &freeKey);
    const bool added = index < 0;
    if (added) {
        CompactRow row;
        storeUser(row, s.user);
        row.action = actionIndex(s.action);
        index = int(m_snapshot.rows.size());
        m_snapshot.rows.append(row);
        m_index.insert(freeKey, index);
        ++m_totals.subjects;
    } else {
        count(m_snapshot.rows.at(index), -1);
    }
    CompactRow& row = m_snapshot.rows[index];
    row.flags = 0;
    row.flags |= s.hasPolicy ? CompactRow::HasPolicy : 0;
    row.flags |= s.stateKnown ? CompactRow::StateKnown : 0;
    row.flags |= s.banned() ? CompactRow::Banned : 0;
    row.flags |= !s.error.isEmpty() ? CompactRow::HasError : 0;
    row.flags |= s.nearLimit() ? CompactRow::Near : 0;
    const BanInfo* ban = s.activeBan();
    row.flags |= ban && ban->source == QLatin1String("auto") ? CompactRow::AutoBan : 0;
    row.count = s.state.count;
    row.limit = s.state.limit;
    row.tier = quint8(s.banned() ? Tier::Banned : s.state.tier);
    row.resetDeadline = s.stateKnown && s.state.resetMs > 0 ? steadyNowMs + s.state.resetMs : 0;
    if (row.tier != quint8(Tier::Deny))
        row.deniedSeenS = 0;
    else if (row.deniedSeenS == 0) // denied since this read, as far as the console knows
        row.deniedSeenS = quint32(qMax<qint64>(1, steadyNowMs / 1000));
    // A pass saw the key itself; any other read only proves the row alive while it holds
    // something (an expired counter read by the visible-rows refresh must still retire).
    const bool holds = (s.stateKnown && s.state.count > 0) || ban || !s.error.isEmpty();
    if (pass != 0)
        row.seenPass = pass;
    else if (holds || added)
        row.seenPass = m_pass;
    if (ban || !s.error.isEmpty()) {
        RowExtra extra{ban ? std::optional<BanInfo>(*ban) : std::nullopt, ban && !s.ban, s.error};
        if (row.extra < 0) {
            row.extra = qint32(m_snapshot.extras.size());
            m_snapshot.extras.append(std::move(extra));
        } else {
            m_snapshot.extras[row.extra] = std::move(extra);
        }
    } else {
        row.extra = -1; // the old side entry stays unused; bans are rare
    }
    count(row, +1);
    return {index, added};
}

quint16 SubjectStore::beginPass()
{
    if (++m_pass == 0)
        ++m_pass;
    return m_pass;
}

void SubjectStore::retire(const std::vector<quint32>& rows)
{
    for (quint32 index : rows) {
        CompactRow& row = m_snapshot.rows[qsizetype(index)];
        if (row.has(CompactRow::Retired))
            continue;
        const QByteArrayView user = m_snapshot.user(row);
        const QByteArray& action = m_snapshot.actions.at(row.action);
        for (quint64 salt = 0; salt < 4; ++salt) {
            const quint64 key = fingerprint(user, action, salt);
            if (m_index.value(key, kAbsent) == qint32(index)) {
                m_index.insert(key, -1);
                break;
            }
        }
        count(row, -1);
        --m_totals.subjects;
        row.flags = CompactRow::Retired;
        row.extra = -1;
    }
}

void SubjectStore::reserve(qint64 rows)
{
    if (rows <= m_snapshot.rows.size())
        return;
    m_snapshot.rows.reserve(rows);
    m_index.reserve(rows);
}

void SubjectStore::clear()
{
    m_snapshot = StoreSnapshot();
    m_actionIndex.clear();
    m_index.clear();
    m_totals = Totals();
    m_pass = 0;
}

} // namespace tollgate::ui
