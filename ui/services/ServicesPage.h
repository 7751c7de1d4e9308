#pragma once

#include <QWidget>

class QLabel;
class QStackedWidget;
class QTableView;
class QTimer;

namespace tollgate {
struct ServiceList;
}

namespace tollgate::ui {

class Session;
class ServicesModel;

/// Services: every tollgated instance registered in Redis (ServiceRegistry), its health,
/// throughput, cache and configuration, read every 2 s while the page is shown (one pipelined
/// read; nothing waits on the network here). Stale instances are greyed out; with none
/// registered the page says how to start one.
class ServicesPage : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 2000;

    explicit ServicesPage(Session* session, QWidget* parent = nullptr);

    ServicesModel* model() const { return m_model; }
    /// Whether the empty state (how to start an instance) is shown instead of the table.
    bool showsEmptyState() const;

public Q_SLOTS:
    void refresh();

Q_SIGNALS:
    /// A read arrived (or failed) and is shown.
    void refreshed();

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    QWidget* makeInstancesPane();
    void showList(ServiceList list);
    void fitErrorColumn();
    QString summaryText() const;
    void showDetails();

    Session* m_session;
    ServicesModel* m_model;
    QStackedWidget* m_stack;
    QTableView* m_view;
    QLabel* m_details;
    QLabel* m_empty;
    QLabel* m_summary;
    QLabel* m_status;
    QTimer* m_poll;
    bool m_loading = false;
    int m_errorWidth = -1; // what fitErrorColumn() last gave the Last error column
};

} // namespace tollgate::ui
