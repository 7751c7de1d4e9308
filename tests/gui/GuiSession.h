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
