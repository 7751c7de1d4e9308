#pragma once

#include <QSortFilterProxyModel>

namespace tollgate::ui {

/// The near-limit list as shown: sorted by any column (numbers as numbers, through
/// NearLimitModel::SortRole) and, with "denied now", only the rows whose next hit is refused
/// (banned, or denied by an enforced policy). It sorts the list's few rows, never the subjects.
class NearLimitFilter : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit NearLimitFilter(QObject* parent = nullptr);

    void setDeniedOnly(bool deniedOnly);
    bool deniedOnly() const { return m_deniedOnly; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    bool m_deniedOnly = false;
};

} // namespace tollgate::ui
