#pragma once

#include "tollgate/PolicyStore.h"
#include "ui/common/Session.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QWidget>
#include <utility>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class QTimer;

namespace tollgate::ui {

class OverrideWatcher;
class SubjectsLoader;
class SubjectsModel;
class UserDetailDialog;

/// Who is doing what, at any size: user x action with count / limit (bar), remaining, a TTL
/// counting down on screen, and ban state. Rows stream in as the first pass reads them;
/// totals are over every row; sorting and filtering run off the GUI thread. Afterwards only
/// the rows on screen, subjects named by events and a paced sweep are read again. Find a user
/// by exact id (addressed, instant) or `prefix*`; filter by action and by banned / denied /
/// warned / near the limit / errors / overridden / exempt (the override index, joined in the
/// model). Double-click or Enter opens the user.
class SubjectsPage : public QWidget
{
    Q_OBJECT
public:
    explicit SubjectsPage(Session* session, QWidget* parent = nullptr);
    ~SubjectsPage() override;

    SubjectsModel* model() const { return m_model; }
    SubjectsLoader* loader() const { return m_loader; }
    OverrideWatcher* overrideWatcher() const { return m_overrides; }

public Q_SLOTS:
    /// Reads everything again (a new first pass).
    void refresh();
    /// Opens (or raises) the detail dialog of `user`.
    UserDetailDialog* openUser(const QByteArray& user);
    /// Shows the rows the filter `text` matches ("scraper*": every id with that prefix), now.
    void filterBy(const QString& text);

Q_SIGNALS:
    /// A full pass was applied to the model (first pass or sweep).
    void refreshed();

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    /// On a narrow window the preferred widths would push Remaining, Resets and Ban off-screen:
    /// shrink User, Action and Count in proportion (the ban text elides, in full in its tooltip).
    void fitColumnsToWidth();
    void applyFilter();
    void refreshVisible();
    /// The ticker's check: a row on screen whose window emptied since it was read is read
    /// again (a 1 s window would otherwise show 0 for most of the 2 s between reads).
    void refreshVisibleIfEmptied();
    /// The view rows on screen: [first, last], or first > last when none.
    std::pair<int, int> visibleRows() const;
    void updateActions(const PolicyListing& listing);
    void updateSummary();

    Session* m_session;
    SubjectsModel* m_model;
    SubjectsLoader* m_loader;
    OverrideWatcher* m_overrides;
    QLineEdit* m_filter;
    QComboBox* m_action;
    QComboBox* m_state;
    QPushButton* m_refreshButton;
    QTableView* m_view;
    QLabel* m_summary;
    QLabel* m_status;
    QTimer* m_filterDelay;
    QTimer* m_visible;          // peeks the rows on screen
    QTimer* m_ticker;           // repaints the TTL column
    qint64 m_visibleReadAt = 0; // steady ms of the last read of the rows on screen
    QTimer* m_summaryDelay;
    QString m_progress;
    QString m_invalidPolicies;
    bool m_passDone = false;
    bool m_columnsFitted = false; // once, at the first show: later widths are the user's
    quint16 m_pass = 0; // the full pass running or last finished (SubjectsModel::beginPass)
    QPointer<UserDetailDialog> m_detail;
};

} // namespace tollgate::ui
