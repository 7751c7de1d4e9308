#pragma once

#include <QObject>
#include <QPointer>
#include <memory>

class QAbstractItemView;
class QHeaderView;
class QSettings;

namespace tollgate::ui {

class MainWindow;

/// What the console keeps between runs, in `settings`: the window's size and place, the page it
/// showed, the palette chosen in View › Palette, and each column width a person set by hand
/// (dragged or double-clicked) on a table of the window or of its dialogs. Restored when made;
/// the widths saved as they are set, the rest when the window closes or the application quits.
/// Where there is none (tests, the screenshot tour) nothing is read or written.
class ViewMemory : public QObject
{
    Q_OBJECT
public:
    ViewMemory(MainWindow* window, std::unique_ptr<QSettings> settings);
    ~ViewMemory() override;

    /// Writes the geometry, the page and the palette now.
    void save();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// Where `view`'s widths are kept: the object names from the window down, or empty for a
    /// view that is not in this window or has no name.
    QString keyOf(const QAbstractItemView* view) const;
    void restoreColumns(QAbstractItemView* view, QHeaderView* header);
    void saveColumn(QHeaderView* header, int section, int width);

    QPointer<MainWindow> m_window;
    std::unique_ptr<QSettings> m_settings;
};

} // namespace tollgate::ui
