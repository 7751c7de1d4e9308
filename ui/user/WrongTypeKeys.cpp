#include "ui/user/WrongTypeKeys.h"

#include "core/keys/KeyTypes.h"
#include "ui/common/DisplayText.h"

#include <QPointer>

namespace tollgate::ui {

QString WrongTypeKey::text() const
{
    return displayId(key) + QStringLiteral(": ") + wrongTypeText(type, expected);
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
                    wrong.push_back({keys[i], type, expected});
            }
            done(std::move(wrong));
        });
}

} // namespace tollgate::ui
