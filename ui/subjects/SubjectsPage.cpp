#include "ui/subjects/SubjectsPage.h"

#include "ui/common/DisplayText.h"
#include "ui/subjects/CountBarDelegate.h"
#include "ui/subjects/SubjectsFilterModel.h"
#include "ui/subjects/SubjectsModel.h"
#include "ui/subjects/SubjectsRefresher.h"
#include "ui/user/UserDetailDialog.h"

#include <QComboBox>
#include <QShortcut>
#include <algorithm>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace tollgate::ui {

namespace {
constexpr int kPollMs = 2000;
constexpr int kTickMs = 200;
} // namespace

SubjectsPage::SubjectsPage(Session* session, QWidget* parent) : QWidget(parent), m_session(session)
{
    setObjectName(QStringLiteral("subjectsPage"));
    m_model = new SubjectsModel(this);
    m_model->setObjectName(QStringLiteral("subjectsModel"));
    m_proxy = new SubjectsFilterModel(this);
    m_proxy->setObjectName(QStringLiteral("subjectsFilterModel"));
    m_proxy->setSourceModel(m_model);
    m_refresher = new SubjectsRefresher(session, this);

    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("filterLineEdit"));
    m_filter->setPlaceholderText(tr("Filter by user id"));
    m_filter->setClearButtonEnabled(true);
    m_action = new QComboBox(this);
    m_action->setObjectName(QStringLiteral("actionComboBox"));
    m_action->addItem(tr("All actions"));
    m_action->setMinimumContentsLength(16);
    m_action->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_refreshButton = new QPushButton(tr("Refresh"), this);
    m_refreshButton->setObjectName(QStringLiteral("refreshButton"));
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("statusLabel"));
    m_status->setTextFormat(Qt::PlainText);

    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("subjectsTableView"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(SubjectsModel::User, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    m_view->setItemDelegateForColumn(SubjectsModel::Count, new CountBarDelegate(m_view));
    QHeaderView* header = m_view->horizontalHeader();
    header->setStretchLastSection(true);
    header->resizeSection(SubjectsModel::User, 260);
    header->resizeSection(SubjectsModel::Action, 160);
    header->resizeSection(SubjectsModel::Count, 160);
    header->resizeSection(SubjectsModel::Remaining, 100);
    header->resizeSection(SubjectsModel::Ttl, 100);

    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("summaryLabel"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 2);
    top->addWidget(m_action, 1);
    top->addWidget(m_refreshButton);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_summary, 1);
    bottom->addWidget(m_status);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    layout->addLayout(bottom);

    m_poll = new QTimer(this);
    m_poll->setSingleShot(true);
    m_poll->setInterval(kPollMs);
    connect(m_poll, &QTimer::timeout, this, &SubjectsPage::refresh);
    m_ticker = new QTimer(this);
    m_ticker->setInterval(kTickMs);
    // Only the visible rows repaint: a model signal would make the proxy walk every row.
    connect(m_ticker, &QTimer::timeout, m_view->viewport(), qOverload<>(&QWidget::update));

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &SubjectsFilterModel::setUserFilter);
    connect(m_action, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_proxy->setActionFilter(index <= 0 ? QByteArray()
                                            : m_action->itemData(index).toByteArray());
    });
    connect(m_refreshButton, &QPushButton::clicked, this, &SubjectsPage::refresh);
    auto* refreshKey = new QShortcut(QKeySequence::Refresh, this, this, &SubjectsPage::refresh);
    refreshKey->setContext(Qt::WidgetWithChildrenShortcut);
    // Ctrl+F belongs to the window's "Find user"; Ctrl+L jumps to this page's filter.
    auto* filterKey = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_L), this);
    filterKey->setContext(Qt::WidgetWithChildrenShortcut);
    connect(filterKey, &QShortcut::activated, m_filter, [this] {
        m_filter->setFocus();
        m_filter->selectAll();
    });
    // activated: Enter (and a click where the style activates on one); plus double-click.
    // openUser() raises the dialog already open for the user, so both firing is harmless.
    auto open = [this](const QModelIndex& index) {
        openUser(index.data(SubjectsModel::UserIdRole).toByteArray());
    };
    connect(m_view, &QTableView::activated, this, open);
    connect(m_view, &QTableView::doubleClicked, this, open);

    connect(m_refresher, &SubjectsRefresher::partial, this,
            [this](const std::vector<SubjectRow>& rows) { m_model->update(rows); });
    connect(m_refresher, &SubjectsRefresher::finished, this, &SubjectsPage::applyFinished);
    connect(m_refresher, &SubjectsRefresher::failed, this, [this](const Error& error) {
        m_status->setText(tr("Refresh failed: %1").arg(error.toString()));
        scheduleNext();
    });
    // Events (a wave of auto-bans) and keyspace notifications (when the server has them on)
    // can arrive thousands a second: they only bring the next refresh forward, at most twice
    // a second.
    m_liveness = new QTimer(this);
    m_liveness->setSingleShot(true);
    m_liveness->setInterval(500);
    connect(m_liveness, &QTimer::timeout, this, [this] {
        if (isVisible())
            refresh();
    });
    auto soon = [this] {
        if (!m_liveness->isActive())
            m_liveness->start();
    };
    connect(session, &Session::eventReceived, this, soon);
    connect(session, &Session::keyspaceChanged, this, soon);
    connect(session, &Session::stateChanged, this, [this](ConnectionState state) {
        if (state == ConnectionState::Connected && isVisible())
            refresh();
    });
    updateSummary();
}

SubjectsPage::~SubjectsPage() = default;

void SubjectsPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    m_ticker->start();
    refresh();
}

void SubjectsPage::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    m_ticker->stop();
    m_poll->stop();
}

void SubjectsPage::refresh()
{
    m_poll->stop();
    m_passClock.start();
    if (!m_refresher->start(visibleSubjects())) {
        m_again = true; // an event arrived mid-pass: go again right after it
        return;
    }
    m_again = false;
}

QSet<SubjectKey> SubjectsPage::visibleSubjects() const
{
    QSet<SubjectKey> keys;
    const int rows = m_proxy->rowCount();
    if (rows == 0)
        return keys;
    int first = m_view->rowAt(0);
    int last = m_view->rowAt(m_view->viewport()->height() - 1);
    if (first < 0)
        first = 0;
    if (last < 0)
        last = qMin(rows - 1, first + 100);
    for (int row = first; row <= last; ++row) {
        const QModelIndex source = m_proxy->mapToSource(m_proxy->index(row, 0));
        keys.insert(m_model->row(source.row()).key());
    }
    return keys;
}

void SubjectsPage::applyFinished(const std::vector<SubjectRow>& rows,
                                 const std::vector<Policy>& policies, bool truncated)
{
    m_model->replace(rows);
    m_truncated = truncated;
    updateActions(policies);
    updateSummary();
    m_status->setText(truncated ? tr("Showing the first keys only (scan cap reached)") : QString());
    Q_EMIT refreshed();
    if (m_again)
        refresh();
    else
        scheduleNext();
}

void SubjectsPage::scheduleNext()
{
    // Stay gentle on a big keyspace: rest at least twice as long as the last pass took.
    const qint64 lastPass = m_passClock.isValid() ? m_passClock.elapsed() : 0;
    if (isVisible())
        m_poll->start(int(std::clamp<qint64>(2 * lastPass, kPollMs, 60000)));
}

void SubjectsPage::updateActions(const std::vector<Policy>& policies)
{
    QList<QByteArray> actions;
    for (const Policy& policy : policies)
        actions << policy.action;
    QList<QByteArray> current;
    for (int i = 1; i < m_action->count(); ++i)
        current << m_action->itemData(i).toByteArray();
    if (actions == current)
        return;
    const QByteArray selected =
        m_action->currentIndex() > 0 ? m_action->currentData().toByteArray() : QByteArray();
    const QSignalBlocker blocker(m_action);
    while (m_action->count() > 1)
        m_action->removeItem(1);
    for (const QByteArray& action : actions)
        m_action->addItem(displayId(action), action);
    // Keep the filter on an action that lost its policy until the operator changes it.
    if (!selected.isNull()) {
        int index = m_action->findData(selected);
        if (index < 0) {
            m_action->addItem(displayId(selected), selected);
            index = m_action->count() - 1;
        }
        m_action->setCurrentIndex(index);
    }
}

void SubjectsPage::updateSummary()
{
    const SubjectsModel::Summary s = m_model->summary();
    m_summary->setText(countText(s.subjects, tr("subject"), tr("subjects")) + QStringLiteral(", ") +
                       tr("%1 banned, %2 near the limit").arg(s.banned).arg(s.nearLimit));
}

UserDetailDialog* SubjectsPage::openUser(const QByteArray& user)
{
    if (user.isEmpty())
        return nullptr;
    if (m_detail && m_detail->user() == user) {
        m_detail->raise();
        m_detail->activateWindow();
        return m_detail;
    }
    if (m_detail)
        m_detail->close();
    m_detail = new UserDetailDialog(m_session, user, this);
    m_detail->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_detail, &QDialog::finished, this, &SubjectsPage::refresh);
    m_detail->show();
    return m_detail;
}

} // namespace tollgate::ui
