#pragma once

#include "ui/dashboard/DashboardData.h"

#include <QWidget>

class QButtonGroup;
class QLabel;
class QTableView;

namespace tollgate::ui {

class ActionStatsModel;
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

private:
    QWidget* tile(const QString& title, const QString& name, QLabel** value);
    void showServer();
    void showScanSummary();

    Session* m_session;
    StatsSampler* m_sampler;
    ActionStatsModel* m_actions;
    NearLimitModel* m_nearLimit;
    RateChart* m_hitsChart;
    RateChart* m_denialsChart;
    QButtonGroup* m_rangeButtons = nullptr;
    QLabel* m_ops = nullptr;
    QLabel* m_memory = nullptr;
    QLabel* m_clients = nullptr;
    QLabel* m_bans = nullptr;
    QLabel* m_status;
    QLabel* m_guide;
    QTableView* m_actionsView;
    QTableView* m_nearLimitView;
};

} // namespace tollgate::ui
