#include "ui/user/UserWrongTypes.h"

#include "ui/common/DisplayText.h"
#include "ui/user/WriteGuard.h"
#include "ui/user/WrongTypeRepair.h"

#include <QPushButton>
#include <algorithm>

namespace tollgate::ui {

UserWrongTypes::UserWrongTypes(Session* session, const QByteArray& user, QWidget* dialog)
    : QObject(dialog), m_session(session), m_user(user), m_dialog(dialog)
{
    m_repair = new QPushButton(tr("Re&pair…"), dialog);
    m_repair->setObjectName(QStringLiteral("repairKeysButton"));
    markWrite(m_repair, Session::Write::DeleteKey,
              tr("Delete the keys of the wrong type that make this user's verdicts fail"));
    m_repair->hide(); // only while such a key is there
    connect(m_repair, &QPushButton::clicked, this, &UserWrongTypes::repair);
}

void UserWrongTypes::check(const UserActions& loaded)
{
    const bool failing = std::any_of(loaded.rows.begin(), loaded.rows.end(),
                                     [](const auto& entry) { return entry.second.wrongType; });
    if (!failing) {
        if (!m_keys.empty())
            show({}); // repaired (by us or someone else)
        return;
    }
    findWrongTypeKeys(m_session, keysReadByVerdicts(m_session->schema(), m_user, loaded.policies),
                      this, [this](std::vector<WrongTypeKey> keys) { show(std::move(keys)); });
}

void UserWrongTypes::nameKeys(UserActions& loaded) const
{
    if (m_keys.empty())
        return;
    const WrongTypeKey& first = m_keys.front();
    for (auto& [action, row] : loaded.rows)
        if (row.wrongType)
            row.error = tr("error: %1 is a %2, Tollgate expects a %3")
                            .arg(displayId(first.key), QString::fromLatin1(first.type),
                                 QString::fromLatin1(first.expected));
}

void UserWrongTypes::show(std::vector<WrongTypeKey> keys)
{
    m_keys = std::move(keys);
    m_repair->setVisible(!m_keys.empty());
    if (m_keys.empty()) {
        Q_EMIT changed({});
        return;
    }
    QStringList lines{tr("This user's verdicts fail: a key they read holds another type.")};
    for (const WrongTypeKey& key : m_keys)
        lines << key.text();
    lines << tr("Repair… deletes it, with a reason, in the audit trail.");
    Q_EMIT changed(lines.join(QLatin1Char('\n')));
}

void UserWrongTypes::repair()
{
    deleteWrongTypeKeys(m_dialog, m_session, m_keys, [this](Result<QList<QByteArray>> deleted) {
        if (!deleted) {
            Q_EMIT failed(tr("Repair failed"), deleted.error());
            return;
        }
        Q_EMIT repaired(tr("Deleted %1.")
                            .arg(countText(deleted->size(), tr("key of the wrong type"),
                                           tr("keys of the wrong type"))));
    });
}

} // namespace tollgate::ui
