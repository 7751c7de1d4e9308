#include "ui/policies/WindowRows.h"

#include "core/policies/Duration.h"
#include "ui/policies/CountSpinBox.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace tollgate::ui {

WindowRows::WindowRows(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("windowsWidget"));
    m_layout = new QVBoxLayout(this);
    m_layout->setContentsMargins(0, 0, 0, 0);
}

void WindowRows::setWindows(const std::vector<WindowLimit>& windows)
{
    while (!m_rows.isEmpty())
        removeRow(m_rows.first().row);
    for (const WindowLimit& w : windows)
        addRow(formatDuration(w.windowMs), w.limit);
    if (m_rows.isEmpty())
        addRow(QString(), 1);
}

void WindowRows::addRow(const QString& window, qint64 limit)
{
    auto* row = new QWidget(this);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    Row r{row, new QLineEdit(window, row), makeCountSpinBox(0, row),
          new QPushButton(tr("Remove"), row)};
    r.window->setPlaceholderText(tr("window, e.g. 30s"));
    r.limit->setValue(int(limit));
    r.limit->setPrefix(tr("limit "));
    layout->addWidget(r.window, 1);
    layout->addWidget(r.limit, 1);
    layout->addWidget(r.remove);
    connect(r.window, &QLineEdit::textChanged, this, &WindowRows::edited);
    connect(r.limit, &QSpinBox::valueChanged, this, &WindowRows::edited);
    connect(r.remove, &QPushButton::clicked, this, [this, row] {
        removeRow(row);
        Q_EMIT edited();
    });
    m_layout->addWidget(row);
    m_rows.append(r);
    renameRows();
}

void WindowRows::removeRow(QWidget* row)
{
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].row != row)
            continue;
        // deleteLater: until then the old row must not be found by its name
        for (QWidget* child :
             {static_cast<QWidget*>(m_rows[i].window), static_cast<QWidget*>(m_rows[i].limit),
              static_cast<QWidget*>(m_rows[i].remove)})
            child->setObjectName(QString());
        m_rows.removeAt(i);
        row->deleteLater();
        row->hide();
        break;
    }
    renameRows();
}

void WindowRows::renameRows()
{
    for (int i = 0; i < m_rows.size(); ++i) {
        const QString n = i == 0 ? QString() : QString::number(i + 1);
        m_rows[i].window->setObjectName(QStringLiteral("window%1LineEdit").arg(n));
        m_rows[i].limit->setObjectName(QStringLiteral("limit%1SpinBox").arg(n));
        m_rows[i].remove->setObjectName(QStringLiteral("removeWindow%1Button").arg(n));
        m_rows[i].remove->setVisible(m_rows.size() > 1);
    }
}

Result<std::vector<WindowLimit>> WindowRows::windows() const
{
    std::vector<WindowLimit> windows;
    for (const Row& row : m_rows) {
        auto window = parseDuration(row.window->text().trimmed());
        if (!window)
            return Error{ErrorKind::InvalidInput,
                         tr("window '%1': %2").arg(row.window->text(), window.error().message)};
        windows.push_back({row.limit->value(), *window});
    }
    return windows;
}

} // namespace tollgate::ui
