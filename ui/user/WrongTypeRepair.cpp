#include "ui/user/WrongTypeRepair.h"

#include "core/keys/KeyDeletion.h"
#include "ui/common/ReasonPrompt.h"
#include "ui/user/Guarded.h"

namespace tollgate::ui {

void deleteWrongTypeKeys(QWidget* parent, Session* session, const std::vector<WrongTypeKey>& keys,
                         std::function<void(Result<QList<QByteArray>> deleted)> done)
{
    QList<QByteArray> names;
    QStringList shown;
    for (const WrongTypeKey& key : keys) {
        names << key.key;
        shown << key.text();
    }
    ReasonPrompt::ask(
        parent, QObject::tr("Repair keys"),
        QObject::tr("Delete these keys? Another tool wrote them where Tollgate keeps its own; "
                    "once they are gone the verdicts work again (a ban of the right type is not "
                    "lost: these hold none).\n\n%1")
            .arg(shown.join(QLatin1Char('\n'))),
        QObject::tr("Delete"), [parent, session, names, done](const QString& reason) {
            KeyDeletion(session->client(), session->schema())
                .remove(names, session->actor(), reason, session,
                        guarded<KeyDeletion::Outcome>(
                            parent, [done](Result<KeyDeletion::Outcome> outcome) {
                                if (!outcome)
                                    return done(outcome.error());
                                if (!outcome->failed.isEmpty())
                                    return done(outcome->failed.first().second);
                                done(outcome->deleted + outcome->missing);
                            }));
        });
}

} // namespace tollgate::ui
