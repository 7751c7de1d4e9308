#include "ui/slowlog/SlowlogPage.h"

#include "ui/common/Session.h"
#include "ui/slowlog/SlowlogModel.h"
#include "ui/user/Guarded.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMap>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace tollgate::ui {

SlowlogPage::SlowlogPage(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_model(new SlowlogModel(this)),
      m_proxy(new QSortFilterProxyModel(this)), m_view(new QTableView(this)),
      m_onlyScripts(new QCheckBox(tr("Only Tollgate &scripts"), this)),
      m_threshold(new QLabel(this)), m_status(new QLabel(this)), m_poll(new QTimer(this))
{
    setObjectName(QStringLiteral("slowlogPage"));
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(Qt::UserRole);
    m_proxy->setFilterKeyColumn(SlowlogModel::ScriptColumn);
    m_view->setObjectName(QStringLiteral("slowlogTableView"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(SlowlogModel::TimeColumn, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(false);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(SlowlogModel::ArgumentsColumn,
                                                     QHeaderView::Stretch);
    m_onlyScripts->setObjectName(QStringLiteral("onlyScriptsCheckBox"));
    m_threshold->setObjectName(QStringLiteral("thresholdLabel"));
    m_threshold->setWordWrap(true);
    m_status->setObjectName(QStringLiteral("statusLabel"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* refreshButton = new QPushButton(tr("&Refresh"), this);
    refreshButton->setObjectName(QStringLiteral("refreshButton"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_threshold, 1);
    top->addWidget(m_onlyScripts);
    top->addWidget(refreshButton);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_status);

    connect(m_onlyScripts, &QCheckBox::toggled, this, [this](bool only) {
        // Script rows read "<name>.lua"; commands are upper-case words.
        m_proxy->setFilterRegularExpression(only ? QStringLiteral("\\.lua$") : QString());
        showSummary();
    });
    connect(refreshButton, &QPushButton::clicked, this, &SlowlogPage::refresh);
    m_poll->setInterval(kPollMs);
    connect(m_poll, &QTimer::timeout, this, &SlowlogPage::refresh);
    connect(session, &Session::stateChanged, this, [this](ConnectionState state) {
        if (state == ConnectionState::Connected && isVisible()) {
            readThreshold();
            refresh();
        }
    });
    m_threshold->setText(tr("The server's slow log (read-only)."));
}

void SlowlogPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    readThreshold();
    refresh();
    m_poll->start();
}

void SlowlogPage::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    m_poll->stop();
}

void SlowlogPage::readThreshold()
{
    // What gets logged at all; CONFIG may be forbidden by the ACL, then say less.
    m_session->client()->execute(
        {QByteArrayLiteral("CONFIG"), QByteArrayLiteral("GET"), QByteArrayLiteral("slowlog-*")},
        m_session, guarded<Reply>(this, [this](Result<Reply> reply) {
            if (!reply || !reply->isArray())
                return;
            QMap<QByteArray, QByteArray> config;
            for (const auto& [name, value] : reply->toPairs())
                config.insert(name, value);
            const qint64 slower = config.value("slowlog-log-slower-than", "-1").toLongLong();
            const QString threshold =
                slower < 0
                    ? tr("logging is off (slowlog-log-slower-than < 0)")
                    : tr("commands slower than %1 µs are logged").arg(QLocale().toString(slower));
            m_threshold->setText(
                tr("The server's slow log, read-only: %1; it keeps the last %2.")
                    .arg(threshold, QString::fromUtf8(config.value("slowlog-max-len", "?"))));
        }));
}

void SlowlogPage::refresh()
{
    if (m_loading || m_session->state() != ConnectionState::Connected) {
        if (m_session->state() != ConnectionState::Connected)
            m_status->setText(tr("Not connected: showing the last slow log read."));
        return;
    }
    m_loading = true;
    readSlowlog(
        m_session->client(), kEntries, m_session,
        guarded<std::vector<SlowlogEntry>>(this, [this](Result<std::vector<SlowlogEntry>> entries) {
            m_loading = false;
            if (!entries) {
                m_status->setText(
                    tr("Could not read the slow log: %1").arg(entries.error().toString()));
            } else {
                m_model->setEntries(std::move(*entries));
                showSummary();
            }
            Q_EMIT refreshed();
        }));
}

void SlowlogPage::showSummary()
{
    // Per script: how often it was slow and its worst time, the numbers a limiter's
    // developer looks for first.
    QMap<QString, QPair<int, qint64>> scripts;
    for (const SlowlogEntry& entry : m_model->entries()) {
        if (entry.script.isEmpty())
            continue;
        auto& [count, worst] = scripts[entry.script];
        ++count;
        worst = qMax(worst, entry.durationUs);
    }
    QStringList parts;
    for (auto it = scripts.cbegin(); it != scripts.cend(); ++it)
        parts << tr("%1.lua %2× (worst %3 µs)")
                     .arg(it.key())
                     .arg(it.value().first)
                     .arg(QLocale().toString(it.value().second));
    const int shown = m_proxy->rowCount();
    m_status->setText(
        parts.isEmpty()
            ? tr("%1 entries; none from Tollgate's scripts.").arg(shown)
            : tr("%1 entries shown. Scripts: %2").arg(shown).arg(parts.join(QStringLiteral(", "))));
}

} // namespace tollgate::ui
