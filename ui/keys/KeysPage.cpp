#include "ui/keys/KeysPage.h"

#include "core/client/Scan.h"
#include "core/keys/KeyDeletion.h"
#include "ui/common/Ask.h"
#include "ui/common/ElidedLabel.h"
#include "ui/common/ReasonPrompt.h"
#include "ui/common/Session.h"
#include "ui/common/WholeRows.h"
#include "ui/keys/KeyActions.h"
#include "ui/keys/KeyDetails.h"
#include "ui/keys/KeysModel.h"
#include "ui/keys/NoTtlPanel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QScrollBar>
#include <QShortcut>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <chrono>

namespace tollgate::ui {

namespace {

constexpr int kCountdownMs = 250; // tenths of a second show under a minute
constexpr int kDetailsChunk = 200;
constexpr int kDetailsMargin = 500; // rows above and below the view fetched in the background
constexpr int kMaxNamedKeys = 20;   // Delete… lists this many keys by name, then a count
// The rows on screen are read again (TTL, type, value) this often, and as soon as a TTL runs out
// on screen: a sliding log renewed by every hit keeps a TTL under a second, which a countdown
// from one read would show as gone. Visible rows only, one batch in flight: ~40 rows x 3
// commands every 2 s, a few hundred commands a second at most, well within the console's budget.
constexpr qint64 kRereadMs = 2000;
constexpr int kRereadMax = 100;
// SCAN batches arrive a few hundred times a second at a million keys: they are gathered and
// handed to the table every kApplyMs, kApplyMax keys a slice (a few ms of GUI time on a busy
// machine, measured with bench_keys), other events between the slices.
constexpr int kApplyMs = 100;
constexpr int kApplyMax = 2'500;

// "1 key" / "3 keys": plain English plurals, the app ships no translations.
QString counted(qint64 n, const char* one, const char* many)
{
    return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

} // namespace

KeysPage::KeysPage(Session* session, QWidget* parent) : QWidget(parent), m_session(session)
{
    m_pattern =
        new QLineEdit(QString::fromUtf8(session->schema().prefix()) + QStringLiteral(":*"), this);
    m_pattern->setObjectName(QStringLiteral("patternLineEdit"));
    m_pattern->setToolTip(tr("A SCAN MATCH glob; every matching key is listed"));
    m_template = new QLineEdit(this);
    m_template->setObjectName(QStringLiteral("templateLineEdit"));
    m_template->setPlaceholderText(tr("Attach read-only, e.g. act:limit:{action}:{user}"));
    m_template->setToolTip(tr("A foreign key layout: {user} and {action} become columns; the "
                              "pattern is ignored and no write is offered"));
    m_scanButton = new QPushButton(tr("Scan"), this);
    m_scanButton->setObjectName(QStringLiteral("scanButton"));
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setObjectName(QStringLiteral("cancelScanButton"));
    m_deleteButton = new QPushButton(tr("Delete…"), this);
    m_deleteButton->setObjectName(QStringLiteral("deleteButton"));
    m_deleteButton->setProperty("tollgateWrite", static_cast<int>(Session::Write::DeleteKey));
    m_status = new ElidedLabel(this);
    m_status->setObjectName(QStringLiteral("scanStatusLabel"));

    m_model = new KeysModel(this);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("keysTableView"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    // Fixed row heights: the view never measures a million rows.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(KeysModel::KeyColumn, 460);
    m_table->setColumnWidth(KeysModel::TypeColumn, 80);
    m_table->setColumnWidth(KeysModel::TtlColumn, 90);
    m_table->setColumnHidden(KeysModel::UserColumn, true);
    m_table->setColumnHidden(KeysModel::ActionColumn, true);
    // Key and TTL sort (KeysModel::sort, off this thread); a third click goes back to the
    // order SCAN found them in. The other columns keep the current order.
    QHeaderView* header = m_table->horizontalHeader();
    header->setSortIndicator(-1, Qt::AscendingOrder);
    header->setSortIndicatorClearable(true);
    m_table->setSortingEnabled(true);
    connect(header, &QHeaderView::sortIndicatorChanged, this, [this, header](int column) {
        if (column == -1 || column == KeysModel::KeyColumn || column == KeysModel::TtlColumn) {
            m_sortColumn = column;
            m_sortOrder = header->sortIndicatorOrder();
            return;
        }
        const QSignalBlocker quiet(header); // the model ignored it: only the arrow goes back
        header->setSortIndicator(m_sortColumn, m_sortOrder);
        header->viewport()->update();
    });
    // Details are read near the view only: a TTL sort says how many it could not place.
    connect(m_model, &KeysModel::sorted, this, [this] {
        if (m_sortColumn != KeysModel::TtlColumn || m_scan)
            return;
        const qint64 unread = m_model->unreadTtlsInSort();
        m_status->setText(
            unread == 0
                ? tr("%1 keys, sorted by TTL").arg(QLocale().toString(m_model->rowCount()))
                : tr("%1 keys, sorted by TTL; the %2 whose TTL was not read yet are last "
                     "(scroll to them, then sort again)")
                      .arg(QLocale().toString(m_model->rowCount()), QLocale().toString(unread)));
    });
    new KeyActions(
        session, m_table,
        [this](const QModelIndex& index) {
            return index.isValid() ? m_model->row(index.row()).key : QByteArray();
        },
        [this] {
            if (m_deleteButton->isEnabled())
                deleteSelected();
        });

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Pattern"), this));
    bar->addWidget(m_pattern, 2);
    bar->addWidget(new QLabel(tr("Template"), this));
    bar->addWidget(m_template, 1);
    bar->addWidget(m_scanButton);
    bar->addWidget(m_cancelButton);
    bar->addWidget(m_deleteButton);
    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addLayout(bar);
    topLayout->addWidget(m_table, 1);
    topLayout->addWidget(m_status);

    m_noTtl = new NoTtlPanel(session, this);
    m_noTtl->setObjectName(QStringLiteral("noTtlPanel"));
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(top);
    splitter->addWidget(m_noTtl);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    keepWholeRows(m_table, splitter);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    m_model->setSchema(session->schema());
    // TTLs count down between fetches, like the Subjects page: repaint the visible ones.
    auto* countdown = new QTimer(this);
    countdown->setInterval(kCountdownMs);
    connect(countdown, &QTimer::timeout, this, [this] {
        if (!isVisible())
            return;
        const auto [first, last] = visibleRows();
        m_model->refreshCountdowns(first, last);
        rereadVisible();
    });
    countdown->start();

    m_applyTimer = new QTimer(this);
    m_applyTimer->setSingleShot(true);
    m_applyTimer->setInterval(kApplyMs);
    connect(m_applyTimer, &QTimer::timeout, this, &KeysPage::applyPending);

    m_lazyTimer = new QTimer(this);
    m_lazyTimer->setInterval(100);
    connect(m_lazyTimer, &QTimer::timeout, this, &KeysPage::fetchMore);
    connect(m_scanButton, &QPushButton::clicked, this, &KeysPage::startScan);
    connect(m_pattern, &QLineEdit::returnPressed, this, &KeysPage::startScan);
    connect(m_template, &QLineEdit::returnPressed, this, &KeysPage::startScan);
    connect(m_cancelButton, &QPushButton::clicked, this, &KeysPage::cancelScan);
    connect(m_deleteButton, &QPushButton::clicked, this, &KeysPage::deleteSelected);
    auto* deleteKey =
        new QShortcut(QKeySequence::Delete, m_table, nullptr, nullptr, Qt::WidgetShortcut);
    connect(deleteKey, &QShortcut::activated, this, [this] {
        if (m_deleteButton->isEnabled())
            deleteSelected();
    });
    auto* rescan = new QShortcut(QKeySequence::Refresh, this, nullptr, nullptr,
                                 Qt::WidgetWithChildrenShortcut);
    connect(rescan, &QShortcut::activated, this, &KeysPage::startScan);
    connect(m_table->verticalScrollBar(), &QScrollBar::valueChanged, this, [this] {
        fetchVisible();
        if (!m_lazyTimer->isActive())
            m_lazyTimer->start(); // the margin around the new position
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &KeysPage::updateButtons);
    connect(m_noTtl, &NoTtlPanel::repaired, this, [this](const QList<QByteArray>& keys) {
        fetchDetails(keys); // their TTL changed
    });
    connect(session, &Session::permissionsChanged, this, &KeysPage::updateButtons);
    updateButtons();
}

KeysPage::~KeysPage()
{
    if (m_scan)
        m_scan->cancelled = true;
}

void KeysPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_scannedOnce)
        return;
    m_scannedOnce = true;
    QTimer::singleShot(0, this, [this] {
        if (!m_scan && m_model->rowCount() == 0)
            startScan();
    });
}

void KeysPage::startScan()
{
    m_scannedOnce = true;
    cancelScan();
    ScanOptions options;
    options.pattern = m_pattern->text().toUtf8();
    std::optional<KeyTemplate> layout;
    if (!m_template->text().trimmed().isEmpty()) {
        auto parsed = KeyTemplate::parse(m_template->text().trimmed());
        if (!parsed) {
            m_status->setText(tr("Template: %1").arg(parsed.error().message));
            return;
        }
        layout = *parsed;
        options.pattern = layout->glob();
    }
    ++m_generation;
    m_pending.clear();
    m_scanEnd.reset();
    m_applyTimer->stop();
    m_model->clear(layout);
    // A new scan lists keys as they are found: no sort arrow over an unsorted list.
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_table->setColumnHidden(KeysModel::UserColumn, !layout);
    m_table->setColumnHidden(KeysModel::ActionColumn, !layout);
    auto job = std::make_shared<ScanJob>();
    m_scan = job;
    if (options.pattern.isEmpty())
        options.pattern = QByteArrayLiteral("*");
    // No cap: every matching key is listed, 1,000 per SCAN call, with a pause that keeps the
    // load at a few hundred calls a second at most; the status line says how far it got.
    options.count = 1000;
    options.pause = std::chrono::milliseconds(2);
    m_session->client()->execute({QByteArrayLiteral("DBSIZE")}, this, [this](Result<Reply> size) {
        m_totalKeys = size ? size->integer : 0;
        m_model->reserve(m_totalKeys); // once, before the rows come: no rehash at a million
    });
    m_status->setText(tr("Scanning…"));
    updateButtons();
    const Context self(this); // results arrive on the client's worker thread
    scanKeys(
        m_session->client(), options,
        [this, self, job](const QList<QByteArray>& keys) {
            if (job->cancelled)
                return false;
            self.post([this, job, keys] {
                if (!job->cancelled)
                    onBatch(keys);
            });
            return true;
        },
        [this, self, job](Result<qint64> seen) {
            if (job->cancelled)
                return;
            self.post([this, job, seen] {
                if (m_scan != job)
                    return;
                // Done once the last keys are in the table, slice by slice like the others.
                m_scanEnd = seen;
                if (m_pending.isEmpty())
                    finishScan();
            });
        });
}

void KeysPage::finishScan()
{
    const Result<qint64> seen = *std::exchange(m_scanEnd, std::nullopt);
    m_scan.reset();
    if (!seen)
        m_status->setText(
            tr("Scan failed (%1): %2").arg(errorKindName(seen.error().kind), seen.error().message));
    else
        m_status->setText(tr("%1 keys").arg(QLocale().toString(m_model->rowCount())));
    updateButtons();
    Q_EMIT scanFinished(m_model->rowCount());
}

void KeysPage::cancelScan()
{
    if (!m_scan)
        return;
    m_scan->cancelled = true;
    m_scan.reset();
    m_scanEnd.reset();
    m_status->setText(tr("%1 keys (scan cancelled)").arg(QLocale().toString(m_model->rowCount())));
    updateButtons();
}

void KeysPage::onBatch(const QList<QByteArray>& keys)
{
    m_pending += keys;
    if (!m_applyTimer->isActive())
        m_applyTimer->start(kApplyMs);
}

void KeysPage::applyPending()
{
    const qsizetype take = std::min<qsizetype>(m_pending.size(), kApplyMax);
    m_model->append(m_pending.first(take));
    m_pending.remove(0, take);
    if (!m_pending.isEmpty())
        m_applyTimer->start(0); // the rest in the next slice, after other events
    if (m_scan)
        m_status->setText(
            m_totalKeys > 0 ? tr("Scanning… %1 matching keys (the database holds %2)")
                                  .arg(m_model->rowCount())
                                  .arg(m_totalKeys)
                            : tr("Scanning… %1 keys").arg(QLocale().toString(m_model->rowCount())));
    fetchVisible();
    if (!m_lazyTimer->isActive())
        m_lazyTimer->start();
    if (m_pending.isEmpty() && m_scanEnd)
        finishScan();
}

QPair<int, int> KeysPage::visibleRows() const
{
    const int first = std::max(0, m_table->rowAt(0));
    int last = m_table->rowAt(m_table->viewport()->height() - 1);
    if (last < 0)
        last = std::min(m_model->rowCount() - 1, first + 100);
    return {first, last};
}

void KeysPage::fetchVisible()
{
    const auto [first, last] = visibleRows();
    const QList<QByteArray> keys = m_model->takeUnrequested(first, last, kDetailsChunk);
    if (!keys.isEmpty())
        fetchDetails(keys);
}

void KeysPage::rereadVisible()
{
    if (m_rereadsInFlight > 0 || m_session->state() != ConnectionState::Connected)
        return;
    const auto [first, last] = visibleRows();
    const QList<QByteArray> keys = m_model->staleKeys(first, last, kRereadMs, kRereadMax);
    if (!keys.isEmpty())
        fetchDetails(keys, &m_rereadsInFlight);
}

void KeysPage::fetchMore()
{
    if (m_detailsInFlight > 0)
        return; // one lazy chunk at a time keeps the pipeline short for visible rows
    // Only rows near the view: details of 100k keys nobody scrolls to are not worth the load
    // on Redis. Scrolling brings the window along (fetchVisible on every scroll).
    const auto [first, last] = visibleRows();
    const QList<QByteArray> keys =
        m_model->takeUnrequested(first - kDetailsMargin, last + kDetailsMargin, kDetailsChunk);
    if (keys.isEmpty()) {
        if (!m_scan)
            m_lazyTimer->stop();
        return;
    }
    fetchDetails(keys);
}

void KeysPage::fetchDetails(const QList<QByteArray>& keys, int* inFlight)
{
    if (!inFlight)
        inFlight = &m_detailsInFlight;
    const quint64 generation = m_generation;
    ++*inFlight;
    fetchKeyDetails(m_session, keys, this,
                    [this, generation, inFlight](const QList<KeysModel::Row>& rows) {
                        --*inFlight;
                        if (generation == m_generation)
                            m_model->setDetails(rows);
                    });
}

bool KeysPage::isForeign() const
{
    return m_model->hasTemplate();
}

void KeysPage::updateButtons()
{
    m_scanButton->setEnabled(!m_scan);
    m_cancelButton->setEnabled(m_scan != nullptr);
    const QString blocked = isForeign() ? tr("A foreign layout is attached read-only")
                                        : m_session->writeBlockedReason(Session::Write::DeleteKey);
    const bool selected = m_table->selectionModel()->hasSelection();
    m_deleteButton->setEnabled(blocked.isEmpty() && selected);
    m_deleteButton->setToolTip(!blocked.isEmpty() ? blocked
                               : selected         ? tr("Delete the selected keys")
                                                  : tr("Select the keys to delete"));
}

void KeysPage::deleteSelected()
{
    if (isForeign() || !m_session->canWrite(Session::Write::DeleteKey))
        return;
    QList<QByteArray> keys;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        keys << m_model->row(index.row()).key;
    if (keys.isEmpty())
        return;
    QStringList names;
    for (int i = 0; i < keys.size() && i < kMaxNamedKeys; ++i)
        names << KeysModel::shownKey(keys[i]);
    if (keys.size() > kMaxNamedKeys)
        names << tr("… and %1 more").arg(keys.size() - kMaxNamedKeys);
    // The reason goes to the audit trail: bans are lifted and counters reset through their
    // scripts (the user's history shows it), anything else is recorded in the global stream.
    ReasonPrompt::ask(this, tr("Delete keys"),
                      tr("Permanently delete %1?").arg(counted(keys.size(), "key", "keys")) +
                          QStringLiteral("\n\n") + names.join(QLatin1Char('\n')),
                      tr("Delete"),
                      [this, keys](const QString& reason) { deleteKeys(keys, reason); });
}

void KeysPage::deleteKeys(const QList<QByteArray>& keys, const QString& reason)
{
    KeyDeletion(m_session->client(), m_session->schema())
        .remove(keys, m_session->actor(), reason, this,
                [this](Result<KeyDeletion::Outcome> outcome) {
                    if (!outcome)
                        return; // remove() reports per key; this is never an error
                    m_model->removeKeys(outcome->deleted + outcome->missing);
                    m_status->setText(
                        tr("Deleted %1").arg(counted(outcome->deleted.size(), "key", "keys")));
                    if (!outcome->failed.isEmpty())
                        Ask::warn(this, tr("Delete keys"),
                                  tr("%1 not deleted; the first: %2: %3")
                                      .arg(counted(outcome->failed.size(), "key was", "keys were"),
                                           KeysModel::shownKey(outcome->failed.first().first),
                                           outcome->failed.first().second.toString()));
                });
}

} // namespace tollgate::ui
