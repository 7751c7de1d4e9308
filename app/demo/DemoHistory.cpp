#include "app/demo/DemoHistory.h"

#include <QElapsedTimer>
#include <QtMath>
#include <algorithm>
#include <memory>
#include <tuple>

namespace tollgate {

namespace {

constexpr qint64 kMinutes = 1440; // stats.lua's minute ring
constexpr qint64 kSeconds = 300;  // and its second ring

// A fixed pseudo-random number in [0, 1) for (minute, salt): the same picture on every run.
double noise(qint64 minute, uint salt)
{
    return double(qHash(minute, salt) % 1000) / 1000.0;
}

// A daily swell, the night a fifth of the afternoon.
double swell(qint64 minute)
{
    return 0.6 - 0.4 * qCos(2 * M_PI * double(minute % kMinutes) / kMinutes);
}

// stats.lua's packed field: "<at> <hits> <cost> <warn> <denied> <banned>[ <would deny> <would
// ban>]".
QByteArray packed(qint64 at, qint64 hits, qint64 cost, qint64 warned, qint64 denied, bool shadow)
{
    // A shadow policy denied nobody: what it would have denied goes last.
    const qint64 real = shadow ? 0 : denied;
    QByteArray value = QByteArray::number(at) + ' ' + QByteArray::number(hits) + ' ' +
                       QByteArray::number(hits * cost) + ' ' + QByteArray::number(warned) + ' ' +
                       QByteArray::number(real) + ' ' + QByteArray::number(real / 10);
    if (shadow)
        value += ' ' + QByteArray::number(denied) + ' ' + QByteArray::number(denied / 10);
    return value;
}

} // namespace

void seedDemoHistory(Client* client, const KeySchema& schema, const std::vector<Policy>& policies,
                     const std::map<QByteArray, DemoRate>& rates,
                     std::function<void(int untilNextSecondMs)> done)
{
    client->execute(
        {QByteArrayLiteral("TIME")}, nullptr,
        [client, schema, policies, rates, done](Result<Reply> time) {
            if (!time || time->elements.empty()) {
                if (done)
                    done(0);
                return;
            }
            const qint64 second = time->elements[0].toInteger().value_or(0);
            const qint64 micros =
                time->elements.size() > 1 ? time->elements[1].toInteger().value_or(0) : 0;
            // The second under way is written whole and the minute up to its end: the live
            // traffic begins with the next second and adds the rest of the minute.
            const double minuteDone = double(second % 60 + 1) / 60;
            const int untilNextSecondMs = int((1'000'000 - micros) / 1000);
            QElapsedTimer sinceTime;
            sinceTime.start();
            std::vector<Command> writes;
            uint salt = 1;
            for (const Policy& policy : policies) {
                const QByteArray key = schema.statsKey(policy.action);
                const auto known = rates.find(policy.action);
                const DemoRate rate = known != rates.end() ? known->second : DemoRate{1, 0};
                const qint64 cost = std::max<qint64>(1, policy.cost);
                // The minutes of the last day, then the seconds of the last 5 minutes (the one
                // under way whole).
                for (const auto& [ring, slots, span, now, partial] :
                     {std::tuple{'m', kMinutes, 60.0, second / 60, minuteDone},
                      std::tuple{'s', kSeconds, 1.0, second, 1.0}})
                    for (qint64 at = now - slots + 1; at <= now; ++at) {
                        const qint64 minute = ring == 'm' ? at : at / 60;
                        const qint64 ago = second / 60 - minute;
                        // Today's level now, the swell's shape before.
                        const double level = swell(minute) / swell(second / 60) *
                                             (0.9 + 0.2 * noise(at, salt)) *
                                             (at == now ? partial : 1.0) * span;
                        const qint64 hits = qRound64(rate.hits * level);
                        const bool burst = ago >= 55 && ago < 70; // an hour ago
                        const qint64 denied = std::min(
                            hits,
                            qRound64(burst ? std::max(rate.denied * level, 0.35 * double(hits))
                                           : rate.denied * level));
                        const qint64 warned =
                            qint64(double(hits - denied) * 0.05 * noise(at, salt + 7));
                        if (hits == 0)
                            continue;
                        writes.push_back({QByteArrayLiteral("HSETNX"), key,
                                          QByteArray(ring + QByteArray::number(at % slots)),
                                          packed(at, hits, cost, warned, denied, policy.shadow)});
                    }
                writes.push_back(
                    {QByteArrayLiteral("PEXPIRE"), key, QByteArrayLiteral("90000000")});
                ++salt;
            }
            client->executeBatch(std::move(writes), nullptr,
                                 [done, untilNextSecondMs,
                                  sinceTime](const std::vector<Result<Reply>>&) {
                                     if (done)
                                         done(untilNextSecondMs - int(sinceTime.elapsed()));
                                 });
        });
}

} // namespace tollgate
