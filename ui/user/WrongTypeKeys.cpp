#include "ui/user/WrongTypeKeys.h"

#include "core/keys/KeyTypes.h"
#include "ui/common/DisplayText.h"

#include <QCoreApplication>
#include <QPointer>

namespace tollgate::ui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("WrongTypeKeys", text);
}

// "a ban", "a fixed-window counter": what Tollgate keeps in a key of this kind.
QString whatItHolds(const KeySchema::Parsed& parsed)
{
    using Kind = KeySchema::Parsed::Kind;
    switch (parsed.kind) {
    case Kind::State:
        switch (parsed.algorithm) {
        case Algorithm::FixedWindow:
            return tr("a fixed-window counter");
        case Algorithm::SlidingLog:
            return tr("a sliding log");
        case Algorithm::SlidingWindow:
            return tr("a sliding-window counter");
        case Algorithm::TokenBucket:
            return tr("a token bucket");
        }
        break;
    case Kind::ActionBan:
    case Kind::UserBan:
        return tr("a ban");
    case Kind::Overrides:
        return tr("a user's overrides");
    case Kind::UserAudit:
    case Kind::Audit:
        return tr("an audit trail");
    case Kind::Policy:
        return tr("a policy");
    case Kind::PolicyIndex:
        return tr("the list of policies");
    case Kind::OverrideIndex:
        return tr("the index of overrides");
    case Kind::PolicyHistory:
        return tr("a policy's history");
    case Kind::Stats:
        return tr("hit statistics");
    case Kind::Foreign:
        break;
    }
    return tr("a key of its own");
}

// "every verdict for victim": what fails while the key is there.
QString whatFails(const KeySchema::Parsed& parsed)
{
    using Kind = KeySchema::Parsed::Kind;
    const QString user = displayId(parsed.user);
    const QString action = displayId(parsed.action);
    switch (parsed.kind) {
    case Kind::State:
    case Kind::ActionBan:
        return tr("every verdict for %1 on %2").arg(user, action);
    case Kind::UserBan:
    case Kind::Overrides:
        return tr("every verdict for %1").arg(user);
    case Kind::UserAudit:
        return tr("every audited write for %1").arg(user);
    case Kind::Audit:
        return tr("every audited write");
    case Kind::Policy:
    case Kind::PolicyHistory:
        return tr("every verdict and edit of the policy %1").arg(action);
    case Kind::PolicyIndex:
        return tr("listing the policies");
    case Kind::OverrideIndex:
        return tr("listing the overrides");
    case Kind::Stats:
        return tr("reading the statistics of %1").arg(action);
    case Kind::Foreign:
        break;
    }
    return tr("every script touching it");
}

} // namespace

QString wrongTypeExplanation(const QByteArray& key, const KeySchema::Parsed& parsed,
                             const QByteArray& type, const QByteArray& expected)
{
    return tr("%1 is a %2; Tollgate keeps %3 as a %4: %5 fails until it is deleted.")
        .arg(displayId(key), QString::fromLatin1(type), whatItHolds(parsed),
             QString::fromLatin1(expected), whatFails(parsed));
}

QString WrongTypeKey::text() const
{
    return wrongTypeExplanation(key, parsed, type, expected);
}

QList<QByteArray> keysReadByVerdicts(const KeySchema& schema, const QByteArray& user,
                                     const std::vector<Policy>& policies)
{
    QList<QByteArray> keys{schema.userBanKey(user), schema.overridesKey(user)};
    for (const Policy& policy : policies) {
        keys << schema.actionBanKey(user, policy.action);
        for (const WindowLimit& window : policy.windows)
            keys << schema.stateKey(user, policy.action, policy.algorithm, window.windowMs);
    }
    return keys;
}

void findWrongTypeKeys(Session* session, const QList<QByteArray>& keys, QObject* owner,
                       std::function<void(std::vector<WrongTypeKey>)> done)
{
    std::vector<Command> commands;
    for (const QByteArray& key : keys)
        commands.push_back({QByteArrayLiteral("TYPE"), key});
    session->client()->executeBatch(
        std::move(commands), session,
        [owner = QPointer<QObject>(owner), session, keys, done](std::vector<Result<Reply>> types) {
            if (!owner)
                return;
            std::vector<WrongTypeKey> wrong;
            for (qsizetype i = 0; i < keys.size() && size_t(i) < types.size(); ++i) {
                if (!types[size_t(i)])
                    continue;
                const QByteArray type = types[size_t(i)]->toBytes();
                const QByteArray expected = wrongTypeExpected(session->schema(), keys[i], type);
                if (!expected.isEmpty())
                    wrong.push_back({keys[i], type, expected, session->schema().parse(keys[i])});
            }
            done(std::move(wrong));
        });
}

} // namespace tollgate::ui
