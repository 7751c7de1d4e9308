// rediss+sentinel:// against a Sentinel deployment that speaks TLS only (servers, replication
// and sentinels, tests/support/RedisSentinelGroup with the test CA): the sentinels are asked over
// TLS, the primary they name is reached over TLS and its certificate checked, and a SENTINEL
// FAILOVER is followed to the new primary, still over TLS.

#include "core/client/ClientInternals.h"
#include "core/redis/Transport.h"
#include "tests/support/CoreFixture.h"
#include "tests/support/RedisSentinelGroup.h"
#include "tests/support/TlsCertificates.h"
#include "tollgate/Limiter.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::RedisSentinelGroup;

class SentinelTlsTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void hitsOverTls();
    void followsAFailoverOverTls();
    void wrongCaIsRefused();

private:
    Result<HitResult> hit(const QByteArray& user);
    QString endpointOf(int server)
    {
        return QStringLiteral("127.0.0.1:%1").arg(m_group.server(server).port());
    }

    test::TlsCertificates m_certs;
    RedisSentinelGroup m_group;
    std::unique_ptr<Client> m_client;
    Policy m_policy = test::makePolicy("like", 1000, 60'000);
};

void SentinelTlsTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_certs, generate());
    TOLLGATE_REQUIRE(m_group, start(&m_certs.files()));
    auto options = ConnectionOptions::fromUrl(m_group.url(QStringLiteral("&timeout=2000")));
    QVERIFY2(options, qPrintable(options ? QString() : options.error().message));
    QVERIFY(options->tls.enabled);
    m_client = std::make_unique<Client>(*options);
    m_client->open();
    QTRY_COMPARE_WITH_TIMEOUT(m_client->state(), ConnectionState::Connected, 10'000);
}

Result<HitResult> SentinelTlsTest::hit(const QByteArray& user)
{
    Limiter limiter(m_client.get(), KeySchema("tg"));
    return test::await<HitResult>([&](QObject* context, Callback<HitResult> done) {
        limiter.hit(m_policy, user, 1, context, done);
    });
}

void SentinelTlsTest::hitsOverTls()
{
    QCOMPARE(ClientInternals::socketKind(*m_client), SocketKind::QtTls);
    QCOMPARE(m_client->node(), endpointOf(m_group.primaryIndex()));
    const auto first = hit("alice");
    QVERIFY2(first, qPrintable(first ? QString() : first.error().toString()));
    QCOMPARE(first->count, 1);
}

void SentinelTlsTest::followsAFailoverOverTls()
{
    const int old = m_group.primaryIndex();
    QVERIFY(m_group.failover());
    QVERIFY2(m_group.waitForPrimaryOtherThan(old), qPrintable(m_group.errorString()));
    const QString now = endpointOf(m_group.primaryIndex());
    QTRY_VERIFY_WITH_TIMEOUT(m_client->node() == now && hit("bob"), 20'000);
    QCOMPARE(ClientInternals::socketKind(*m_client), SocketKind::QtTls);
}

void SentinelTlsTest::wrongCaIsRefused()
{
    // The sentinels' certificate is checked: another CA, and nothing is asked of them.
    const QString url = m_group.url().replace(m_certs.files().caCert, m_certs.files().otherCaCert);
    auto options = ConnectionOptions::fromUrl(url + QStringLiteral("&connect_timeout=2000"));
    QVERIFY(options);
    options->autoReconnect = false;
    Client client(*options);
    client.open();
    Limiter limiter(&client, KeySchema("tg"));
    const auto refused = test::await<HitResult>([&](QObject* context, Callback<HitResult> done) {
        limiter.hit(m_policy, "carol", 1, context, done);
    });
    QVERIFY(!refused);
    QVERIFY2(refused.error().message.contains(QStringLiteral("no sentinel named a primary")),
             qPrintable(refused.error().message));
    QVERIFY2(refused.error().message.contains(QStringLiteral("TLS")) ||
                 refused.error().message.contains(QStringLiteral("certificate")),
             qPrintable(refused.error().message));
}

QTEST_GUILESS_MAIN(SentinelTlsTest)
#include "tst_SentinelTls.moc"
