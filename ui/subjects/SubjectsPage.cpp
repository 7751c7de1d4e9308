#include "ui/subjects/SubjectsPage.h"

#include "ui/common/DisplayText.h"
#include "ui/common/ElidedLabel.h"
#include "ui/subjects/CountBarDelegate.h"
#include "ui/subjects/OverrideWatcher.h"
#include "ui/subjects/SubjectsLoader.h"
#include "ui/subjects/SubjectsModel.h"
#include "ui/user/UserDetailDialog.h"

#include <QComboBox>
#include <QDeadlineTimer>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QShortcut>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

namespace tollgate::ui {

namespace {
constexpr int kVisibleMs = 2000;
constexpr int kTickMs = 200;
// At most this often a re-read because a window on screen emptied: a screenful of 1 s windows
// costs a few dozen commands a second, well inside the load budget.
constexpr qint64 kEmptiedRereadMs = 500;
constexpr int kFilterDelayMs = 250;
constexpr int kSummaryMs = 250;

QString number(qint64 n)
{
    return QLocale().toString(n);
}
} // namespace

SubjectsPage::SubjectsPage(Session* session, QWidget* parent) : QWidget(parent), m_session(session)
{
    setObjectName(QStringLiteral("subjectsPage"));
    m_model = new SubjectsModel(this);
    m_model->setObjectName(QStringLiteral("subjectsModel"));
    m_loader = new SubjectsLoader(session, this);
    // Who is overridden or exempt: the override index, joined in the model, never a read
    // per row.
    m_overrides = new OverrideWatcher(session, this);
    connect(m_overrides, &OverrideWatcher::marksChanged, this,
            [this](const SharedOverrideMarks& marks) {
                m_model->setOverrideMarks(marks);
                updateSummary();
            });

    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("filterLineEdit"));
    m_filter->setPlaceholderText(tr("User id (exact, or prefix*)"));
    m_filter->setClearButtonEnabled(true);
    m_action = new QComboBox(this);
    m_action->setObjectName(QStringLiteral("actionComboBox"));
    m_action->addItem(tr("All actions"));
    m_action->setMinimumContentsLength(16);
    m_action->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_state = new QComboBox(this);
    m_state->setObjectName(QStringLiteral("stateComboBox"));
    m_state->addItem(tr("Any state"), int(SubjectFilter::State::Any));
    m_state->addItem(tr("Banned"), int(SubjectFilter::State::Banned));
    m_state->addItem(tr("Denied"), int(SubjectFilter::State::Denied));
    m_state->addItem(tr("Warned"), int(SubjectFilter::State::Warned));
    m_state->addItem(tr("Near the limit"), int(SubjectFilter::State::NearLimit));
    m_state->addItem(tr("Errors"), int(SubjectFilter::State::Errors));
    m_state->addItem(tr("Overridden"), int(SubjectFilter::State::Overridden));
    m_state->addItem(tr("Exempt"), int(SubjectFilter::State::Exempt));
    m_state->addItem(tr("Shadow policy"), int(SubjectFilter::State::Shadow));
    m_state->addItem(tr("Would be denied (shadow)"), int(SubjectFilter::State::WouldDeny));
    m_refreshButton = new QPushButton(tr("Reload"), this);
    m_refreshButton->setObjectName(QStringLiteral("refreshButton"));
    m_status = new ElidedLabel(this);
    m_status->setObjectName(QStringLiteral("statusLabel"));
    m_status->setTextFormat(Qt::PlainText);

    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("subjectsTableView"));
    m_view->setModel(m_model);
    m_view->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder); // arrival order
    m_view->setSortingEnabled(true); // header clicks call SubjectsModel::sort (off-thread)
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    // Fixed row heights: the view never measures a million rows.
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    m_view->setItemDelegateForColumn(SubjectsModel::Count, new CountBarDelegate(m_view));
    QHeaderView* header = m_view->horizontalHeader();
    header->setStretchLastSection(true);
    header->resizeSection(SubjectsModel::User, 200);
    header->resizeSection(SubjectsModel::Action, 120);
    // Wide enough for today's automatic ban ("banned until 23:59 by tollgate"), so the Ban
    // column keeps room for its reason at 1280 px; the rest elides, in full in the tooltip.
    const int banText = m_view->fontMetrics().horizontalAdvance(
        tr("banned until %1 by %2").arg(QStringLiteral("23:59"), QStringLiteral("tollgate")));
    header->resizeSection(SubjectsModel::Count, qMax(200, banText + 24));
    header->resizeSection(SubjectsModel::Remaining, 80);
    header->resizeSection(SubjectsModel::Ttl, 85);
    header->resizeSection(
        SubjectsModel::Since,
        m_view->fontMetrics().horizontalAdvance(tr("seen %1").arg(QStringLiteral("23:59"))) + 24);
    header->resizeSection(SubjectsModel::Rate, 72);

    m_summary = new ElidedLabel(this); // long at a million rows: never wider than the window
    m_summary->setObjectName(QStringLiteral("summaryLabel"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 2);
    top->addWidget(m_action, 1);
    top->addWidget(m_state, 1);
    top->addWidget(m_refreshButton);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_summary, 1);
    bottom->addWidget(m_status);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    layout->addLayout(bottom);

    m_filterDelay = new QTimer(this);
    m_filterDelay->setSingleShot(true);
    m_filterDelay->setInterval(kFilterDelayMs);
    connect(m_filterDelay, &QTimer::timeout, this, &SubjectsPage::applyFilter);
    connect(m_filter, &QLineEdit::textChanged, m_filterDelay, qOverload<>(&QTimer::start));
    connect(m_filter, &QLineEdit::returnPressed, this, [this] { // Enter: now, not after the pause
        m_filterDelay->stop();
        applyFilter();
    });
    connect(m_action, &QComboBox::currentIndexChanged, this, &SubjectsPage::applyFilter);
    connect(m_state, &QComboBox::currentIndexChanged, this, &SubjectsPage::applyFilter);
    connect(m_refreshButton, &QPushButton::clicked, this, &SubjectsPage::refresh);

    m_visible = new QTimer(this);
    m_visible->setObjectName(QStringLiteral("visibleRereadTimer"));
    m_visible->setInterval(kVisibleMs);
    connect(m_visible, &QTimer::timeout, this, &SubjectsPage::refreshVisible);
    m_ticker = new QTimer(this);
    m_ticker->setInterval(kTickMs);
    // Only the visible rows repaint: no model signal, no Redis round trip.
    connect(m_ticker, &QTimer::timeout, m_view->viewport(), qOverload<>(&QWidget::update));
    connect(m_ticker, &QTimer::timeout, this, &SubjectsPage::refreshVisibleIfEmptied);

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

    connect(m_loader, &SubjectsLoader::passStarted, this,
            [this] { m_pass = m_model->beginPass(); });
    connect(m_loader, &SubjectsLoader::batch, this,
            [this](const std::vector<Subject>& subjects, bool fromPass) {
                m_model->enqueue(subjects, fromPass ? m_pass : 0);
            });
    // While rows stream in, the totals line changes a few times a second, not per slice:
    // each new text lays the page out again.
    m_summaryDelay = new QTimer(this);
    m_summaryDelay->setSingleShot(true);
    m_summaryDelay->setInterval(kSummaryMs);
    connect(m_summaryDelay, &QTimer::timeout, this, &SubjectsPage::updateSummary);
    auto summarySoon = [this] {
        if (!m_summaryDelay->isActive())
            m_summaryDelay->start();
    };
    connect(m_model, &SubjectsModel::sliceApplied, this, summarySoon);
    connect(m_model, &SubjectsModel::orderApplied, this, &SubjectsPage::updateSummary);
    connect(m_loader, &SubjectsLoader::policiesLoaded, this, &SubjectsPage::updateActions);
    connect(m_loader, &SubjectsLoader::progress, this,
            [this, summarySoon](qint64 scanned, qint64 subjects, qint64 total, bool done) {
                if (scanned == 0 && total > 0)
                    m_model->reserve(total);
                m_passDone = done;
                // The paced sweep after the first pass is upkeep, not loading: say nothing.
                m_progress = done || m_loader->firstPassDone() ? QString()
                             : total > 0 ? tr("loading: %1 % of the keys scanned")
                                               .arg(qMin<qint64>(99, scanned * 100 / total))
                                         : tr("loading: %1 keys scanned").arg(number(scanned));
                Q_UNUSED(subjects);
                if (!done && scanned > 0) {
                    summarySoon();
                } else {
                    updateSummary();
                }
                if (done) {
                    // Rows the pass no longer found leave; rows it added take their sorted
                    // place, once, now.
                    m_model->finishPass(m_pass);
                    m_status->clear(); // an earlier pass's failure is over
                    Q_EMIT refreshed();
                }
            });
    connect(m_loader, &SubjectsLoader::failed, this, [this](const Error& error) {
        m_status->setText(tr("Reading subjects failed: %1").arg(error.toString()));
    });
    connect(session, &Session::stateChanged, this, [this](ConnectionState state) {
        if (state == ConnectionState::Connected && isVisible())
            refresh();
    });
    updateSummary();
}

SubjectsPage::~SubjectsPage() = default;

void SubjectsPage::fitColumnsToWidth()
{
    QHeaderView* header = m_view->horizontalHeader();
    const int available = m_view->viewport()->width();
    const int banRoom = 160; // the last column keeps at least this much ("shadow: would deny")
    const int fixed = header->sectionSize(SubjectsModel::Remaining) +
                      header->sectionSize(SubjectsModel::Ttl) +
                      header->sectionSize(SubjectsModel::Since) +
                      header->sectionSize(SubjectsModel::Rate) + banRoom;
    const int flexible = header->sectionSize(SubjectsModel::User) +
                         header->sectionSize(SubjectsModel::Action) +
                         header->sectionSize(SubjectsModel::Count);
    if (available <= 0 || fixed + flexible <= available)
        return;
    const double scale = std::max(0.5, double(available - fixed) / flexible);
    for (const int column :
         {int(SubjectsModel::User), int(SubjectsModel::Action), int(SubjectsModel::Count)})
        header->resizeSection(column, int(header->sectionSize(column) * scale));
}

void SubjectsPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (!std::exchange(m_columnsFitted, true))
        fitColumnsToWidth();
    m_ticker->start();
    m_visible->start();
    m_overrides->setActive(true);
    m_loader->setSweeping(true);
    if (!m_loader->isRunning() && !m_loader->firstPassDone())
        m_loader->start();
}

void SubjectsPage::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    m_ticker->stop();
    m_visible->stop();
    m_overrides->setActive(false);
    m_loader->setSweeping(false);
}

void SubjectsPage::refresh()
{
    m_status->clear();
    m_loader->start();
    m_overrides->refresh();
}

void SubjectsPage::filterBy(const QString& text)
{
    m_filter->setText(text);
    m_filterDelay->stop(); // now, not after the typing pause
    applyFilter();
}

void SubjectsPage::applyFilter()
{
    SubjectFilter filter;
    const QByteArray text = m_filter->text().trimmed().toUtf8();
    filter.text = text;
    if (m_action->currentIndex() > 0) {
        filter.action = m_action->currentData().toByteArray();
        filter.actionSet = true;
    }
    filter.state = SubjectFilter::State(m_state->currentData().toInt());
    m_model->setFilter(filter);
    // Rows the first pass has not reached yet: an exact id is addressed directly, a prefix
    // is scanned for; what they find streams in like any batch.
    if (text.endsWith('*') && text.size() > 1)
        m_loader->findPrefix(text.chopped(1));
    else if (!text.isEmpty() && !text.contains('*'))
        m_loader->findUser(text);
}

std::pair<int, int> SubjectsPage::visibleRows() const
{
    const int rows = m_model->rowCount();
    if (rows == 0)
        return {0, -1};
    int first = m_view->rowAt(0);
    int last = m_view->rowAt(m_view->viewport()->height() - 1);
    if (first < 0)
        first = 0;
    if (last < 0)
        last = qMin(rows - 1, first + 100);
    return {first, last};
}

void SubjectsPage::refreshVisible()
{
    const auto [first, last] = visibleRows();
    if (first > last || !m_model->isIdle())
        return;
    std::vector<SubjectKey> keys;
    for (int row = first; row <= last; ++row)
        keys.push_back(m_model->keyAt(row));
    m_visibleReadAt = QDeadlineTimer::current().deadline();
    m_loader->refreshVisible(keys);
}

void SubjectsPage::refreshVisibleIfEmptied()
{
    const qint64 now = QDeadlineTimer::current().deadline();
    if (now - m_visibleReadAt < kEmptiedRereadMs || !m_model->isIdle())
        return;
    const auto [first, last] = visibleRows();
    for (int row = first; row <= last; ++row) {
        const qint64 deadline = m_model->resetDeadlineAt(row);
        // emptied after the last read, so that read could not have seen what came since
        if (deadline > m_visibleReadAt && deadline <= now) {
            refreshVisible();
            return;
        }
    }
}

void SubjectsPage::updateActions(const PolicyListing& listing)
{
    m_model->setPolicies(std::make_shared<const ActionPolicies>(listing.policies));
    QStringList invalid;
    for (const InvalidPolicy& bad : listing.invalid)
        invalid << displayId(bad.action);
    m_invalidPolicies = invalid.isEmpty()
                            ? QString()
                            : tr("invalid policies: %1").arg(invalid.join(QStringLiteral(", ")));
    QList<QByteArray> actions;
    for (const Policy& policy : listing.policies)
        actions << policy.action;
    QList<QByteArray> current;
    for (int i = 1; i < m_action->count(); ++i)
        current << m_action->itemData(i).toByteArray();
    if (actions != current) {
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
    updateSummary();
}

void SubjectsPage::updateSummary()
{
    m_summaryDelay->stop();
    const SubjectStore::Totals& t = m_model->totals();
    const qint64 wouldDeny = m_model->wouldDenyCount(); // shadow policies deny nobody
    QString text = (t.subjects == 1 ? tr("1 subject") : tr("%1 subjects").arg(number(t.subjects))) +
                   QStringLiteral(", ") +
                   tr("%1 banned, %2 denied, %3 warned, %4 near the limit")
                       .arg(number(t.banned), number(t.denied - wouldDeny), number(t.warned),
                            number(t.nearLimit));
    if (wouldDeny > 0)
        text += tr(", %1 would be denied (shadow)").arg(number(wouldDeny));
    if (t.errors > 0)
        text += tr(", %1 with errors").arg(number(t.errors));
    // Counted in the override index: users, also those without counters right now.
    const OverrideMarks& marks = *m_model->overrideMarks();
    if (!marks.isEmpty())
        text += tr("; users overridden: %1, exempt: %2")
                    .arg(number(marks.overriddenUsers()), number(marks.exemptUsers()));
    if (m_model->rowCount() != t.subjects)
        text += tr(" (%1 shown)").arg(number(m_model->rowCount()));
    if (!m_progress.isEmpty())
        text += QStringLiteral(" — ") + m_progress;
    if (!m_invalidPolicies.isEmpty())
        text += QStringLiteral(" — ") + m_invalidPolicies;
    m_summary->setText(text);
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
    connect(m_detail, &QDialog::finished, this, [this] {
        if (m_detail)
            m_loader->findUser(m_detail->user()); // what was changed there shows here at once
    });
    m_detail->show();
    return m_detail;
}

} // namespace tollgate::ui
