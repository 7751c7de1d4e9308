#include "core/keys/KeyLayout.h"

#include "core/cluster/KeySlot.h"
#include "tollgate/Client.h"

namespace tollgate {

void KeyLayout::of(Client* client, const KeySchema& schema,
                   std::function<void(const KeyLayout&)> call)
{
    if (client->isModeKnown()) {
        call(KeyLayout(schema, client->keysInOneSlot()));
        return;
    }
    client->whenModeKnown(nullptr, [client, schema, call = std::move(call)] {
        call(KeyLayout(schema, client->keysInOneSlot()));
    });
}

QByteArray KeyLayout::auditMirror(const QByteArray& ownStream) const
{
    return m_cluster ? ownStream : m_schema.auditKey();
}

QByteArray KeyLayout::policyKey(const QByteArray& action) const
{
    return m_schema.policyKey(action, m_cluster);
}

QByteArray KeyLayout::policyHistoryKey(const QByteArray& action) const
{
    return m_schema.policyHistoryKey(action, m_cluster);
}

QByteArray KeyLayout::policyIndexKey() const
{
    return m_schema.policyIndexKey(m_cluster);
}

QByteArray KeyLayout::policyAuditKey() const
{
    return m_schema.policyAuditKey(m_cluster);
}

QByteArray KeyLayout::policyPattern() const
{
    return m_schema.policyPattern(m_cluster);
}

Result<QByteArray> KeyLayout::auditStreamBeside(const QByteArray& key) const
{
    if (!m_cluster)
        return m_schema.auditKey();
    QByteArray user = m_schema.parse(key).user;
    if (user.isEmpty() && key.startsWith(m_schema.allUsersPattern().chopped(1)))
        user = KeySchema::unescape(hashTagOf(key)).value_or(QByteArray()); // tg:{u}:anything
    const QByteArray stream = user.isEmpty() ? policyAuditKey() : m_schema.userAuditKey(user);
    if (keySlot(stream) == keySlot(key))
        return stream;
    return Error{ErrorKind::InvalidInput,
                 QStringLiteral("on a Redis Cluster %1 has no audit stream in its hash slot, so "
                                "its deletion could not be audited in the same step; nothing "
                                "was deleted")
                     .arg(QString::fromUtf8(key))};
}

} // namespace tollgate
