#pragma once

#include "core/subjects/Usage.h"
#include "tollgate/Subjects.h"
#include "ui/common/ByteBlocks.h"
#include "ui/subjects/RowIndex.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHash>
#include <QList>
#include <vector>

namespace tollgate::ui {

/// One subjects-table row in 48 bytes: the user id lives in shared blocks, the action in a
/// small table (there are few actions), the numbers in place. Ban details and error texts,
/// needed by about 1 % of rows, sit in a side table. `seenPass` is the last full pass (first
/// pass or sweep) that found the subject in Redis: rows a finished pass did not see retire.
struct CompactRow
{
    enum Flag : quint8
    {
        HasPolicy = 1,
        StateKnown = 2,
        Banned = 4,
        AutoBan = 8,
        HasError = 16,
        Near = 32,
        Retired = 64, // vanished from Redis: out of the index, the totals and the view
    };

    // Where the user id is: in the snapshot's `ids` (ByteBlocks' address), or with
    // userLength == kLongUser at index userOffset of its `longIds`.
    quint32 userOffset = 0;
    quint16 userLength = 0;
    static constexpr quint16 kLongUser = 0xFFFF;
    quint16 action = 0; // index into the action table; 0 = "" (a user-wide ban row)
    qint64 count = 0;
    qint64 limit = 0;
    qint64 resetDeadline = 0; // steady-clock ms (QDeadlineTimer) when the window empties; 0 = empty
    qint32 extra = -1;        // index into the side table, -1 = none
    quint8 tier = 0;          // int(Tier)
    quint8 flags = 0;
    quint16 seenPass = 0;
    // Steady-clock seconds of the first read of this row's current run of denied reads (the
    // console's own observation: Redis keeps no such time); 0 = not denied at the last read.
    quint32 deniedSeenS = 0;

    bool has(Flag flag) const { return flags & flag; }
    qint64 remaining() const { return remainingShown(limit, count, has(Banned)); }
};
static_assert(sizeof(CompactRow) <= 48, "a million rows must stay well under 100 MB");

/// What ~1 % of rows carry besides numbers.
struct RowExtra
{
    std::optional<BanInfo> ban; // the ban that applies (the action's, else the user-wide one)
    bool userWide = false;
    QString error;
};

/// An immutable, implicitly shared copy of the store for the sorting worker (taking one costs
/// a pointer per MiB of ids; the store does not write while one is out, so nothing is ever
/// deep-copied).
struct StoreSnapshot
{
    QList<CompactRow> rows;
    ByteBlocks ids;            // the ids of fewer than kLongUser bytes: nearly all of them
    QList<QByteArray> longIds; // the others (a 1 MB id is valid), and any the blocks can't take
    QList<QByteArray> actions;
    QList<RowExtra> extras;

    QByteArrayView user(const CompactRow& row) const
    {
        if (Q_UNLIKELY(row.userLength == CompactRow::kLongUser))
            return longIds.at(row.userOffset);
        return ids.view(row.userOffset, row.userLength);
    }
    const RowExtra* extra(const CompactRow& row) const
    {
        return row.extra < 0 ? nullptr : &extras.at(row.extra);
    }
};

/// Every subject the page knows, compact, indexed by (user, action), with running totals.
/// Rows are only ever appended, updated in place or retired (a tombstone, left out of the
/// index and the totals): a row's index never changes.
class SubjectStore
{
public:
    struct Totals
    {
        qint64 subjects = 0;
        qint64 banned = 0;
        qint64 nearLimit = 0;
        qint64 denied = 0;
        qint64 warned = 0;
        qint64 errors = 0;
        std::vector<qint64> deniedByAction; // the denied rows by action index (shadow or not)
    };

    /// Inserts or updates the subject's row; returns its index and whether it is new. `pass`
    /// (non-zero) is the full pass that found the subject; 0 = a read outside a pass, which
    /// marks the row seen by the current pass only while the subject still holds something.
    std::pair<int, bool> apply(const Subject& subject, qint64 steadyNowMs, quint16 pass = 0);
    /// Starts the next full pass; returns its number (never 0).
    quint16 beginPass();
    /// True when `row` was not seen by `pass` nor by any later one.
    static bool unseenBy(const CompactRow& row, quint16 pass)
    {
        return qint16(quint16(row.seenPass - pass)) < 0;
    }
    /// Tombstones these rows (found unseen by a finished pass on the worker).
    void retire(const std::vector<quint32>& rows);
    /// The row of (user, action), or -1.
    int find(const QByteArray& user, const QByteArray& action) const;
    /// Starts loading what apply() looks up first for `subject`: a slice prefetches the rows
    /// ahead of the one it applies, so their cache misses overlap.
    void prefetch(const Subject& subject) const;

    int size() const { return int(m_snapshot.rows.size()); }
    const CompactRow& row(int index) const { return m_snapshot.rows.at(index); }
    QByteArrayView user(int index) const { return m_snapshot.user(row(index)); }
    QByteArray userId(int index) const { return user(index).toByteArray(); }
    const QByteArray& action(int index) const { return m_snapshot.actions.at(row(index).action); }
    const RowExtra* extra(int index) const { return m_snapshot.extra(row(index)); }
    const Totals& totals() const { return m_totals; }
    const QList<QByteArray>& actions() const { return m_snapshot.actions; }

    StoreSnapshot snapshot() const { return m_snapshot; }
    /// Room for about `rows` rows, so growing never rehashes or copies a million rows at once.
    void reserve(qint64 rows);
    void clear();

private:
    quint16 actionIndex(const QByteArray& action);
    void storeUser(CompactRow& row, const QByteArray& user);
    /// find(), and with `freeKey` the index key a new row of (user, action) takes: one lookup
    /// for both while a million rows stream in.
    int locate(const QByteArray& user, const QByteArray& action, quint64* freeKey) const;
    void count(const CompactRow& row, int sign);

    StoreSnapshot m_snapshot;
    QHash<QByteArray, quint16> m_actionIndex;
    RowIndex m_index; // fingerprint of (user, action) -> row
    Totals m_totals;
    quint16 m_pass = 0;
};

} // namespace tollgate::ui
