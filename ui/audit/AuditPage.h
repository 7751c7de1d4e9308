#pragma once

#include <QTimer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace tollgate::ui {

class AuditFilterModel;
class AuditModel;
class Session;

/// The global audit stream, newest first, filterable and live: while visible it asks for
/// entries newer than the newest shown every second and at once when an event is published.
/// On a Redis Cluster, where users' changes have no global copy, it shows every audit stream
/// merged (MergedAudit) and reads newer entries when an event is published.
class AuditPage : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kInitialEntries = 500;

    explicit AuditPage(Session* session, QWidget* parent = nullptr);

    AuditModel* model() const { return m_model; }
    AuditFilterModel* filterModel() const { return m_filter; }

    /// Fetches what is new now (or the latest entries when nothing is loaded yet).
    void refresh();

Q_SIGNALS:
    /// A row was activated (double-click, Enter): the shell opens the entry's user.
    void userRequested(const QByteArray& user);

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    bool onCluster() const;
    void load();
    void loadLatest();
    void poll();
    void pollMerged();
    void updateEventChoices();
    void updateStatus();

    Session* m_session;
    AuditModel* m_model;
    AuditFilterModel* m_filter;
    QLineEdit* m_filterEdit;
    QComboBox* m_eventCombo;
    QCheckBox* m_liveCheck;
    QTableView* m_view;
    QLabel* m_status;
    QTimer m_timer;
    bool m_loaded = false;
    bool m_inFlight = false;
    bool m_again = false;     // an event arrived while a request was in flight
    bool m_eventSeen = false; // a write was announced since the last merged read (cluster)
    QString m_error;
};

} // namespace tollgate::ui
