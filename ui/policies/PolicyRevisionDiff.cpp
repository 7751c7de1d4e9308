#include "ui/policies/PolicyRevisionDiff.h"

#include "ui/common/DisplayText.h"
#include "ui/common/ElidedLabel.h"
#include "ui/common/Widgets.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace tollgate::ui {

PolicyRevisionDiff::PolicyRevisionDiff(QWidget* parent) : QWidget(parent)
{
    m_before = new QComboBox(this);
    m_before->setObjectName(QStringLiteral("diffBeforeComboBox"));
    m_after = new QComboBox(this);
    m_after->setObjectName(QStringLiteral("diffAfterComboBox"));
    m_table = makeReadOnlyTable(this, QStringLiteral("diffTableWidget"),
                                {tr("Field"), tr("Before"), tr("After")});
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_summary = new ElidedLabel(this);
    m_summary->setObjectName(QStringLiteral("diffSummaryLabel"));

    auto* pick = new QHBoxLayout;
    pick->addWidget(new QLabel(tr("Compare"), this));
    pick->addWidget(m_before, 1);
    pick->addWidget(new QLabel(tr("with"), this));
    pick->addWidget(m_after, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(pick);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_summary);

    connect(m_before, &QComboBox::currentIndexChanged, this, &PolicyRevisionDiff::showDiff);
    connect(m_after, &QComboBox::currentIndexChanged, this, &PolicyRevisionDiff::showDiff);
}

void PolicyRevisionDiff::setHistory(const PolicyHistory* history, const QStringList& labels,
                                    const std::vector<qint64>& revisions, int row)
{
    m_history = history;
    {
        const QSignalBlocker blockBefore(m_before), blockAfter(m_after);
        m_before->clear();
        m_after->clear();
        for (int i = 0; i < labels.size() && size_t(i) < revisions.size(); ++i) {
            m_before->addItem(labels[i], revisions[size_t(i)]);
            m_after->addItem(labels[i], revisions[size_t(i)]);
        }
    }
    compareWithNewest(row);
}

void PolicyRevisionDiff::compareWithNewest(int row)
{
    const QSignalBlocker blockBefore(m_before), blockAfter(m_after);
    m_before->setCurrentIndex(0);
    m_after->setCurrentIndex(row);
    showDiff();
}

void PolicyRevisionDiff::showDiff()
{
    m_table->setRowCount(0);
    if (!m_history || m_before->currentIndex() < 0 || m_after->currentIndex() < 0) {
        m_summary->clear();
        return;
    }
    // Older on the left: "before" is the lower revision whichever way they were picked.
    qint64 a = m_before->currentData().toLongLong();
    qint64 b = m_after->currentData().toLongLong();
    if (a > b)
        std::swap(a, b);
    m_table->setHorizontalHeaderLabels(
        {tr("Field"), tr("Revision %1").arg(a), tr("Revision %1").arg(b)});
    const auto changes = diffRevisions(*m_history, a, b);
    if (!changes) {
        m_summary->setText(changes.error().message);
        return;
    }
    m_table->setRowCount(int(changes->size()));
    for (int row = 0; row < int(changes->size()); ++row) {
        const PolicyFieldChange& change = (*changes)[size_t(row)];
        m_table->setItem(row, 0, makeTextCell(QString::fromLatin1(change.name)));
        m_table->setItem(row, 1, makeTextCell(change.before));
        m_table->setItem(row, 2, makeTextCell(change.after));
    }
    m_summary->setText(
        a == b ? tr("The same revision.")
        : changes->empty()
            ? tr("Revisions %1 and %2 set the same policy.").arg(a).arg(b)
            : countText(qint64(changes->size()), tr("field differs"), tr("fields differ")));
}

} // namespace tollgate::ui
