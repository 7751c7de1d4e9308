#include "ui/user/OverrideThenUnban.h"

#include "ui/common/DisplayText.h"
#include "ui/user/Guarded.h"

#include <QCoreApplication>

namespace tollgate::ui {

QString liftedText(qint64 bans)
{
    auto tr = [](const char* text) {
        return QCoreApplication::translate("OverrideThenUnban", text);
    };
    return tr("%1 lifted.").arg(countText(bans, tr("ban"), tr("bans")));
}

void overrideThenUnban(Session* session, const OverrideRequest& request, const QByteArray& banScope,
                       QObject* owner, std::function<void(Result<OverrideAndUnban>)> done)
{
    auto unban = [session, request, banScope, owner, done](Result<Override> stored) {
        if (!stored)
            return done(stored.error());
        session->moderation().unban(
            request.user, banScope, request.actor, request.reason, session,
            guarded<qint64>(owner, [stored = *stored, done](Result<qint64> lifted) {
                if (!lifted) {
                    Error error = lifted.error();
                    error.message = QCoreApplication::translate(
                                        "OverrideThenUnban",
                                        "The override was set, but lifting the ban failed: %1")
                                        .arg(error.message);
                    return done(error);
                }
                done(OverrideAndUnban{stored, *lifted});
            }));
    };
    session->overrides().set(request, session, guarded<Override>(owner, unban));
}

} // namespace tollgate::ui
