#pragma once

#include <QString>
#include <optional>

namespace tollgate::ui {

/// The palettes the console offers (View › Palette, --palette, TOLLGATE_PALETTE).
enum class PaletteChoice
{
    System, // the style and palette the desktop gave the application
    Light,  // Fusion, light
    Dark,   // Fusion with darkPalette()
};

/// "system", "light" or "dark"; nullopt for anything else.
std::optional<PaletteChoice> paletteChoiceNamed(const QString& name);
QString paletteChoiceName(PaletteChoice choice);

/// Switches the running application to `choice`, every open window at once (Qt sends each
/// widget a palette change). "System" brings back what the application started with.
void applyPaletteChoice(PaletteChoice choice);
/// The last choice applied; System until one is.
PaletteChoice currentPaletteChoice();

} // namespace tollgate::ui
