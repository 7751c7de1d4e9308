#pragma once

#include <QStyledItemDelegate>

namespace tollgate::ui {

/// Paints "count / limit" over a bar filled to count / limit (SubjectsModel::FractionRole),
/// green, amber when warned, red when denied or banned.
class CountBarDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
};

} // namespace tollgate::ui
