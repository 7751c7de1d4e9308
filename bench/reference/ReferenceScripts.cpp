#include "bench/reference/ReferenceScripts.h"

#include <QFile>
#include <cstdio>

namespace tollgate::bench {

QByteArray loadReferenceScript(Client& admin, Algorithm algorithm)
{
    QFile file(
        QStringLiteral(":/reference/%1.lua").arg(QString::fromLatin1(algorithmName(algorithm))));
    if (!file.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "reference script %s: %s\n", qPrintable(file.fileName()),
                     qPrintable(file.errorString()));
        return {};
    }
    auto sha = admin.executeSync({"SCRIPT", "LOAD", file.readAll()});
    if (!sha) {
        std::fprintf(stderr, "SCRIPT LOAD %s: %s\n", qPrintable(file.fileName()),
                     qPrintable(sha.error().toString()));
        return {};
    }
    return sha->toBytes();
}

QByteArray referenceKey(const QByteArray& user, Algorithm algorithm)
{
    return "ref:{" + user + "}:" + algorithmCode(algorithm);
}

Command referenceCall(const QByteArray& sha, const QByteArray& key, const Policy& policy)
{
    const WindowLimit& window = policy.windows.front();
    return {"EVALSHA",
            sha,
            "1",
            key,
            QByteArray::number(window.limit),
            QByteArray::number(window.windowMs)};
}

HitLoadFigures runReferenceLoad(const ConnectionOptions& options, const HitLoadOptions& load,
                                const QByteArray& sha, const Policy& policy)
{
    return runLoad(options, load, [&](Client* client) -> LoadRequest {
        return
            [client, sha, policy](const QByteArray& user, std::function<void(Result<bool>)> done) {
                client->execute(referenceCall(sha, referenceKey(user, policy.algorithm), policy),
                                nullptr, [done = std::move(done)](Result<Reply> reply) {
                                    if (!reply)
                                        done(reply.error());
                                    else
                                        done(reply->toInteger().value_or(0) == 0);
                                });
            };
    });
}

} // namespace tollgate::bench
