#include "ui/user/RefusedRate.h"

#include "ui/dashboard/StatsHistory.h"
#include "ui/user/Guarded.h"

#include <algorithm>
#include <memory>

namespace tollgate::ui {

void readRefusedRate(Session* session, const QByteArray& action, QObject* owner,
                     std::function<void(std::optional<double>)> done)
{
    Client* client = session->client();
    const QByteArray key = session->schema().statsKey(action);
    auto time = [session, client, key, owner, done](Result<Reply> time) {
        if (!time || time->elements.empty())
            return done(std::nullopt);
        const qint64 now = time->elements[0].toInteger().value_or(0);
        // The chart's read of the last five minutes: one definition of the history's fields.
        auto read = std::make_shared<const StatsHistoryRead>(ChartRange::FiveMinutes, now);
        Command command{QByteArrayLiteral("HMGET"), key};
        command << read->fields;
        client->execute(command, session, guarded<Reply>(owner, [read, done](Result<Reply> reply) {
                            if (!reply)
                                return done(std::nullopt);
                            ActionStats stats;
                            read->apply(*reply, stats);
                            double refused = 0;
                            const qsizetype from =
                                std::max<qsizetype>(0, stats.banned.size() - kRefusedRateSeconds);
                            for (qsizetype i = from; i < stats.banned.size(); ++i)
                                refused += stats.banned[i];
                            done(refused / kRefusedRateSeconds);
                        }));
    };
    client->execute({QByteArrayLiteral("TIME")}, session, guarded<Reply>(owner, time));
}

} // namespace tollgate::ui
