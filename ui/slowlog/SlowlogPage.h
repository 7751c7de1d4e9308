#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QTimer;

namespace tollgate::ui {

class Session;
class SlowlogModel;

/// Developer › Slowlog: the server's slow log (SLOWLOG GET), read-only, with the Tollgate
/// script each EVALSHA ran, so the scripts' own latency is visible. Polls while shown.
class SlowlogPage : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kEntries = 128;
    static constexpr int kPollMs = 3000;

    explicit SlowlogPage(Session* session, QWidget* parent = nullptr);

    SlowlogModel* model() const { return m_model; }

public Q_SLOTS:
    void refresh();

Q_SIGNALS:
    void refreshed();

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    void readThreshold();
    void showSummary();

    Session* m_session;
    SlowlogModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QCheckBox* m_onlyScripts;
    QLabel* m_threshold;
    QLabel* m_status;
    QTimer* m_poll;
    bool m_loading = false;
};

} // namespace tollgate::ui
