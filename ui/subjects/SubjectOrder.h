#pragma once

#include "ui/subjects/SubjectStore.h"

#include <QString>
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
        Errors
    };

    QByteArray text;   // user id: case-insensitive substring; "abc*" = prefix
    QByteArray action; // with actionSet: only this action
    bool actionSet = false;
    State state = State::Any;

    bool isEmpty() const { return text.isEmpty() && !actionSet && state == State::Any; }
    bool accepts(const CompactRow& row, QByteArrayView user, const QByteArray& action) const;
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
/// so the model can move persistent indexes without a search.
struct RowOrder
{
    std::vector<quint32> rows;
    std::vector<qint32> viewRowOf;
};

/// Filters and sorts on precomputed keys (TTL by deadline, count by count / limit, user by
/// bytes): for the worker thread, over a snapshot.
RowOrder computeOrder(const StoreSnapshot& snapshot, const SubjectFilter& filter,
                      const SortSpec& sort);

} // namespace tollgate::ui
