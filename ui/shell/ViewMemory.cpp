#include "ui/shell/ViewMemory.h"

#include "ui/common/PaletteChoice.h"
#include "ui/shell/MainWindow.h"

#include <QApplication>
#include <QEvent>
#include <QHeaderView>
#include <QSettings>
#include <QTableView>
#include <QTreeView>

namespace tollgate::ui {

namespace {

const QString kGeometry = QStringLiteral("view/geometry");
const QString kPage = QStringLiteral("view/page");
const QString kPalette = QStringLiteral("view/palette");
const QString kColumns = QStringLiteral("view/columns/");
// A header being resized by hand, between the press (or double-click) and the release.
constexpr char kByHand[] = "tollgateResizedByHand";
constexpr char kRestored[] = "tollgateColumnsRestored";

QHeaderView* columnsHeader(QObject* object)
{
    if (auto* table = qobject_cast<QTableView*>(object))
        return table->horizontalHeader();
    if (auto* tree = qobject_cast<QTreeView*>(object))
        return tree->header();
    return nullptr;
}

// "0:120,3:80": section and width, for the sections set by hand.
QMap<int, int> parseWidths(const QString& text)
{
    QMap<int, int> widths;
    for (const QString& pair : text.split(u',', Qt::SkipEmptyParts)) {
        const QStringList parts = pair.split(u':');
        bool sectionOk = false, widthOk = false;
        const int section = parts.value(0).toInt(&sectionOk);
        const int width = parts.value(1).toInt(&widthOk);
        if (parts.size() == 2 && sectionOk && widthOk && section >= 0 && width > 0)
            widths.insert(section, width);
    }
    return widths;
}

QString widthsText(const QMap<int, int>& widths)
{
    QStringList pairs;
    for (auto it = widths.cbegin(); it != widths.cend(); ++it)
        pairs << QStringLiteral("%1:%2").arg(it.key()).arg(it.value());
    return pairs.join(u',');
}

} // namespace

ViewMemory::ViewMemory(MainWindow* window, std::unique_ptr<QSettings> settings)
    : QObject(window), m_window(window), m_settings(std::move(settings))
{
    if (const QByteArray geometry = m_settings->value(kGeometry).toByteArray(); !geometry.isEmpty())
        window->restoreGeometry(geometry);
    window->showPage(m_settings->value(kPage).toString());
    if (const auto palette = paletteChoiceNamed(m_settings->value(kPalette).toString());
        palette && *palette != currentPaletteChoice())
        applyPaletteChoice(*palette);
    // Every table's header, the dialogs' too: one filter on the application.
    qApp->installEventFilter(this);
    connect(qApp, &QCoreApplication::aboutToQuit, this, &ViewMemory::save);
}

ViewMemory::~ViewMemory() = default;

void ViewMemory::save()
{
    if (!m_window)
        return;
    m_settings->setValue(kGeometry, m_window->saveGeometry());
    m_settings->setValue(kPage, m_window->currentPageKey());
    m_settings->setValue(kPalette, paletteChoiceName(currentPaletteChoice()));
    m_settings->sync();
}

QString ViewMemory::keyOf(const QAbstractItemView* view) const
{
    QStringList names;
    const QObject* object = view;
    for (; object && object != m_window; object = object->parent())
        if (!object->objectName().isEmpty())
            names.prepend(object->objectName());
    if (!object || view->objectName().isEmpty())
        return {};
    return names.join(u'/');
}

void ViewMemory::restoreColumns(QAbstractItemView* view, QHeaderView* header)
{
    const QString key = keyOf(view);
    if (key.isEmpty())
        return;
    const QMap<int, int> widths = parseWidths(m_settings->value(kColumns + key).toString());
    const int last = header->logicalIndex(header->count() - 1);
    for (auto it = widths.cbegin(); it != widths.cend(); ++it) {
        // Only what a hand could set: not a column sized to its content or stretched.
        const int section = it.key();
        if (section < header->count() &&
            header->sectionResizeMode(section) == QHeaderView::Interactive &&
            !(header->stretchLastSection() && section == last))
            header->resizeSection(section, it.value());
    }
    connect(header, &QHeaderView::sectionResized, this,
            [this, header](int section, int, int width) {
                if (header->property(kByHand).toBool())
                    saveColumn(header, section, width);
            });
}

void ViewMemory::saveColumn(QHeaderView* header, int section, int width)
{
    const QString key = keyOf(qobject_cast<QAbstractItemView*>(header->parent()));
    if (key.isEmpty() || width <= 0)
        return;
    QMap<int, int> widths = parseWidths(m_settings->value(kColumns + key).toString());
    widths.insert(section, width);
    m_settings->setValue(kColumns + key, widthsText(widths));
}

bool ViewMemory::eventFilter(QObject* watched, QEvent* event)
{
    switch (event->type()) {
    case QEvent::Show:
        // Once per view, when it is first shown: after its page set its own widths.
        if (QHeaderView* header = columnsHeader(watched);
            header && !watched->property(kRestored).toBool()) {
            watched->setProperty(kRestored, true);
            restoreColumns(static_cast<QAbstractItemView*>(watched), header);
        }
        break;
    case QEvent::MouseButtonPress:
    case QEvent::MouseButtonDblClick:
    case QEvent::MouseButtonRelease:
        if (auto* header = qobject_cast<QHeaderView*>(watched->parent());
            header && watched == header->viewport())
            header->setProperty(kByHand, event->type() != QEvent::MouseButtonRelease);
        break;
    case QEvent::Close:
        if (watched == m_window)
            save();
        break;
    default:
        break;
    }
    return QObject::eventFilter(watched, event);
}

} // namespace tollgate::ui
