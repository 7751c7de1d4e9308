#pragma once

#include <QColor>
#include <QGuiApplication>
#include <QPalette>

namespace tollgate::ui {

/// What a coloured text or mark means; the shade depends on the palette so it stays readable
/// on a light and on a dark desktop.
enum class Tone
{
    Ok,
    Warn,
    Denied
};

/// True when the palette's base (the background of tables and fields) is dark.
bool isDarkPalette(const QPalette& palette = QGuiApplication::palette());

/// The text colour for `tone` on `palette`'s base: deep shades on light, light ones on dark.
QColor toneColor(Tone tone, const QPalette& palette = QGuiApplication::palette());

/// A dark Fusion palette (TOLLGATE_PALETTE=dark or --palette dark), for people and for
/// screenshots that check the console reads well on a dark desktop.
QPalette darkPalette();

} // namespace tollgate::ui
