#pragma once

#include "ui/subjects/ActionPolicies.h"
#include "ui/subjects/OverrideMarks.h"
#include "ui/subjects/SubjectStore.h"

#include <QString>
#include <optional>
#include <vector>

namespace tollgate::ui {

/// What the filter joins a row against besides the row itself: the override index (at epoch
/// ms `nowMs`) and which actions' policies are in shadow mode, by the store's action index.
struct FilterJoin
{
    const OverrideMarks* marks = nullptr;
    qint64 nowMs = 0;
    const std::vector<bool>* shadowActions = nullptr;

    bool shadow(quint16 action) const
    {
        return shadowActions && action < shadowActions->size() && (*shadowActions)[action];
    }
};

/// Which rows the page shows. Cheap per row, so it runs on the worker for the whole store and
/// on the GUI thread only for the rows of the slice being applied.
struct SubjectFilter
{
    enum class State
    {
        Any,
        Banned,
        Denied, // by an enforced policy (a shadow policy denies nobody)
        Warned,
        NearLimit,
        Errors,
        Overridden, // an override with other limits applies to the row
        Exempt,     // an unlimited override applies to the row
        Shadow,     // the action's policy is in shadow mode
        WouldDeny   // the action's shadow policy would deny the row's next hit
    };

    QByteArray text;   // user id: case-insensitive substring; "abc*" = prefix
    QByteArray action; // with actionSet: only this action
    bool actionSet = false;
    State state = State::Any;

    bool isEmpty() const { return text.isEmpty() && !actionSet && state == State::Any; }
    /// `join` is only read by the override and shadow states (and Denied).
    bool accepts(const CompactRow& row, QByteArrayView user, const QByteArray& action,
                 const FilterJoin& join = {}) const;
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

/// What the sort keys of one sort are computed with: the same for every row, so the model's
/// SortRole (with the clock of the last sort) shows what the worker sorted by.
struct SortContext
{
    QList<QByteArray> actions;            // the store's action table
    std::vector<int> ranks;               // actionRanks
    std::vector<const Policy*> policies;  // ActionPolicies::byIndex
    const OverrideMarks* marks = nullptr; // for the rate of an overridden row
    qint64 steadyMs = 0;                  // the rate is measured at this steady time
    qint64 epochMs = 0;                   // overrides are judged at this time

    /// `policies` and `marks` must outlive the context.
    static SortContext of(const QList<QByteArray>& actions, const ActionPolicies& policies,
                          const OverrideMarks* marks, qint64 steadyMs, qint64 epochMs);
};

/// The number a row sorts by in `column`, the one definition the worker sorts by and the
/// model's SortRole shows: count / limit, remaining, the TTL's deadline (no "now" in it), since
/// when (epoch ms; unknown last), hits per minute, the ban's end, the action's rank; 0 for
/// User. Ties (and User) go by the user id's bytes.
double sortKey(const CompactRow& row, QByteArrayView user, const RowExtra* extra, int column,
               const SortContext& context);

/// What the worker is asked for.
struct OrderRequest
{
    SubjectFilter filter;
    SortSpec sort;
    quint16 retirePass = 0; // rows unseen by this finished pass leave (0 = none)
    // Given: keep this order (rows stay where the operator sees them) and only drop the
    // retired rows; the filter and the sort are not applied again.
    std::optional<std::vector<quint32>> keep;
    SharedOverrideMarks marks;     // for the override states of the filter, and rates
    SharedActionPolicies policies; // for the shadow states of the filter, and rates
    qint64 nowMs = 0;              // epoch ms the marks are judged at
    qint64 steadyNowMs = 0;        // steady ms the rates are measured at
};

/// Filters and sorts on precomputed keys, or keeps the given order: for the worker thread,
/// over a snapshot. Retired rows are left out and listed in `retired`.
RowOrder computeOrder(const StoreSnapshot& snapshot, const OrderRequest& request);

} // namespace tollgate::ui
