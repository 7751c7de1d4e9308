#include "ui/audit/AuditPage.h"

#include "core/audit/MergedAudit.h"
#include "ui/audit/AuditFilterModel.h"
#include "ui/audit/AuditModel.h"
#include "ui/common/RowRoles.h"
#include "ui/common/Session.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

namespace tollgate::ui {

namespace {

// The events core writes; others found in the stream are added as they appear.
const char* const kKnownEvents[] = {"ban",    "unban",         "reset",    "auto_ban",
                                    "policy", "policy_delete", "rollback", "restore",
                                    "repair", "warn",          "override", "override_delete"};

} // namespace

AuditPage::AuditPage(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_model(new AuditModel(this)),
      m_filter(new AuditFilterModel(this)), m_filterEdit(new QLineEdit(this)),
      m_eventCombo(new QComboBox(this)), m_liveCheck(new QCheckBox(tr("Live"), this)),
      m_view(new QTableView(this)), m_status(new QLabel(this))
{
    setObjectName(QStringLiteral("auditPage"));
    m_filterEdit->setObjectName(QStringLiteral("filterLineEdit"));
    m_filterEdit->setPlaceholderText(tr("Filter by user, action, actor, reason…"));
    m_filterEdit->setClearButtonEnabled(true);
    m_eventCombo->setObjectName(QStringLiteral("eventComboBox"));
    m_eventCombo->addItem(tr("All events"), QString());
    for (const char* event : kKnownEvents)
        m_eventCombo->addItem(QString::fromLatin1(event), QString::fromLatin1(event));
    m_liveCheck->setObjectName(QStringLiteral("liveCheckBox"));
    m_liveCheck->setChecked(true);
    m_liveCheck->setToolTip(tr("Follow new entries as they are written"));
    m_status->setObjectName(QStringLiteral("statusLabel"));

    m_filter->setSourceModel(m_model);
    m_view->setObjectName(QStringLiteral("auditTableView"));
    m_view->setModel(m_filter);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    QHeaderView* header = m_view->horizontalHeader();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(AuditModel::Reason, QHeaderView::Stretch);
    const int digits =
        m_view->fontMetrics().horizontalAdvance(QStringLiteral("0000-00-00 00:00:00"));
    header->resizeSection(AuditModel::Time, digits + 24);
    header->resizeSection(AuditModel::Until, digits + 24);
    // Narrow enough that the reason (what people read the log for) keeps ~200 px at 1024;
    // every column can be widened by hand, and the full text is in each cell's tooltip.
    const int em = m_view->fontMetrics().horizontalAdvance(QLatin1Char('m'));
    header->resizeSection(AuditModel::Event, 7 * em); // "exemption" fits
    header->resizeSection(AuditModel::User, 11 * em); // "member-0999731" (the demo's ids) fits
    header->resizeSection(AuditModel::Action, 7 * em);
    header->resizeSection(AuditModel::Actor, 8 * em);
    header->setMinimumSectionSize(3 * em);

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_filterEdit, 1);
    bar->addWidget(m_eventCombo);
    bar->addWidget(m_liveCheck);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_status);

    connect(m_view, &QTableView::activated, this, [this](const QModelIndex& index) {
        const QByteArray user = index.data(RowUserRole).toByteArray();
        if (!user.isEmpty())
            Q_EMIT userRequested(user);
    });
    connect(m_filterEdit, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_filter->setText(text.trimmed());
        updateStatus();
    });
    connect(m_eventCombo, &QComboBox::currentIndexChanged, this, [this] {
        m_filter->setEvent(m_eventCombo->currentData().toString());
        updateStatus();
    });
    connect(m_liveCheck, &QCheckBox::toggled, this, [this](bool live) {
        if (live && isVisible()) {
            m_timer.start();
            refresh();
        } else {
            m_timer.stop();
        }
    });

    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &AuditPage::refresh);
    connect(session, &Session::eventReceived, this, [this] {
        m_eventSeen = true;
        if (isVisible() && m_liveCheck->isChecked())
            refresh();
    });
    connect(session, &Session::stateChanged, this, [this](ConnectionState state) {
        if (state == ConnectionState::Connected && isVisible())
            refresh();
    });
    updateStatus();
}

bool AuditPage::onCluster() const
{
    return m_session->client() && m_session->client()->isCluster();
}

void AuditPage::refresh()
{
    if (m_inFlight) {
        m_again = true;
        return;
    }
    if (!m_loaded)
        load();
    else if (!onCluster())
        poll();
    else if (std::exchange(m_eventSeen, false))
        pollMerged(); // each poll is a SCAN there: only when a write was announced
}

void AuditPage::load()
{
    m_inFlight = true;
    // Which view to read depends on the server's mode, known after the first connection.
    if (Client* client = m_session->client())
        client->whenModeKnown(this, [this] { loadLatest(); });
    else
        loadLatest();
}

void AuditPage::loadLatest()
{
    auto loaded = [this](Result<std::vector<AuditEntry>> entries) {
        m_inFlight = false;
        if (!entries) {
            m_error = entries.error().toString();
        } else {
            m_error.clear();
            m_loaded = true;
            m_model->setEntries(std::move(entries).value());
            updateEventChoices();
        }
        updateStatus();
        if (std::exchange(m_again, false))
            refresh();
    };
    if (onCluster())
        latestMergedAudit(m_session->client(), m_session->schema(), kInitialEntries, {}, this,
                          std::move(loaded));
    else
        m_session->audit().latest({}, kInitialEntries, this, std::move(loaded));
}

void AuditPage::poll()
{
    m_inFlight = true;
    m_session->audit().newer({}, m_model->newestId(), kInitialEntries, this,
                             [this](Result<std::vector<AuditEntry>> entries) {
                                 m_inFlight = false;
                                 bool more = false;
                                 if (!entries) {
                                     m_error = entries.error().toString();
                                 } else {
                                     m_error.clear();
                                     if (m_model->prependNewer(*entries) > 0)
                                         updateEventChoices();
                                     more = int(entries->size()) ==
                                            kInitialEntries; // a burst: keep reading
                                 }
                                 updateStatus();
                                 if (std::exchange(m_again, false) || more)
                                     refresh();
                             });
}

void AuditPage::pollMerged()
{
    m_inFlight = true;
    latestMergedAudit(m_session->client(), m_session->schema(), kInitialEntries,
                      m_model->newestId(), this, [this](Result<std::vector<AuditEntry>> entries) {
                          m_inFlight = false;
                          if (!entries) {
                              m_error = entries.error().toString();
                          } else {
                              m_error.clear();
                              std::reverse(entries->begin(), entries->end()); // oldest first
                              if (m_model->prependNewer(*entries) > 0)
                                  updateEventChoices();
                          }
                          updateStatus();
                          if (std::exchange(m_again, false))
                              refresh();
                      });
}

void AuditPage::updateEventChoices()
{
    for (const QString& event : m_model->eventNames())
        if (m_eventCombo->findData(event) < 0)
            m_eventCombo->addItem(AuditModel::safeText(event.toUtf8()), event);
}

void AuditPage::updateStatus()
{
    if (!m_error.isEmpty()) {
        m_status->setText(tr("Could not read the audit log: %1").arg(m_error));
        return;
    }
    const int total = m_model->rowCount();
    const int shown = m_filter->rowCount();
    QString text = shown == total ? tr("%n entries", nullptr, total)
                                  : tr("%1 of %n entries", nullptr, total).arg(shown);
    // A script on a cluster touches one slot, so users' changes have no global copy.
    if (onCluster())
        text += tr(" — Redis Cluster: every user's audit stream and the policy stream, merged "
                   "(followed when a write is announced)");
    m_status->setText(text);
}

void AuditPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_liveCheck->isChecked())
        m_timer.start();
    refresh();
}

void AuditPage::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    m_timer.stop();
}

} // namespace tollgate::ui
