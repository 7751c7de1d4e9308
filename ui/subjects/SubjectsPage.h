#pragma once

#include "core/limits/Policy.h"
#include "ui/common/Session.h"
#include "ui/subjects/SubjectRow.h"

#include <QPointer>
#include <QElapsedTimer>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class QTimer;

namespace tollgate::ui {

class SubjectsFilterModel;
class SubjectsModel;
class SubjectsRefresher;
class UserDetailDialog;

/// Who is doing what: user x action with count / limit (bar), remaining, a TTL counting down
/// on screen, and ban state; filter by user and action, sort by any column; double-click or
/// Enter opens the user. Refreshes in the background every ~2 s while visible and at once on
/// a Tollgate event; the visible rows are fetched first.
class SubjectsPage : public QWidget
{
    Q_OBJECT
public:
    explicit SubjectsPage(Session* session, QWidget* parent = nullptr);
    ~SubjectsPage() override;

    SubjectsModel* model() const { return m_model; }
    SubjectsFilterModel* proxy() const { return m_proxy; }

public Q_SLOTS:
    /// Starts a refresh now (or right after the one running).
    void refresh();
    /// Opens (or raises) the detail dialog of `user`.
    UserDetailDialog* openUser(const QByteArray& user);

Q_SIGNALS:
    /// A full refresh pass was applied to the model.
    void refreshed();

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    QSet<SubjectKey> visibleSubjects() const;
    void applyFinished(const std::vector<SubjectRow>& rows, const std::vector<Policy>& policies,
                       bool truncated);
    void updateActions(const std::vector<Policy>& policies);
    void updateSummary();
    void scheduleNext();

    Session* m_session;
    SubjectsModel* m_model;
    SubjectsFilterModel* m_proxy;
    SubjectsRefresher* m_refresher;
    QLineEdit* m_filter;
    QComboBox* m_action;
    QPushButton* m_refreshButton;
    QTableView* m_view;
    QLabel* m_summary;
    QLabel* m_status;
    QTimer* m_poll;   // the next refresh, ~2 s after the last one finished
    QTimer* m_liveness; // events and keyspace notifications bring the next refresh forward
    QElapsedTimer m_passClock; // how long the last refresh pass took
    QTimer* m_ticker; // repaints the TTL column
    bool m_again = false;
    bool m_truncated = false;
    QPointer<UserDetailDialog> m_detail;
};

} // namespace tollgate::ui
