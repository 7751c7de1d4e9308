#include "ui/keys/ValueViewer.h"

#include "core/keys/KeyTypes.h"
#include "ui/common/DisplayText.h"
#include "ui/common/Palette.h"
#include "ui/common/Session.h"
#include "ui/common/Widgets.h"
#include "ui/keys/KeysModel.h"
#include "ui/keys/ValueDecoding.h"
#include "ui/user/Guarded.h"

#include <QDeadlineTimer>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace tollgate::ui {

namespace {

constexpr qint64 kRereadMs = 2000; // the key is read again this often while the viewer is open

QString text(const QByteArray& bytes)
{
    return KeysModel::displayBytes(bytes);
}

qint64 steadyNow()
{
    return QDeadlineTimer::current().deadline();
}

// What a read collects besides the value: the size, the server's clock and the policy's limit.
struct Read
{
    ValueContext context;
    int pending = 0;
};

} // namespace

ValueViewer::ValueViewer(Session* session, const QByteArray& key, QWidget* parent)
    : QDialog(parent), m_session(session), m_key(key)
{
    setObjectName(QStringLiteral("valueViewerDialog"));
    setWindowTitle(tr("Key %1").arg(text(key)));
    auto* name = new QLabel(text(key), this);
    name->setObjectName(QStringLiteral("keyLabel"));
    name->setTextFormat(Qt::PlainText);
    name->setTextInteractionFlags(Qt::TextSelectableByMouse);
    name->setWordWrap(true);
    // A key of a 1,000-byte id has no space to wrap at: it is cut, never widens the dialog.
    name->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    QFont bold = name->font();
    bold.setBold(true);
    name->setFont(bold);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("summaryLabel"));
    m_meaning = new QLabel(this);
    m_meaning->setObjectName(QStringLiteral("meaningLabel"));
    m_meaning->setWordWrap(true);
    m_meaning->setTextFormat(Qt::PlainText);
    m_meaning->hide();
    m_ttl = new QLabel(this);
    m_ttl->setObjectName(QStringLiteral("ttlLabel"));
    m_flag = makeErrorLabel(this);
    m_flag->setObjectName(QStringLiteral("wrongTypeLabel"));
    m_flag->hide();
    m_table = new QTableWidget(this);
    m_table->setObjectName(QStringLiteral("valueTableWidget"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* reloadButton = buttons->addButton(tr("&Reload"), QDialogButtonBox::ActionRole);
    reloadButton->setObjectName(QStringLiteral("reloadButton"));
    connect(reloadButton, &QPushButton::clicked, this, [this] { reload(); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(name);
    layout->addWidget(m_summary);
    layout->addWidget(m_meaning);
    layout->addWidget(m_ttl);
    layout->addWidget(m_flag);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);

    m_ticker = new QTimer(this);
    m_ticker->setInterval(250);
    connect(m_ticker, &QTimer::timeout, this, &ValueViewer::tick);
    m_ticker->start();
    fitToScreen(this, QSize(720, 480));
    reload();
}

void ValueViewer::reload(bool quiet)
{
    const int generation = ++m_generation;
    m_reading = true;
    m_readAt = steadyNow();
    if (!quiet)
        m_summary->setText(tr("Loading\u2026"));
    auto type = std::make_shared<QByteArray>();
    // Pipelined: TYPE and PTTL go out back to back on the one connection.
    m_session->client()->execute({"TYPE", m_key}, m_session,
                                 guarded<Reply>(this, [type](Result<Reply> reply) {
                                     *type = reply ? reply->toBytes() : QByteArray();
                                 }));
    m_session->client()->execute(
        {"PTTL", m_key}, m_session,
        guarded<Reply>(this, [this, generation, type](Result<Reply> reply) {
            if (generation != m_generation)
                return;
            if (!reply || type->isEmpty())
                return showError(reply ? tr("Could not read the key's type")
                                       : reply.error().toString());
            onType(*type, reply->toInteger().value_or(-1));
        }));
}

void ValueViewer::onType(const QByteArray& type, qint64 pttl)
{
    m_type = type;
    m_expiresAt = pttl >= 0 ? steadyNow() + pttl : 0;
    m_ttl->setProperty("pttl", pttl);
    tick();
    if (type == "none")
        return showError(tr("The key does not exist (any more)."));

    const QByteArray expected = wrongTypeExpected(m_session->schema(), m_key, type);
    m_flag->setVisible(!expected.isEmpty());
    m_flag->setText(expected.isEmpty() ? QString()
                                       : tr("Wrong type: %1").arg(wrongTypeText(type, expected)));

    auto read = std::make_shared<Read>();
    read->context.place = m_session->schema().parse(m_key);
    const KeySchema::Parsed& place = read->context.place;
    const Command size = sizeCommand(type, m_key);
    if (size.isEmpty())
        return showError(tr("No viewer for the type \"%1\".").arg(QString::fromLatin1(type)));
    const int generation = m_generation;
    auto value = std::make_shared<Reply>();
    auto arrived = [this, generation, read, value] {
        if (--read->pending == 0 && generation == m_generation)
            showValue(*value, read->context);
    };
    read->pending = 2;
    Client* client = m_session->client();
    client->execute(size, m_session, guarded<Reply>(this, [read, arrived](Result<Reply> reply) {
                        if (reply)
                            read->context.size = reply->toInteger().value_or(-1);
                        arrived();
                    }));
    // Tollgate's state and statistics are read against the server's clock and the policy.
    using Kind = KeySchema::Parsed::Kind;
    if (place.kind == Kind::State || place.kind == Kind::Stats) {
        ++read->pending;
        client->execute({"TIME"}, m_session,
                        guarded<Reply>(this, [read, arrived](Result<Reply> reply) {
                            if (reply)
                                read->context.serverNowUs = serverTimeUs(*reply);
                            arrived();
                        }));
    }
    if (place.kind == Kind::State) {
        ++read->pending;
        m_session->policies().get(
            place.action, m_session, guarded<Policy>(this, [read, arrived](Result<Policy> policy) {
                if (policy)
                    read->context.limit = limitAt(*policy, read->context.place);
                arrived();
            }));
    }
    client->execute(valueCommand(type, m_key, place, kMaxItems), m_session,
                    guarded<Reply>(this, [this, generation, value, arrived](Result<Reply> reply) {
                        if (generation != m_generation)
                            return;
                        if (!reply)
                            return showError(reply.error().toString());
                        *value = *reply;
                        arrived();
                    }));
}

void ValueViewer::showValue(const Reply& value, const ValueContext& context)
{
    m_reading = false;
    const DecodedValue decoded = decodeValue(m_type, value, context);
    showRows(decoded.headers, decoded.rows);
    m_meaning->setText(decoded.meaning);
    m_meaning->setVisible(!decoded.meaning.isEmpty());
    const qint64 total = context.size;
    const qint64 shown = decoded.rows.size();
    const QString type = QString::fromLatin1(m_type);
    if (m_type == "string")
        m_summary->setText(tr("%1, %2 bytes").arg(type).arg(total));
    else if (shown < total)
        m_summary->setText(tr("%1 with %2 entries; %3 are shown%4")
                               .arg(type)
                               .arg(total)
                               .arg(shown)
                               .arg(m_type == "stream" ? tr(", newest first") : QString()));
    else
        m_summary->setText(
            tr("%1 with %2").arg(type, countText(total, tr("entry"), tr("entries"))));
    Q_EMIT loaded();
}

void ValueViewer::showRows(const QStringList& headers, const QList<QStringList>& rows)
{
    // A re-read keeps where the reader was: the scroll position and the selected row.
    const int scrolled = m_table->verticalScrollBar()->value();
    const int current = m_table->currentRow();
    const bool sameShape = m_table->columnCount() == int(headers.size());
    m_table->clear();
    m_table->setColumnCount(int(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(int(rows.size()));
    for (int r = 0; r < int(rows.size()); ++r)
        for (int c = 0; c < int(rows[r].size()); ++c) {
            auto* item = new QTableWidgetItem(rows[r][c]);
            item->setToolTip(rows[r][c]);
            m_table->setItem(r, c, item);
        }
    if (!sameShape || m_table->horizontalHeader()->sectionSize(0) <= 0)
        m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setStretchLastSection(true);
    if (current >= 0 && current < m_table->rowCount())
        m_table->selectRow(current);
    m_table->verticalScrollBar()->setValue(scrolled);
}

void ValueViewer::showError(const QString& message)
{
    m_reading = false;
    m_meaning->hide();
    showRows({}, {});
    m_summary->setText(message);
    Q_EMIT loaded();
}

void ValueViewer::tick()
{
    const qint64 now = steadyNow();
    if (isVisible() && !m_reading &&
        (m_readAt + kRereadMs <= now || (m_expiresAt > 0 && m_expiresAt <= now)))
        reload(true);
    if (m_type.isEmpty() || m_type == "none") {
        m_ttl->clear();
        return;
    }
    m_ttl->setText(m_expiresAt == 0 ? tr("No TTL: the key stays until deleted")
                                    : tr("Expires in %1").arg(formatCountdown(m_expiresAt - now)));
}

} // namespace tollgate::ui
