#pragma once

// What the Subjects page tests share: a redis-server, a Session acting as the test's actor, the
// policies it saved (for hits), and the page shown with its model under
// QAbstractItemModelTester from the first signal on.
#include "tests/gui/GuiSession.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/Session.h"
#include "ui/subjects/SubjectsModel.h"
#include "ui/subjects/SubjectsPage.h"

#include <QAbstractItemModelTester>
#include <QtTest>
#include <map>
#include <memory>

namespace tollgate::test {

class SubjectsPageFixture : public QObject
{
protected:
    // initTestCase's first step; a failure is reported through QtTest.
    void startServer(const QString& actor)
    {
        TOLLGATE_REQUIRE(m_redis, start());
        m_session = connectedSession(m_redis.url(), actor);
        QTRY_VERIFY(m_session->state() == ConnectionState::Connected);
    }

    // Saves `policy` and keeps it, with its new revision, for hit().
    void savePolicy(Policy policy)
    {
        std::optional<Result<qint64>> saved;
        m_session->policies().save(policy, m_session->actor(), this,
                                   [&](Result<qint64> r) { saved = r; });
        QTRY_VERIFY(saved.has_value());
        QVERIFY2(saved->ok(), qPrintable(saved->ok() ? QString() : saved->error().toString()));
        policy.revision = saved->value();
        m_policies[policy.action] = policy;
    }

    void hit(const QByteArray& user, const QByteArray& action, int times)
    {
        QVERIFY(hitTimes(m_session.get(), m_policies.at(action), user, times));
    }

    void showPage(int width, int height)
    {
        m_page = std::make_unique<ui::SubjectsPage>(m_session.get());
        m_tester = std::make_unique<QAbstractItemModelTester>(
            m_page->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_page->resize(width, height);
        m_page->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
    }

    // cleanupTestCase: the page before the session it reads through.
    void stopFixture()
    {
        m_tester.reset();
        m_page.reset();
        m_session.reset();
    }

    int viewRow(const QByteArray& user, const QByteArray& action) const
    {
        return m_page->model()->viewRowOf(user, action);
    }
    QVariant cell(const QByteArray& user, const QByteArray& action, int column,
                  int role = Qt::DisplayRole) const
    {
        const int row = viewRow(user, action);
        return row < 0 ? QVariant() : m_page->model()->index(row, column).data(role);
    }

    RedisServer m_redis;
    std::unique_ptr<ui::Session> m_session;
    std::unique_ptr<ui::SubjectsPage> m_page;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
    std::map<QByteArray, Policy> m_policies;
};

} // namespace tollgate::test
