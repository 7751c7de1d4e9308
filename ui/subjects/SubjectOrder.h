#pragma once

#include "ui/subjects/OverrideMarks.h"
#include "ui/subjects/SubjectStore.h"

#include <QString>
#include <optional>
#include <vector>

namespace tollgate::ui {

/// Which rows the page shows. Cheap per row, so it runs on the worker for the whole store and
/// on the GUI thread only for the rows of the slice being applied.
struct SubjectFilter
{
    enum class State
    {
        Any,
        Banned,
        Denied,
        Warned,
        NearLimit,
        Errors,
        Overridden, // an override with other limits applies to the row
        Exempt      // an unlimited override applies to the row
    };

    QByteArray text;   // user id: case-insensitive substring; "abc*" = prefix
    QByteArray action; // with actionSet: only this action
    bool actionSet = false;
    State state = State::Any;

    bool isEmpty() const { return text.isEmpty() && !actionSet && state == State::Any; }
    /// `marks` (the override index, at epoch ms `nowMs`) is only read by the override states.
    bool accepts(const CompactRow& row, QByteArrayView user, const QByteArray& action,
                 const OverrideMarks* marks = nullptr, qint64 nowMs = 0) const;
    bool operator==(const SubjectFilter& o) const
    {
        return text == o.text && action == o.action && actionSet == o.actionSet && state == o.state;
    }
};

/// Column to sort by (-1 = arrival order) and direction.
struct SortSpec
{
    int column = -1;
    Qt::SortOrder order = Qt::AscendingOrder;
};

/// Rows to show, in order (store row indexes), and where each store row landed (-1 = hidden),
/// so the model can move persistent indexes without a search; `retired`: rows the finished
/// pass did not see, for the store to tombstone when the order is swapped in.
struct RowOrder
{
    std::vector<quint32> rows;
    std::vector<qint32> viewRowOf;
    std::vector<quint32> retired;
};

/// Where each action sorts by name: rank[action index].
std::vector<int> actionRanks(const QList<QByteArray>& actions);

/// The number a row sorts by in `column`, the one definition the worker sorts by and the
/// model's SortRole shows: count / limit, remaining, the TTL's deadline (no "now" in it), the
/// ban's end, the action's rank; 0 for User. Ties (and User) go by the user id's bytes.
double sortKey(const CompactRow& row, const RowExtra* extra, int column,
               const std::vector<int>& ranks);

/// What the worker is asked for.
struct OrderRequest
{
    SubjectFilter filter;
    SortSpec sort;
    quint16 retirePass = 0; // rows unseen by this finished pass leave (0 = none)
    // Given: keep this order (rows stay where the operator sees them) and only drop the
    // retired rows; the filter and the sort are not applied again.
    std::optional<std::vector<quint32>> keep;
    SharedOverrideMarks marks; // for the override states of the filter
    qint64 nowMs = 0;          // epoch ms the marks are judged at
};

/// Filters and sorts on precomputed keys, or keeps the given order: for the worker thread,
/// over a snapshot. Retired rows are left out and listed in `retired`.
RowOrder computeOrder(const StoreSnapshot& snapshot, const OrderRequest& request);

} // namespace tollgate::ui
