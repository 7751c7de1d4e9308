#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QTableView;
class QTimer;

namespace tollgate {
struct Error;
}

namespace tollgate::ui {

class ClusterMonitor;
class ClusterNodesModel;
struct ClusterSnapshot;
class Session;

/// Topology: every node of a Redis Cluster (role, its primary, slot ranges, keys, ops/s,
/// memory, clients, link state) under a summary line, refreshed every few seconds while shown
/// by a ClusterMonitor (nothing waits on the network here). "Which node holds user" names the
/// hash tag, slot and nodes of a user id from the last slot map. On a standalone server the
/// page says so and shows that one node; on a Sentinel deployment it shows the primary, its
/// replicas with their lag and the sentinels (SentinelRows).
class ClusterPage : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 3000;

    explicit ClusterPage(Session* session, QWidget* parent = nullptr);

    ClusterNodesModel* model() const { return m_model; }

public Q_SLOTS:
    void refresh();

Q_SIGNALS:
    /// A sample arrived (or failed); the table, summary and lookup show it.
    void refreshed();

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    void showSnapshot(const ClusterSnapshot& snapshot);
    void showError(const Error& error);
    /// Fills the lookup line; returns the primary holding the user, if known.
    QString locateUser();

    Session* m_session;
    ClusterMonitor* m_monitor;
    ClusterNodesModel* m_model;
    QTableView* m_view;
    QLabel* m_summary;
    QLineEdit* m_user;
    QLabel* m_location;
    QLabel* m_status;
    QTimer* m_poll;
};

} // namespace tollgate::ui
