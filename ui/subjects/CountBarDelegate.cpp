#include "ui/subjects/CountBarDelegate.h"

#include "tollgate/HitResult.h"
#include "ui/common/Palette.h"
#include "ui/subjects/SubjectsModel.h"

#include <QPainter>

namespace tollgate::ui {

void CountBarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const
{
    const QVariant fraction = index.data(SubjectsModel::FractionRole);
    if (fraction.isValid()) {
        // Tones of the view's palette, so the bar and the text over it read on dark too.
        const int tier = index.data(SubjectsModel::TierRole).toInt();
        const Tone tone = tier == int(Tier::Warn)                                ? Tone::Warn
                          : tier == int(Tier::Deny) || tier == int(Tier::Banned) ? Tone::Denied
                                                                                 : Tone::Ok;
        // A shadow policy denies nobody: its bar is in the accent, never the denial's red.
        QColor color = index.data(SubjectsModel::ShadowRole).toBool()
                           ? option.palette.color(QPalette::Link)
                           : toneColor(tone, option.palette);
        color.setAlpha(90);
        QColor track = option.palette.color(QPalette::Text);
        track.setAlpha(24);
        const QRect area = option.rect.adjusted(2, 3, -2, -3);
        QRect bar = area;
        bar.setWidth(int(area.width() * fraction.toDouble()));
        painter->save();
        painter->setPen(Qt::NoPen);
        painter->setBrush(track);
        painter->drawRoundedRect(area, 2, 2);
        painter->setBrush(color);
        if (bar.width() > 0)
            painter->drawRoundedRect(bar, 2, 2);
        painter->restore();
    }
    QStyledItemDelegate::paint(painter, option, index);
}

} // namespace tollgate::ui
