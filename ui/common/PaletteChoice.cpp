#include "ui/common/PaletteChoice.h"

#include "ui/common/Palette.h"

#include <QApplication>
#include <QStyle>

namespace tollgate::ui {

namespace {

struct Applied
{
    bool saved = false; // the desktop's style and palette, kept before the first switch
    QString style;
    QPalette palette;
    PaletteChoice choice = PaletteChoice::System;
};

Applied& applied()
{
    static Applied state;
    return state;
}

} // namespace

std::optional<PaletteChoice> paletteChoiceNamed(const QString& name)
{
    for (PaletteChoice choice : {PaletteChoice::System, PaletteChoice::Light, PaletteChoice::Dark})
        if (name == paletteChoiceName(choice))
            return choice;
    return std::nullopt;
}

QString paletteChoiceName(PaletteChoice choice)
{
    switch (choice) {
    case PaletteChoice::Light:
        return QStringLiteral("light");
    case PaletteChoice::Dark:
        return QStringLiteral("dark");
    case PaletteChoice::System:
        break;
    }
    return QStringLiteral("system");
}

void applyPaletteChoice(PaletteChoice choice)
{
    Applied& state = applied();
    if (!state.saved) {
        state.saved = true;
        state.style = QApplication::style()->name();
        state.palette = QApplication::palette();
    }
    // A new style repolishes every widget: only when it changes.
    const QString style = choice == PaletteChoice::System ? state.style : QStringLiteral("Fusion");
    if (QApplication::style()->name().compare(style, Qt::CaseInsensitive) != 0)
        QApplication::setStyle(style);
    if (choice == PaletteChoice::System) {
        QApplication::setPalette(state.palette);
    } else {
        QApplication::setPalette(choice == PaletteChoice::Dark
                                     ? darkPalette()
                                     : QApplication::style()->standardPalette());
    }
    state.choice = choice;
}

PaletteChoice currentPaletteChoice()
{
    return applied().choice;
}

} // namespace tollgate::ui
