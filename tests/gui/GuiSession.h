#pragma once

// What GUI tests share to get going: a console session connected to the test's redis-server,
// and a value viewer opened and loaded.
#include "ui/common/Session.h"
#include "ui/keys/ValueViewer.h"

#include <QSignalSpy>
#include <QtTest>
#include <memory>

namespace tollgate::test {

/// A session on `url` acting as `actor`, connected (a warning when it does not get there).
inline std::unique_ptr<ui::Session> connectedSession(const QString& url, const QString& actor)
{
    ui::Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(url);
    settings.actor = actor;
    auto session = std::make_unique<ui::Session>(settings);
    session->open();
    if (!QTest::qWaitFor([&] { return session->state() == ConnectionState::Connected; }, 5000))
        qWarning("the session did not connect");
    return session;
}

/// `times` hits of `user` under `policy` through the session's limiter; true once all are
/// answered.
inline bool hitTimes(ui::Session* session, const Policy& policy, const QByteArray& user, int times)
{
    int done = 0;
    QObject context;
    for (int i = 0; i < times; ++i)
        session->limiter().hit(policy, user, 0, &context, [&done](Result<HitResult>) { ++done; });
    return QTest::qWaitFor([&] { return done == times; }, 10'000);
}

/// Saves a policy of `limit` per `windowMs` for the action "<algorithm code>-action", hits it
/// `hits` times as "dora", and returns the state key of that window.
inline QByteArray hitNewPolicy(ui::Session* session, Algorithm algorithm, qint64 limit,
                               qint64 windowMs, int hits)
{
    Policy policy;
    policy.action = algorithmCode(algorithm) + "-action";
    policy.algorithm = algorithm;
    policy.windows = {{limit, windowMs}};
    std::optional<bool> saved;
    QObject context;
    session->policies().save(policy, QStringLiteral("tester"), &context,
                             [&saved](Result<qint64> r) { saved = r.ok(); });
    if (!QTest::qWaitFor([&] { return saved.has_value(); }, 5000) || !*saved)
        qWarning("the policy was not saved");
    if (!hitTimes(session, policy, "dora", hits))
        qWarning("the hits were not answered");
    return session->schema().stateKey("dora", policy.action, algorithm, windowMs);
}

/// A value viewer of `key`, shown, after its first load.
inline std::unique_ptr<ui::ValueViewer> openValueViewer(ui::Session* session, const QByteArray& key)
{
    auto viewer = std::make_unique<ui::ValueViewer>(session, key);
    QSignalSpy loaded(viewer.get(), &ui::ValueViewer::loaded);
    viewer->show();
    if (!loaded.wait(5000))
        qWarning("the viewer did not load");
    return viewer;
}

} // namespace tollgate::test
