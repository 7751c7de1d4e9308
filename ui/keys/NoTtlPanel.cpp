#include "ui/keys/NoTtlPanel.h"

#include "core/policies/Duration.h"
#include "tollgate/Repair.h"
#include "ui/common/ReasonPrompt.h"
#include "ui/common/Session.h"
#include "ui/keys/KeyActions.h"
#include "ui/keys/NoTtlModel.h"
#include "ui/user/WrongTypeRepair.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>
#include <chrono>

namespace tollgate::ui {

namespace {

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
    // Right-click and double-click as on the keys table above (view value, open user).
    new KeyActions(session, m_table, [this](const QModelIndex& index) {
        return index.isValid() ? m_model->item(index.row()).key : QByteArray();
    });

    m_find = new QPushButton(tr("Find keys without TTL"), this);
    m_find->setObjectName(QStringLiteral("findNoTtlButton"));
    m_repairSelected = new QPushButton(tr("Repair selected"), this);
    m_repairSelected->setObjectName(QStringLiteral("repairSelectedButton"));
    m_repairAll = new QPushButton(tr("Repair all"), this);
    m_repairAll->setObjectName(QStringLiteral("repairAllButton"));
    for (QPushButton* button : {m_repairSelected, m_repairAll})
        button->setProperty("tollgateWrite", static_cast<int>(Session::Write::RepairKey));
    // Keys of the wrong type are not repaired by a TTL: deleted, through the scripts.
    m_deleteWrongType = new QPushButton(tr("Delete wrong type…"), this);
    m_deleteWrongType->setObjectName(QStringLiteral("deleteWrongTypeButton"));
    m_deleteWrongType->setProperty("tollgateWrite", static_cast<int>(Session::Write::DeleteKey));
    m_deleteWrongType->hide(); // only while the list holds such a key
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
    bar->addWidget(m_deleteWrongType);
    bar->addWidget(m_cancel);
    bar->addWidget(m_progress, 1);
    bar->addStretch(0);

    // Another client's keys (the two-command counter's): a pattern, a TTL, a cap per second.
    m_pattern = new QLineEdit(this);
    m_pattern->setObjectName(QStringLiteral("repairPatternEdit"));
    m_pattern->setPlaceholderText(tr("another client's keys, e.g. likes:*"));
    m_patternTtl = new QLineEdit(QStringLiteral("1h"), this);
    m_patternTtl->setObjectName(QStringLiteral("repairPatternTtlEdit"));
    m_patternTtl->setMaximumWidth(m_patternTtl->fontMetrics().horizontalAdvance(QStringLiteral("0000000")) + 16);
    m_patternRate = new QSpinBox(this);
    m_patternRate->setObjectName(QStringLiteral("repairPatternRateSpin"));
    m_patternRate->setRange(0, 1'000'000);
    m_patternRate->setValue(1000);
    m_patternRate->setSuffix(tr(" keys/s"));
    m_patternRate->setSpecialValueText(tr("no cap"));
    m_findPattern = new QPushButton(tr("Find by pattern"), this);
    m_findPattern->setObjectName(QStringLiteral("findPatternButton"));
    m_repairPattern = new QPushButton(tr("Give TTL…"), this);
    m_repairPattern->setObjectName(QStringLiteral("repairPatternButton"));
    m_repairPattern->setProperty("tollgateWrite", static_cast<int>(Session::Write::RepairKey));
    auto* patternBar = new QHBoxLayout;
    patternBar->addWidget(new QLabel(tr("Pattern:"), this));
    patternBar->addWidget(m_pattern, 1);
    patternBar->addWidget(new QLabel(tr("TTL:"), this));
    patternBar->addWidget(m_patternTtl);
    patternBar->addWidget(new QLabel(tr("at most"), this));
    patternBar->addWidget(m_patternRate);
    patternBar->addWidget(m_findPattern);
    patternBar->addWidget(m_repairPattern);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addLayout(patternBar);
    layout->addWidget(m_status);
    layout->addWidget(m_table, 1);

    connect(m_find, &QPushButton::clicked, this, &NoTtlPanel::find);
    connect(m_repairSelected, &QPushButton::clicked, this, &NoTtlPanel::repairSelected);
    connect(m_repairAll, &QPushButton::clicked, this, &NoTtlPanel::repairAll);
    connect(m_cancel, &QPushButton::clicked, this, &NoTtlPanel::cancel);
    connect(m_deleteWrongType, &QPushButton::clicked, this, &NoTtlPanel::deleteWrongType);
    connect(m_findPattern, &QPushButton::clicked, this, &NoTtlPanel::findByPattern);
    connect(m_repairPattern, &QPushButton::clicked, this, &NoTtlPanel::repairByPattern);
    connect(m_pattern, &QLineEdit::textChanged, this, &NoTtlPanel::updateButtons);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &NoTtlPanel::updateButtons);
    connect(m_model, &QAbstractItemModel::modelReset, this, &NoTtlPanel::updateButtons);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &NoTtlPanel::updateButtons);
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
        runRepair(false, {});
}

void NoTtlPanel::findByPattern()
{
    if (!m_job && patternOptions())
        runRepair(false, {}, true);
}

void NoTtlPanel::repairByPattern()
{
    const auto options = patternOptions();
    if (m_job || !options || !m_session->canWrite(Session::Write::RepairKey))
        return;
    ReasonPrompt::ask(this, tr("Give keys a TTL"),
                      tr("Scan for keys matching %1 and give each that has no TTL a TTL of %2?")
                          .arg(QString::fromUtf8(options->pattern), formatDuration(options->ttlMs)),
                      tr("Give TTL"), [this](const QString& reason) {
                          if (!m_job)
                              runRepair(true, reason, true);
                      });
}

std::optional<PatternRepairOptions> NoTtlPanel::patternOptions()
{
    PatternRepairOptions options;
    options.pattern = m_pattern->text().trimmed().toUtf8();
    options.rate = m_patternRate->value();
    options.reason = QStringLiteral("-"); // checked for what is typed here; asked for later
    auto ttl = parseDuration(m_patternTtl->text().trimmed());
    Status valid = ttl ? Status(Unit{}) : Status(ttl.error());
    if (ttl) {
        options.ttlMs = *ttl;
        valid = PatternRepair::validate(options, m_session->schema());
    }
    if (!valid) {
        m_status->setText(tr("Pattern repair: %1").arg(valid.error().message));
        return std::nullopt;
    }
    options.reason.clear();
    return options;
}

// Finding is a dry run of the same pass that "Repair all" (or, by pattern, "Give TTL…") makes
// with fix on.
void NoTtlPanel::runRepair(bool fix, const QString& reason, bool byPattern)
{
    std::optional<PatternRepairOptions> pattern;
    if (byPattern && !(pattern = patternOptions()))
        return;
    auto job = begin(fix ? (byPattern ? tr("Giving a TTL to keys matching %1…")
                                            .arg(QString::fromUtf8(pattern->pattern))
                                      : tr("Repairing every key without TTL…"))
                         : tr("Scanning for keys without TTL…"),
                     fix && !byPattern ? m_model->rowCount() : 0);
    if (!fix || byPattern != m_showsPattern)
        m_model->clear();
    m_showsPattern = byPattern;
    const Context self(this); // progress and items arrive on the client's worker thread
    // Every key found streams into the table as its batch is checked; the report keeps only
    // the few its audit entry names.
    auto onFound = [this, self, job](std::vector<RepairItem>& found) {
        self.post([this, job, items = std::move(found)] {
            if (m_job != job)
                return;
            for (const RepairItem& item : items)
                if (item.status == QLatin1String("fixed"))
                    job->fixed << item.key;
            m_model->mergeItems(items);
        });
    };
    auto progress = [this, self, job, fix](const RepairProgress& progress) {
        if (job->cancelled)
            return false;
        self.post([this, job, fix, progress] { showProgress(job, fix, progress); });
        return true;
    };
    auto done = [this, job, fix](Result<RepairReport> report) {
        finishRepair(job, fix, std::move(report));
    };
    if (pattern) {
        pattern->fix = fix;
        pattern->actor = m_session->actor();
        pattern->reason = reason;
        pattern->maxItems = Repair::kMaxNamedKeys;
        pattern->onFound = onFound;
        PatternRepair(m_session->client(), m_session->schema()).run(*pattern, progress, this, done);
        return;
    }
    RepairOptions options;
    options.fix = fix;
    options.actor = m_session->actor();
    options.reason = reason;
    options.scanCount = 1000; // the whole keyspace, uncapped; the pause bounds the load
    options.pause = std::chrono::milliseconds(5);
    options.maxItems = Repair::kMaxNamedKeys;
    options.onFound = onFound;
    Repair(m_session->client(), m_session->schema()).run(options, progress, this, done);
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
    // The items themselves came in as they were found (onFound), every one of them.
    // Keys of the wrong type: a TTL would not help, every script touching them fails.
    const QString wrongType =
        report->wrongType == 0
            ? QString()
            : QLatin1Char(' ') +
                  tr("%1 of the wrong type: they make the scripts fail until deleted (Delete "
                     "wrong type…).")
                      .arg(report->wrongType);
    if (!fix) {
        end((report->cancelled ? tr("Cancelled after %1 keys: %2 without TTL so far.")
                               : tr("Scanned %1 keys: %2 without TTL."))
                .arg(report->totals.scanned)
                .arg(report->totals.found) +
            wrongType);
        return;
    }
    const QList<QByteArray> fixedKeys = job->fixed;
    const qint64 fixed = report->totals.fixed;
    end((report->cancelled ? tr("Cancelled: %1 keys fixed.").arg(fixed)
                           : tr("Done: %1 keys fixed.").arg(fixed)) +
        wrongType);
    Q_EMIT repaired(fixedKeys);
}

void NoTtlPanel::repairSelected()
{
    // Every selected row, "fixed" ones too: a key that lost its TTL again needs it again
    // (repair.lua leaves a key that has one alone and says "ok").
    QList<QByteArray> keys;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        if (!m_model->isWrongType(index.row())) // no TTL helps those: Delete wrong type…
            keys << m_model->item(index.row()).key;
    if (keys.isEmpty() || m_job || !m_session->canWrite(Session::Write::RepairKey))
        return;
    QStringList names;
    for (int i = 0; i < keys.size() && i < Repair::kMaxNamedKeys; ++i)
        names << QString::fromUtf8(keys[i]);
    if (keys.size() > Repair::kMaxNamedKeys)
        names << tr("… and %1 more").arg(keys.size() - Repair::kMaxNamedKeys);
    ReasonPrompt::ask(this, tr("Repair keys"),
                      tr("Give %1 the TTL it needs?").arg(keysText(keys.size())) +
                          QStringLiteral("\n\n") + names.join(QLatin1Char('\n')),
                      tr("Repair"), [this, keys](const QString& reason) { fixKeys(keys, reason); });
}

void NoTtlPanel::deleteWrongType()
{
    if (m_job || !m_session->canWrite(Session::Write::DeleteKey))
        return;
    QList<int> rows;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        if (m_model->isWrongType(index.row()))
            rows << index.row();
    if (rows.isEmpty()) // none selected: every one listed
        for (int row = 0; row < m_model->rowCount(); ++row)
            if (m_model->isWrongType(row))
                rows << row;
    std::vector<WrongTypeKey> keys;
    for (int row : rows) {
        const RepairItem& item = m_model->item(row);
        keys.push_back({item.key, item.type, item.expectedType, item.parsed});
    }
    if (keys.empty())
        return;
    deleteWrongTypeKeys(this, m_session, keys, [this](Result<QList<QByteArray>> deleted) {
        if (!deleted) {
            m_status->setText(
                tr("Delete failed (%1): %2")
                    .arg(errorKindName(deleted.error().kind), deleted.error().message));
            return;
        }
        m_model->markDeleted(*deleted);
        m_status->setText(tr("Deleted %1 of the wrong type, each in the audit trail.")
                              .arg(keysText(deleted->size())));
        updateButtons();
    });
}

void NoTtlPanel::fixKeys(const QList<QByteArray>& keys, const QString& reason)
{
    if (m_job)
        return;
    auto job = begin(tr("Repairing %1…").arg(keysText(keys.size())), int(keys.size()));
    RepairOptions options;
    options.actor = m_session->actor();
    options.reason = reason;
    const Context self(this); // progress arrives on the client's worker thread
    Repair(m_session->client(), m_session->schema())
        .fixKeys(
            keys, options,
            [this, self, job](const RepairProgress& progress) {
                if (job->cancelled)
                    return false;
                self.post([this, job, progress] {
                    if (m_job != job)
                        return;
                    m_progress->setValue(int(progress.scanned));
                    m_status->setText(
                        tr("Fixed %1 of %2…").arg(progress.fixed).arg(m_progress->maximum()));
                });
                return true;
            },
            this,
            [this, job](Result<RepairReport> report) {
                if (m_job != job)
                    return;
                if (!report) {
                    end(tr("Repair failed (%1): %2")
                            .arg(errorKindName(report.error().kind), report.error().message));
                    return;
                }
                QList<QByteArray> fixedKeys;
                for (const RepairItem& item : report->items)
                    if (item.status == QLatin1String("fixed"))
                        fixedKeys << item.key;
                m_model->mergeItems(report->items);
                const QString fixed = keysText(report->totals.fixed);
                end(report->cancelled ? tr("Cancelled: %1 fixed.").arg(fixed)
                                      : tr("Done: %1 fixed.").arg(fixed));
                Q_EMIT repaired(fixedKeys);
            });
}

void NoTtlPanel::repairAll()
{
    if (m_job || !m_session->canWrite(Session::Write::RepairKey))
        return;
    ReasonPrompt::ask(this, tr("Repair keys"),
                      tr("Scan every key under the prefix and give each key of ours that has no "
                         "TTL the one it needs?"),
                      tr("Repair all"), [this](const QString& reason) {
                          if (!m_job)
                              runRepair(true, reason);
                      });
}

void NoTtlPanel::updateButtons()
{
    const bool busy = m_job != nullptr;
    const QString blocked = m_session->writeBlockedReason(Session::Write::RepairKey);
    m_find->setEnabled(!busy);
    m_findPattern->setEnabled(!busy && !m_pattern->text().trimmed().isEmpty());
    m_cancel->setEnabled(busy);
    // Another client's keys are not repair.lua's to judge: they get their TTL by pattern.
    m_repairSelected->setEnabled(!busy && blocked.isEmpty() && !m_showsPattern &&
                                 m_table->selectionModel()->hasSelection());
    m_repairAll->setEnabled(!busy && blocked.isEmpty() && !m_showsPattern &&
                            m_model->rowCount() > m_model->wrongTypeCount());
    m_repairPattern->setEnabled(!busy && blocked.isEmpty() &&
                                !m_pattern->text().trimmed().isEmpty());
    for (QPushButton* button : {m_repairSelected, m_repairAll, m_repairPattern})
        button->setToolTip(blocked);
    const QString deleteBlocked = m_session->writeBlockedReason(Session::Write::DeleteKey);
    m_deleteWrongType->setVisible(m_model->wrongTypeCount() > 0);
    m_deleteWrongType->setEnabled(!busy && deleteBlocked.isEmpty());
    m_deleteWrongType->setToolTip(
        deleteBlocked.isEmpty() ? tr("Delete the keys of the wrong type (the selected ones, else "
                                     "every one listed), with a reason, in the audit trail")
                                : deleteBlocked);
}

} // namespace tollgate::ui
