#include "ui/subjects/CountBarDelegate.h"

#include "core/limits/HitResult.h"
#include "ui/subjects/SubjectsModel.h"

#include <QPainter>

namespace tollgate::ui {

void CountBarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const
{
    const QVariant fraction = index.data(SubjectsModel::FractionRole);
    if (fraction.isValid()) {
        QColor color(0x4c, 0xaf, 0x50); // ok
        const int tier = index.data(SubjectsModel::TierRole).toInt();
        if (tier == int(Tier::Warn))
            color = QColor(0xff, 0xa0, 0x00);
        else if (tier == int(Tier::Deny) || tier == int(Tier::Banned))
            color = QColor(0xe5, 0x39, 0x35);
        color.setAlpha(110);
        const QRect area = option.rect.adjusted(2, 3, -2, -3);
        QRect bar = area;
        bar.setWidth(int(area.width() * fraction.toDouble()));
        painter->save();
        painter->setPen(Qt::NoPen);
        painter->setBrush(QColor(0, 0, 0, 18));
        painter->drawRoundedRect(area, 2, 2);
        painter->setBrush(color);
        if (bar.width() > 0)
            painter->drawRoundedRect(bar, 2, 2);
        painter->restore();
    }
    QStyledItemDelegate::paint(painter, option, index);
}

} // namespace tollgate::ui
