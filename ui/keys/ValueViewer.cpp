#include "ui/keys/ValueViewer.h"

#include "core/limits/KeyTypes.h"
#include "ui/common/DisplayText.h"
#include "ui/common/Palette.h"
#include "ui/common/Session.h"
#include "ui/common/Widgets.h"
#include "ui/keys/KeysModel.h"
#include "ui/user/Guarded.h"

#include <QDeadlineTimer>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace tollgate::ui {

namespace {

// Epoch milliseconds (ban and policy times) or microseconds (sliding-log scores) between
// 2001 and 2286: worth showing as a time next to the number.
QString asTime(const QByteArray& value)
{
    bool ok = false;
    const double number = value.toDouble(&ok);
    if (ok && number >= 1e12 && number < 1e13)
        return formatTime(qint64(number));
    if (ok && number >= 1e15 && number < 1e16)
        return formatTime(qint64(number / 1000));
    return QString();
}

QString text(const QByteArray& bytes)
{
    return KeysModel::displayBytes(bytes);
}

// The size command and the (bounded) value command of a type.
QPair<Command, Command> commandsFor(const QByteArray& type, const QByteArray& key)
{
    const QByteArray last = QByteArray::number(ValueViewer::kMaxItems - 1);
    const QByteArray count = QByteArray::number(ValueViewer::kMaxItems);
    if (type == "string")
        return {{"STRLEN", key}, {"GETRANGE", key, "0", "65535"}};
    if (type == "hash")
        return {{"HLEN", key}, {"HSCAN", key, "0", "COUNT", count}};
    if (type == "zset")
        return {{"ZCARD", key}, {"ZRANGE", key, "0", last, "WITHSCORES"}};
    if (type == "stream")
        return {{"XLEN", key}, {"XREVRANGE", key, "+", "-", "COUNT", count}};
    if (type == "list")
        return {{"LLEN", key}, {"LRANGE", key, "0", last}};
    if (type == "set")
        return {{"SCARD", key}, {"SSCAN", key, "0", "COUNT", count}};
    return {};
}

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
    QFont bold = name->font();
    bold.setBold(true);
    name->setFont(bold);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("summaryLabel"));
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
    connect(reloadButton, &QPushButton::clicked, this, &ValueViewer::reload);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(name);
    layout->addWidget(m_summary);
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

void ValueViewer::reload()
{
    const int generation = ++m_generation;
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
    m_expiresAt = pttl >= 0 ? QDeadlineTimer::current().deadline() + pttl : 0;
    m_ttl->setProperty("pttl", pttl);
    tick();
    if (type == "none")
        return showError(tr("The key does not exist (any more)."));

    const QByteArray expected = wrongTypeExpected(m_session->schema(), m_key, type);
    m_flag->setVisible(!expected.isEmpty());
    m_flag->setText(expected.isEmpty()
                        ? QString()
                        : tr("Wrong type: this is a %1, but a key in this place of Tollgate's "
                             "schema must be a %2. Every script touching it fails with "
                             "WRONGTYPE until it is deleted.")
                              .arg(QString::fromLatin1(type), QString::fromLatin1(expected)));

    const auto [sizeCommand, valueCommand] = commandsFor(type, m_key);
    if (sizeCommand.isEmpty())
        return showError(tr("No viewer for the type \"%1\".").arg(QString::fromLatin1(type)));
    const int generation = m_generation;
    auto size = std::make_shared<Reply>();
    m_session->client()->execute(sizeCommand, m_session,
                                 guarded<Reply>(this, [size](Result<Reply> reply) {
                                     if (reply)
                                         *size = *reply;
                                 }));
    m_session->client()->execute(
        valueCommand, m_session,
        guarded<Reply>(this, [this, generation, size](Result<Reply> reply) {
            if (generation != m_generation)
                return;
            if (!reply)
                return showError(reply.error().toString());
            showValue(*size, *reply);
        }));
}

void ValueViewer::showValue(const Reply& size, const Reply& value)
{
    const qint64 total = size.toInteger().value_or(0);
    QList<QStringList> rows;
    QStringList headers;
    // HSCAN / SSCAN answer [cursor, items]; the others answer the items.
    const Reply& items = (m_type == "hash" || m_type == "set") && value.elements.size() == 2
                             ? value.elements[1]
                             : value;
    if (m_type == "string") {
        headers = {tr("Value"), tr("As time")};
        rows << QStringList{text(value.toBytes()), asTime(value.toBytes())};
    } else if (m_type == "hash" || m_type == "zset") {
        headers = m_type == "hash" ? QStringList{tr("Field"), tr("Value"), tr("As time")}
                                   : QStringList{tr("Member"), tr("Score"), tr("As time")};
        for (const auto& [first, second] : items.toPairs())
            rows << QStringList{text(first), text(second), asTime(second)};
    } else if (m_type == "stream") {
        headers = {tr("Entry id"), tr("Time"), tr("Fields")};
        for (const Reply& entry : items.elements) {
            if (entry.elements.size() < 2)
                continue;
            const QByteArray id = entry.elements[0].toBytes();
            QStringList fields;
            for (const auto& [field, fieldValue] : entry.elements[1].toPairs())
                fields << text(field) + QLatin1Char('=') + text(fieldValue);
            rows << QStringList{QString::fromLatin1(id), asTime(id.left(id.indexOf('-'))),
                                fields.join(QStringLiteral("; "))};
        }
    } else {
        headers = {tr("Item")};
        for (const Reply& item : items.elements)
            rows << QStringList{text(item.toBytes())};
    }
    showRows(headers, rows);
    const QString type = QString::fromLatin1(m_type);
    if (m_type == "string")
        m_summary->setText(tr("%1, %2 bytes").arg(type).arg(total));
    else if (rows.size() < total)
        m_summary->setText(tr("%1 with %2 entries; the first %3 are shown%4")
                               .arg(type)
                               .arg(total)
                               .arg(rows.size())
                               .arg(m_type == "stream" ? tr(", newest first") : QString()));
    else
        m_summary->setText(
            tr("%1 with %2").arg(type, countText(total, tr("entry"), tr("entries"))));
    Q_EMIT loaded();
}

void ValueViewer::showRows(const QStringList& headers, const QList<QStringList>& rows)
{
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
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setStretchLastSection(true);
}

void ValueViewer::showError(const QString& message)
{
    showRows({}, {});
    m_summary->setText(message);
    Q_EMIT loaded();
}

void ValueViewer::tick()
{
    if (m_type.isEmpty() || m_type == "none") {
        m_ttl->clear();
        return;
    }
    m_ttl->setText(m_expiresAt == 0 ? tr("No TTL: the key stays until deleted")
                                    : tr("Expires in %1")
                                          .arg(formatCountdown(
                                              m_expiresAt - QDeadlineTimer::current().deadline())));
}

} // namespace tollgate::ui
