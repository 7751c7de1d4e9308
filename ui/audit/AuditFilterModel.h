#pragma once

#include <QSortFilterProxyModel>

namespace tollgate::ui {

/// Filters an AuditModel by free text (any column, case-insensitive) and by event name.
/// Keeps the source order (newest first); it never sorts.
class AuditFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    void setText(const QString& text);
    /// Empty: every event.
    void setEvent(const QString& event);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString m_text;
    QString m_event;
};

} // namespace tollgate::ui
