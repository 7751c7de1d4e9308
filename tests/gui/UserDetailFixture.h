#pragma once

// What the user detail tests share: a redis-server, a Session acting as "operator-jane", the
// "login" policy (5 per minute, 20 per hour), and helpers to open the dialog and to hit.
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Limiter.h"
#include "tollgate/PolicyStore.h"
#include "ui/common/Session.h"
#include "ui/user/UserDetailDialog.h"

#include <QSignalSpy>
#include <QtTest>
#include <memory>

namespace tollgate::test {

class UserDetailFixture : public QObject
{
protected:
    // Call from initTestCase; a failure is reported through QtTest.
    void startFixture()
    {
        TOLLGATE_REQUIRE(m_redis, start());
        ui::Session::Settings settings;
        settings.connection = *ConnectionOptions::fromUrl(m_redis.url());
        settings.actor = QStringLiteral("operator-jane");
        m_session = std::make_unique<ui::Session>(settings);
        m_session->open();
        QTRY_VERIFY(m_session->state() == ConnectionState::Connected);

        m_login.action = "login";
        m_login.windows = {{5, 60'000}, {20, 3'600'000}};
        bool saved = false;
        m_session->policies().save(m_login, QStringLiteral("tester"), this, [&](Result<qint64> r) {
            QVERIFY(r.ok());
            saved = true;
        });
        QTRY_VERIFY(saved);
    }

    std::unique_ptr<ui::UserDetailDialog> openDialog(const QByteArray& user)
    {
        auto dialog = std::make_unique<ui::UserDetailDialog>(m_session.get(), user);
        QSignalSpy refreshed(dialog.get(), &ui::UserDetailDialog::refreshed);
        dialog->resize(1280, 800);
        dialog->show();
        if (!refreshed.wait(5000) && refreshed.isEmpty())
            qWarning("the dialog did not finish loading");
        return dialog;
    }

    // One hit on `action` with the login policy's windows.
    HitResult hit(const QByteArray& user, const QByteArray& action)
    {
        Policy policy = m_login;
        policy.action = action;
        std::optional<Result<HitResult>> result;
        m_session->limiter().hit(policy, user, 0, this, [&](Result<HitResult> r) { result = r; });
        if (!QTest::qWaitFor([&] { return result.has_value(); }, 5000) || !*result)
            return {};
        return result->value();
    }

    bool exists(const QByteArray& key) { return m_redis.command({"EXISTS", key}) == ":1\r\n"; }

    template <typename T> T* waitForChild(QWidget* parent, const QString& name)
    {
        T* child = nullptr;
        if (!QTest::qWaitFor([&] { return (child = parent->findChild<T*>(name)) != nullptr; },
                             3000))
            return nullptr;
        return child;
    }

    RedisServer m_redis;
    std::unique_ptr<ui::Session> m_session;
    Policy m_login;
};

} // namespace tollgate::test
