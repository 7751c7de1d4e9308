#include "core/metrics/ScrapeCollector.h"

#include "tollgate/PolicyStore.h"

#include <QDateTime>
#include <QElapsedTimer>

namespace tollgate {

struct ScrapeCollector::Run
{
    MetricsSnapshot snapshot;
    std::vector<ScrapeProblem> problems;
    QElapsedTimer clock;
    Done done;

    void finish()
    {
        snapshot.scrapeSeconds = clock.nsecsElapsed() / 1e9;
        snapshot.nowMs = QDateTime::currentMSecsSinceEpoch();
        done(std::move(snapshot), std::move(problems));
    }
    void problem(const Error& error)
    {
        problems.push_back({errorKindName(error.kind), error.message});
    }
};

ScrapeCollector::ScrapeCollector(Client* client, KeySchema schema, QObject* parent)
    : QObject(parent), m_client(client), m_schema(std::move(schema))
{
}

const QList<QByteArray>& ScrapeCollector::totalFields()
{
    static const QList<QByteArray> fields{"total:h",  "total:c",  "total:w",
                                          "total:d",  "total:b",  "total:ab",
                                          "total:mb", "total:wd", "total:wb"};
    return fields;
}

void ScrapeCollector::collect(Done done)
{
    auto run = std::make_shared<Run>();
    run->clock.start();
    run->done = std::move(done);
    // TIME: a read-only user may run it (PING may be refused), and it proves a working link.
    ++run->snapshot.scrapeCommands;
    m_client->execute({QByteArrayLiteral("TIME")}, this, [this, run](Result<Reply> time) {
        if (!time) {
            run->problem(time.error());
            run->finish();
            return;
        }
        run->snapshot.redisUp = true;
        ++run->snapshot.scrapeCommands;
        PolicyStore(m_client, m_schema).listAll(this, [this, run](Result<PolicyListing> listing) {
            if (!listing) {
                run->problem(listing.error());
                run->finish();
                return;
            }
            run->snapshot.scrapeCommands +=
                static_cast<qint64>(listing->policies.size() + listing->invalid.size());
            for (const InvalidPolicy& invalid : listing->invalid)
                run->problems.push_back({QStringLiteral("invalid_policy"), invalid.reason});
            run->snapshot.policies = std::move(listing->policies);
            readTotals(run);
        });
    });
}

void ScrapeCollector::readTotals(std::shared_ptr<Run> run)
{
    QList<QByteArray> actions;
    for (const Policy& policy : run->snapshot.policies)
        actions << policy.action;
    actions << QByteArrayLiteral("*");
    std::vector<Command> reads;
    for (const QByteArray& action : actions) {
        Command hmget{QByteArrayLiteral("HMGET"), m_schema.statsKey(action)};
        hmget << totalFields();
        reads.push_back(std::move(hmget));
    }
    run->snapshot.scrapeCommands += static_cast<qint64>(reads.size());
    m_client->executeBatch(
        std::move(reads), this, [this, run, actions](std::vector<Result<Reply>> replies) {
            for (size_t i = 0; i < replies.size(); ++i) {
                const QByteArray& action = actions[static_cast<qsizetype>(i)];
                const QByteArray key = m_schema.statsKey(action);
                if (!replies[i]) {
                    const bool corrupt = replies[i].error().kind == ErrorKind::WrongType;
                    run->problems.push_back({corrupt ? QStringLiteral("corrupt_stats")
                                                     : errorKindName(replies[i].error().kind),
                                             QString::fromUtf8(key) + QStringLiteral(": ") +
                                                 replies[i].error().message});
                    continue;
                }
                std::vector<qint64> values;
                bool valid =
                    replies[i]->elements.size() == static_cast<size_t>(totalFields().size());
                for (const Reply& field : replies[i]->elements) {
                    bool ok = true;
                    const qint64 n = field.isNil() ? 0 : field.toBytes().toLongLong(&ok);
                    valid = valid && ok && n >= 0;
                    values.push_back(n);
                }
                // The outcomes are parts of the hits: anything else was not written by stats.lua.
                valid = valid && values[2] + values[3] + values[7] <= values[0] &&
                        values[4] <= values[3] && values[8] <= values[7];
                if (!valid) {
                    run->problems.push_back(
                        {QStringLiteral("corrupt_stats"),
                         QString::fromUtf8(key) +
                             QStringLiteral(": the total:* fields are not counts that add up")});
                    continue;
                }
                if (action == "*" && values[5] == 0 && values[6] == 0)
                    continue; // no user-wide ban ever: no series for it
                ActionTotals t;
                t.action = action;
                t.hits = values[0];
                t.cost = values[1];
                t.warned = values[2];
                t.denied = values[3];
                t.banned = values[4];
                t.autoBans = values[5];
                t.manualBans = values[6];
                t.wouldDeny = values[7];
                t.wouldBan = values[8];
                run->snapshot.totals.push_back(t);
            }
            run->finish();
        });
}

} // namespace tollgate
