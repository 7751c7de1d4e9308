#pragma once

#include "core/policies/PolicyHistory.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QTableWidget;

namespace tollgate::ui {

/// "Compare revision A with revision B": two lists of an action's revisions and what differs
/// between the two picked, field by field (diffRevisions, as `tollgatectl policy diff`), the
/// older one on the left. Everything is in memory: no network.
class PolicyRevisionDiff : public QWidget
{
    Q_OBJECT
public:
    explicit PolicyRevisionDiff(QWidget* parent = nullptr);

    /// The revisions to pick from, newest first, as `labels`; `history` (null: none) must stay
    /// valid until the next call. Compares the newest with the one at `row`.
    void setHistory(const PolicyHistory* history, const QStringList& labels,
                    const std::vector<qint64>& revisions, int row);
    /// Compares the newest revision with the one at `row` of the lists.
    void compareWithNewest(int row);

private:
    void showDiff();

    const PolicyHistory* m_history = nullptr;
    QComboBox* m_before;
    QComboBox* m_after;
    QTableWidget* m_table;
    QLabel* m_summary;
};

} // namespace tollgate::ui
