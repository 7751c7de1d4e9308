#pragma once

#include "ui/dashboard/DashboardData.h"

#include <QWidget>
#include <utility>
#include <vector>

class QButtonGroup;
class QGridLayout;
class QLabel;
class QTableView;

namespace tollgate::ui {

class ActionStatsModel;
class NearLimitFilter;
class NearLimitModel;
class RateChart;
class Session;
class StatsSampler;

/// The live overview: hits and denials per action (charts over 5 min, 1 h or 24 h), server
/// ops/s, memory and clients (tiles), bans in force per action and the near / over the limit
/// list (tables).
/// Samples only while visible.
class DashboardPage : public QWidget
{
    Q_OBJECT
public:
    explicit DashboardPage(Session* session, QWidget* parent = nullptr);

    StatsSampler* sampler() const { return m_sampler; }
    ActionStatsModel* actionsModel() const { return m_actions; }
    NearLimitModel* nearLimitModel() const { return m_nearLimit; }
    /// The near-limit list as the view shows it (sorted, maybe "denied now" only).
    NearLimitFilter* nearLimitFilter() const { return m_nearLimitFilter; }
    RateChart* hitsChart() const { return m_hitsChart; }
    RateChart* denialsChart() const { return m_denialsChart; }
    /// What the charts span (the 5 min / 1 h / 24 h buttons).
    void setRange(ChartRange range);

Q_SIGNALS:
    /// A row of the near-limit list was activated: the shell opens that user.
    void userRequested(const QByteArray& user);

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QWidget* tile(const QString& title, const QString& name, QLabel** value);
    void showServer();
    void showScanSummary();
    // Count / limit and Warnings/s step aside on a narrow screen (1024 px): the columns that
    // say who is refused and how fast stay in view, each at a width that never changes.
    std::vector<std::pair<QTableView*, int>> optionalColumns() const;
    void fixColumns();
    void showOptionalColumnsIfRoom();

    Session* m_session;
    StatsSampler* m_sampler;
    ActionStatsModel* m_actions;
    NearLimitModel* m_nearLimit;
    NearLimitFilter* m_nearLimitFilter;
    RateChart* m_hitsChart;
    RateChart* m_denialsChart;
    QButtonGroup* m_rangeButtons = nullptr;
    QLabel* m_ops = nullptr;
    QLabel* m_memory = nullptr;
    QLabel* m_clients = nullptr;
    QLabel* m_bans = nullptr;
    QLabel* m_banScopes = nullptr;
    QLabel* m_status;
    QLabel* m_guide;
    QTableView* m_actionsView;
    QTableView* m_nearLimitView;
    QGridLayout* m_tables = nullptr;
};

} // namespace tollgate::ui
