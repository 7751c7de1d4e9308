#include "app/demo/DemoHistory.h"

#include <QtMath>
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

} // namespace

void seedDemoHistory(Client* client, const KeySchema& schema, const std::vector<Policy>& policies,
                     std::function<void()> done)
{
    client->execute(
        {QByteArrayLiteral("TIME")}, nullptr, [client, schema, policies, done](Result<Reply> time) {
            if (!time || time->elements.empty()) {
                if (done)
                    done();
                return;
            }
            const qint64 second = time->elements[0].toInteger().value_or(0);
            std::vector<Command> writes;
            uint salt = 1;
            for (const Policy& policy : policies) {
                const QByteArray key = schema.statsKey(policy.action);
                const double base = 1000 + 2000 * noise(salt, 7); // per minute, as the live demo
                const qint64 cost = std::max<qint64>(1, policy.cost);
                // The minutes of the last day, then the seconds of the last 5 minutes.
                for (const auto& [ring, slots, span, now] :
                     {std::tuple{'m', kMinutes, 1.0, second / 60},
                      std::tuple{'s', kSeconds, 60.0, second}})
                    for (qint64 at = now - slots + 1; at < now; ++at) {
                        const qint64 minute = ring == 'm' ? at : at / 60;
                        const qint64 ago = second / 60 - minute;
                        // A daily swell, the night a fifth of the afternoon.
                        const double day =
                            0.6 - 0.4 * qCos(2 * M_PI * double(minute % kMinutes) / kMinutes);
                        const double rate = base * day * (0.85 + 0.3 * noise(at, salt)) / span;
                        const qint64 hits = qint64(rate + 0.5);
                        const bool burst = ago >= 55 && ago < 70; // an hour ago
                        const qint64 denied =
                            qint64(double(hits) * (burst ? 0.35 : 0.02 * noise(at, salt + 99)));
                        const qint64 warned = qint64(double(hits) * 0.05 * noise(at, salt + 7));
                        // A shadow policy denied nobody: what it would have denied (stats.lua).
                        const qint64 real = policy.shadow ? 0 : denied;
                        QByteArray value =
                            QByteArray::number(at) + ' ' + QByteArray::number(hits) + ' ' +
                            QByteArray::number(hits * cost) + ' ' + QByteArray::number(warned) +
                            ' ' + QByteArray::number(real) + ' ' + QByteArray::number(real / 10);
                        if (policy.shadow)
                            value += ' ' + QByteArray::number(denied) + ' ' +
                                     QByteArray::number(denied / 10);
                        writes.push_back({QByteArrayLiteral("HSETNX"), key,
                                          QByteArray(ring + QByteArray::number(at % slots)),
                                          value});
                    }
                writes.push_back(
                    {QByteArrayLiteral("PEXPIRE"), key, QByteArrayLiteral("90000000")});
                ++salt;
            }
            client->executeBatch(std::move(writes), nullptr,
                                 [done](const std::vector<Result<Reply>>&) {
                                     if (done)
                                         done();
                                 });
        });
}

} // namespace tollgate
