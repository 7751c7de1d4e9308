#include "ui/keys/NoTtlPanel.h"

#include "core/limits/Repair.h"
#include "core/scripts/ScriptRunner.h"
#include "ui/common/Session.h"
#include "ui/keys/NoTtlModel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMap>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>
#include <chrono>

namespace tollgate::ui {

namespace {

// All keys of one user share the hash tag "<p>:{<user>}", hence one Cluster slot: repair.lua
// is called once per tag.
QByteArray hashTag(const QByteArray& key)
{
    const int open = key.indexOf('{');
    const int close = open < 0 ? -1 : key.indexOf('}', open + 1);
    return close < 0 ? key : key.left(close + 1);
}

QString keysText(qint64 n)
{
    return n == 1 ? QStringLiteral("1 key") : QStringLiteral("%1 keys").arg(n);
}

} // namespace

NoTtlPanel::NoTtlPanel(Session* session, QWidget* parent) : QWidget(parent), m_session(session)
{
    m_model = new NoTtlModel(this);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("noTtlTableView"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(0, 420);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);

    m_find = new QPushButton(tr("Find keys without TTL"), this);
    m_find->setObjectName(QStringLiteral("findNoTtlButton"));
    m_repairSelected = new QPushButton(tr("Repair selected"), this);
    m_repairSelected->setObjectName(QStringLiteral("repairSelectedButton"));
    m_repairAll = new QPushButton(tr("Repair all"), this);
    m_repairAll->setObjectName(QStringLiteral("repairAllButton"));
    for (QPushButton* button : {m_repairSelected, m_repairAll})
        button->setProperty("tollgateWrite", static_cast<int>(Session::Write::RepairKey));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("cancelRepairButton"));
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("repairProgressBar"));
    m_progress->setVisible(false);
    m_status = new QLabel(
        tr("Keys of ours that lost their TTL never expire: find and repair them here."), this);
    m_status->setObjectName(QStringLiteral("repairStatusLabel"));

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_find);
    bar->addWidget(m_repairSelected);
    bar->addWidget(m_repairAll);
    bar->addWidget(m_cancel);
    bar->addWidget(m_progress, 1);
    bar->addStretch(0);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    layout->addWidget(m_table, 1);

    connect(m_find, &QPushButton::clicked, this, &NoTtlPanel::find);
    connect(m_repairSelected, &QPushButton::clicked, this, &NoTtlPanel::repairSelected);
    connect(m_repairAll, &QPushButton::clicked, this, &NoTtlPanel::repairAll);
    connect(m_cancel, &QPushButton::clicked, this, &NoTtlPanel::cancel);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &NoTtlPanel::updateButtons);
    connect(m_model, &QAbstractItemModel::modelReset, this, &NoTtlPanel::updateButtons);
    connect(session, &Session::permissionsChanged, this, &NoTtlPanel::updateButtons);
    updateButtons();
}

NoTtlPanel::~NoTtlPanel()
{
    if (m_job)
        m_job->cancelled = true;
}

std::shared_ptr<NoTtlPanel::Job> NoTtlPanel::begin(const QString& status, int maximum)
{
    m_job = std::make_shared<Job>();
    m_status->setText(status);
    m_progress->setRange(0, maximum); // 0: busy indicator, the total is not known yet
    m_progress->setValue(0);
    m_progress->setVisible(true);
    updateButtons();
    return m_job;
}

void NoTtlPanel::end(const QString& status)
{
    m_job.reset();
    m_status->setText(status);
    m_progress->setVisible(false);
    updateButtons();
    Q_EMIT finished();
}

void NoTtlPanel::cancel()
{
    if (!m_job)
        return;
    m_job->cancelled = true;
    m_status->setText(tr("Cancelling…"));
}

void NoTtlPanel::find()
{
    if (!m_job)
        runRepair(false);
}

// Finding is a dry run of the same pass that "Repair all" makes with fix on.
void NoTtlPanel::runRepair(bool fix)
{
    auto job =
        begin(fix ? tr("Repairing every key without TTL…") : tr("Scanning for keys without TTL…"),
              fix ? m_model->rowCount() : 0);
    RepairOptions options;
    options.fix = fix;
    options.actor = m_session->actor();
    options.scanCount = 1000; // the whole keyspace, uncapped; the pause bounds the load
    options.pause = std::chrono::milliseconds(5);
    const Context self(this); // progress arrives on the client's worker thread
    Repair(m_session->client(), m_session->schema())
        .run(
            options,
            [this, self, job, fix](const RepairProgress& progress) {
                if (job->cancelled)
                    return false;
                self.post([this, job, fix, progress] { showProgress(job, fix, progress); });
                return true;
            },
            this,
            [this, job, fix](Result<RepairReport> report) {
                finishRepair(job, fix, std::move(report));
            });
}

void NoTtlPanel::showProgress(const std::shared_ptr<Job>& job, bool fix,
                              const RepairProgress& progress)
{
    if (m_job != job || job->cancelled)
        return;
    if (!fix) {
        m_status->setText(tr("Scanned %1 keys, %2 without TTL so far…")
                              .arg(progress.scanned)
                              .arg(progress.found));
        return;
    }
    if (progress.fixed > m_progress->maximum())
        m_progress->setMaximum(int(progress.fixed));
    m_progress->setValue(int(progress.fixed));
    m_status->setText(tr("Scanned %1 keys, fixed %2…").arg(progress.scanned).arg(progress.fixed));
}

void NoTtlPanel::finishRepair(const std::shared_ptr<Job>& job, bool fix,
                              Result<RepairReport> report)
{
    if (m_job != job)
        return;
    if (!report) {
        end(tr("%1 failed (%2): %3")
                .arg(fix ? tr("Repair") : tr("Finding"), errorKindName(report.error().kind),
                     report.error().message));
        return;
    }
    if (!fix) {
        const qint64 found = report->totals.found;
        const qint64 scanned = report->totals.scanned;
        const bool cancelled = report->cancelled;
        m_model->setItems(std::move(report->items));
        end((cancelled ? tr("Cancelled after %1 keys: %2 without TTL so far.")
                       : tr("Scanned %1 keys: %2 without TTL."))
                .arg(scanned)
                .arg(found));
        return;
    }
    QList<QByteArray> fixedKeys;
    for (const RepairItem& item : report->items)
        fixedKeys << item.key;
    m_model->updateItems(report->items);
    const qint64 fixed = report->totals.fixed;
    end(report->cancelled ? tr("Cancelled: %1 keys fixed.").arg(fixed)
                          : tr("Done: %1 keys fixed.").arg(fixed));
    Q_EMIT repaired(fixedKeys);
}

void NoTtlPanel::repairSelected()
{
    QList<QByteArray> keys;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        if (m_model->item(index.row()).status != QStringLiteral("fixed"))
            keys << m_model->item(index.row()).key;
    if (keys.isEmpty() || m_job || !m_session->canWrite(Session::Write::RepairKey))
        return;
    QMap<QByteArray, QList<QByteArray>> groups;
    for (const QByteArray& key : keys)
        groups[hashTag(key)] << key;
    auto job = begin(tr("Repairing %1…").arg(keysText(keys.size())), int(keys.size()));
    repairGroups(job, groups.values(), 0);
}

// One repair.lua "fix" per user, one after the other, so Cancel takes effect between users.
void NoTtlPanel::repairGroups(std::shared_ptr<Job> job, QList<QList<QByteArray>> groups, int fixed)
{
    if (groups.isEmpty() || job->cancelled) {
        if (fixed > 0) {
            AuditEntry entry;
            entry.event = QStringLiteral("repair");
            entry.actor = m_session->actor();
            entry.reason = QStringLiteral("repair selected keys without TTL");
            entry.detail = QStringLiteral("fixed=%1").arg(fixed);
            m_session->audit().record(entry, this, {});
        }
        end((job->cancelled ? tr("Cancelled: %1 fixed.").arg(keysText(fixed))
                            : tr("Done: %1 fixed.").arg(keysText(fixed))));
        return;
    }
    const QList<QByteArray> keys = groups.takeFirst();
    runScript(m_session->client(), QStringLiteral("repair"), keys, {QByteArrayLiteral("fix")}, this,
              [this, job, groups, fixed, keys](Result<Reply> reply) mutable {
                  if (m_job != job)
                      return;
                  if (!reply) {
                      end(tr("Repair failed after %1 fixed (%2): %3")
                              .arg(fixed)
                              .arg(errorKindName(reply.error().kind), reply.error().message));
                      return;
                  }
                  std::vector<RepairItem> updates;
                  QList<QByteArray> fixedKeys;
                  for (const Reply& row : reply->elements) {
                      if (row.elements.size() < 3)
                          continue;
                      RepairItem item;
                      item.key = row.elements[0].toBytes();
                      item.status = QString::fromLatin1(row.elements[1].toBytes());
                      item.ttlMs = row.elements[2].toInteger().value_or(0);
                      if (item.status == QStringLiteral("fixed")) {
                          ++fixed;
                          fixedKeys << item.key;
                      }
                      updates.push_back(item);
                  }
                  m_model->updateItems(updates);
                  m_progress->setValue(m_progress->value() + int(keys.size()));
                  m_status->setText(tr("Fixed %1 of %2…").arg(fixed).arg(m_progress->maximum()));
                  Q_EMIT repaired(fixedKeys);
                  repairGroups(job, groups, fixed);
              });
}

void NoTtlPanel::repairAll()
{
    if (!m_job && m_session->canWrite(Session::Write::RepairKey))
        runRepair(true);
}

void NoTtlPanel::updateButtons()
{
    const bool busy = m_job != nullptr;
    const QString blocked = m_session->writeBlockedReason(Session::Write::RepairKey);
    m_find->setEnabled(!busy);
    m_cancel->setEnabled(busy);
    m_repairSelected->setEnabled(!busy && blocked.isEmpty() &&
                                 m_table->selectionModel()->hasSelection());
    m_repairAll->setEnabled(!busy && blocked.isEmpty() && m_model->rowCount() > 0);
    for (QPushButton* button : {m_repairSelected, m_repairAll})
        button->setToolTip(blocked);
}

} // namespace tollgate::ui
