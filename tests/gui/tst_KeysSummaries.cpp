// The Keys table reads Tollgate's own keys as their value viewer does, in a few words: a token
// bucket's tokens and next token rather than its microsecond TAT, a fixed-window counter
// against its limit, a sliding log's and a sliding-window hash's count in the window now, a
// ban's end, author and reason, a statistics ring's totals; the value as read stays in the
// tooltip. Each key is written by the real
// scripts; foreign keys keep their plain preview.

#include "core/scripts/ScriptRunner.h"
#include "tests/gui/GuiSession.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/Session.h"
#include "ui/keys/KeysModel.h"
#include "ui/keys/KeysPage.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;

class KeysSummariesTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void tableSumsUpEachKindOfKey_data();
    void tableSumsUpEachKindOfKey();

private:
    /// The Value cell of `key` once the page has read it.
    QModelIndex valueCell(const QByteArray& key);

    test::RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<KeysPage> m_page;
    QMap<QByteArray, QByteArray> m_keys; // by kind
};

void KeysSummariesTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    m_session = test::connectedSession(m_redis.url(), QStringLiteral("tester"));
    // 5 per minute: a token every 12 s; three taken, two left, the next back within 12 s.
    Session* session = m_session.get();
    m_keys["token bucket"] = test::hitNewPolicy(session, Algorithm::TokenBucket, 5, 60'000, 3);
    m_keys["fixed window"] = test::hitNewPolicy(session, Algorithm::FixedWindow, 5, 60'000, 3);
    m_keys["sliding log"] = test::hitNewPolicy(session, Algorithm::SlidingLog, 5, 60'000, 3);
    // A week's window: four hits land in one aligned window.
    m_keys["sliding window"] =
        test::hitNewPolicy(session, Algorithm::SlidingWindow, 10, 604'800'000, 4);
    m_keys["statistics ring"] = m_session->schema().statsKey("upload");
    std::optional<bool> counted;
    runScript(m_session->client(), QStringLiteral("stats"), {m_keys["statistics ring"]},
              {"counts", "7", "9", "1", "2", "1", "0", "0", "2", "1"}, this,
              [&](Result<Reply> r) { counted = r.ok(); });
    QTRY_VERIFY(counted.has_value() && *counted);
    // A log whose older hits left the window: only the newest two count now.
    m_keys["sliding log, partly out"] =
        m_session->schema().stateKey("old-hits", "api", Algorithm::SlidingLog, 60'000);
    const qint64 nowUs = QDateTime::currentMSecsSinceEpoch() * 1000;
    m_redis.command({"ZADD", m_keys["sliding log, partly out"], // running totals, 16 digits
                     QByteArray::number(nowUs - 90'000'000), "0000000000000004",
                     QByteArray::number(nowUs - 70'000'000), "0000000000000007",
                     QByteArray::number(nowUs - 2'000'000), "0000000000000008",
                     QByteArray::number(nowUs - 1'000'000), "0000000000000009"});
    m_redis.command({"PEXPIRE", m_keys["sliding log, partly out"], "60000"});
    m_keys["ban"] = m_session->schema().actionBanKey("spammer", "comment");
    m_redis.command({"HSET", m_keys["ban"], "until_ms", "0", "actor", "support-lena", "reason",
                     "links in every comment", "source", "manual", "created_ms", "1"});
    m_keys["foreign string"] = "tg:notes:greeting"; // under the prefix, not a schema key
    m_redis.command({"SET", m_keys["foreign string"], "hello"});

    m_page = std::make_unique<KeysPage>(m_session.get());
    m_page->resize(1024, 700);
    QSignalSpy finished(m_page.get(), &KeysPage::scanFinished);
    m_page->show();
    QVERIFY(finished.wait(10000));
}

void KeysSummariesTest::cleanupTestCase()
{
    m_page.reset();
    m_session.reset();
}

QModelIndex KeysSummariesTest::valueCell(const QByteArray& key)
{
    KeysModel* model = m_page->model();
    const int row = model->rowOf(key);
    if (row < 0 || !QTest::qWaitFor([&] { return model->row(row).pttl != -3; }, 5000))
        return {};
    return model->index(row, KeysModel::ValueColumn);
}

void KeysSummariesTest::tableSumsUpEachKindOfKey_data()
{
    QTest::addColumn<QByteArray>("kind");
    QTest::addColumn<QString>("summary"); // a pattern for the cell
    QTest::addColumn<QString>("raw");     // a pattern for its tooltip
    QTest::newRow("token bucket") << QByteArray("token bucket")
                                  << QStringLiteral("^tokens 2 / 5, next in (\\d|1[0-2])\\.\\ds$")
                                  << QStringLiteral("^\\d{16}(\\+\\d+/\\d+)?$");
    QTest::newRow("fixed window") << QByteArray("fixed window")
                                  << QStringLiteral("^3 of 5 counted$") << QStringLiteral("^3$");
    QTest::newRow("sliding log") << QByteArray("sliding log")
                                 << QStringLiteral("^3 of 5 in the window$")
                                 << QStringLiteral("^3 members$");
    // 9 - 7: the total at the window's start is the newest member at or before it.
    QTest::newRow("sliding log, partly out")
        << QByteArray("sliding log, partly out") << QStringLiteral("^2 in the window$")
        << QStringLiteral("^4 members$");
    QTest::newRow("ban") << QByteArray("ban")
                         << QStringLiteral("^banned permanently by support-lena: links in every "
                                           "comment$")
                         << QStringLiteral("(^|, )until_ms 0(,|$)");
    QTest::newRow("sliding window")
        << QByteArray("sliding window") << QStringLiteral("^4 of 10 counted now$")
        << QStringLiteral("(^|, )cur 4(,|$)");
    QTest::newRow("statistics ring")
        << QByteArray("statistics ring") << QStringLiteral("^7 hits, 2 denied in total$")
        << QStringLiteral("^total:h 7, total:d 2$");
    QTest::newRow("foreign string")
        << QByteArray("foreign string") << QStringLiteral("^hello$") << QStringLiteral("^hello$");
}

void KeysSummariesTest::tableSumsUpEachKindOfKey()
{
    QFETCH(QByteArray, kind);
    QFETCH(QString, summary);
    QFETCH(QString, raw);
    const QModelIndex cell = valueCell(m_keys.value(kind));
    QVERIFY2(cell.isValid(), kind.constData());
    const QString text = cell.data(Qt::DisplayRole).toString();
    const QString tip = cell.data(Qt::ToolTipRole).toString();
    QVERIFY2(QRegularExpression(summary).match(text).hasMatch(), qPrintable(text));
    QVERIFY2(QRegularExpression(raw).match(tip).hasMatch(), qPrintable(tip));
}

QTEST_MAIN(KeysSummariesTest)
#include "tst_KeysSummaries.moc"
