// The Keys page reads a state key as what it holds now (ui/keys/StateDecoding): the count a
// window holds, reckoned in C++ from the stored value and the server's clock. hit.lua's peek
// reckons the same count for its reply ([10], the window as it stands). Both run here on one
// real server against the same keys, for every algorithm and for a sliding window whose
// previous window still weighs in, so the console's reading cannot drift from the scripts'.
// (The states chosen change their count at most once a minute: the two reads, milliseconds
// apart, see the same count.)

#include "tests/support/AlgorithmRows.h"
#include "tests/support/CoreFixture.h"
#include "tests/support/RawHit.h"
#include "ui/keys/ValueDecoding.h"

#include <QtTest>

using namespace tollgate;
using namespace tollgate::test;
using namespace tollgate::ui;

namespace {

constexpr qint64 kDay = 86'400'000;
constexpr qint64 kYear = 365 * kDay; // the longest window: a token comes back every 315 s
constexpr qint64 kLimit = 100'000; // a sliding log's most

} // namespace

class StateDecodingPeekTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init() { TOLLGATE_REQUIRE(m_core, flush()); }

    void decodedCountIsPeeksCount_data() { algorithmRows(); }
    void decodedCountIsPeeksCount();
    void slidingWindowWeighsThePreviousWindowAsPeekDoes();

private:
    // The Keys page's summary of the key `hit` names, read as the page reads it.
    QString decodedSummary(const RawHit& hit);
    // "<count> of <limit>", the count from hit.lua's peek of `hit`.
    QString peekedCount(RawHit hit);

    CoreFixture m_core;
};

void StateDecodingPeekTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
    QVERIFY(loadRawScripts(m_core));
}

QString StateDecodingPeekTest::decodedSummary(const RawHit& hit)
{
    const QByteArray key = hit.stateKey(m_core.schema());
    const QByteArray type = m_core.bytes({"TYPE", key});
    ValueContext context;
    context.place = m_core.schema().parse(key);
    context.limit = hit.windows.front().first;
    context.size = m_core.integer(sizeCommand(type, key));
    const auto value = m_core.inspect(valueCommand(type, key, context.place, 1000));
    const auto time = m_core.inspect({"TIME"});
    if (!value || !time)
        return QStringLiteral("(read failed)");
    context.serverNowUs = serverTimeUs(*time);
    return decodeValue(type, *value, context).summary;
}

QString StateDecodingPeekTest::peekedCount(RawHit hit)
{
    hit.mode = "peek";
    const auto peek = runRawHit(*m_core.client(), m_core.layout(), hit);
    if (!peek)
        return peek.error().toString();
    return QStringLiteral("%1 of %2").arg(peek->countNow).arg(peek->limit);
}

void StateDecodingPeekTest::decodedCountIsPeeksCount()
{
    QFETCH(Algorithm, algorithm);
    RawHit hit;
    hit.algorithm = algorithmName(algorithm);
    hit.windows = {{kLimit, kYear}};
    hit.user = "reader";
    for (const int cost : {1, 4, 2}) {
        hit.cost = QByteArray::number(cost);
        const auto counted = runRawHit(*m_core.client(), m_core.layout(), hit);
        QVERIFY2(counted && counted->allowed, counted ? counted->tier.constData() : "error");
    }
    hit.cost = "1";
    const QString peeked = peekedCount(hit);
    QCOMPARE(peeked, QStringLiteral("7 of %1").arg(kLimit));
    const QString summary = decodedSummary(hit);
    if (algorithm == Algorithm::TokenBucket) // a bucket shows what is left of it
        QCOMPARE(summary.section(QLatin1Char(','), 0, 0),
                 QStringLiteral("tokens %1 / %2").arg(kLimit - 7).arg(kLimit));
    else
        QVERIFY2(summary.startsWith(peeked + QLatin1Char(' ')),
                 qPrintable(summary + QStringLiteral(" / peek: ") + peeked));
}

void StateDecodingPeekTest::slidingWindowWeighsThePreviousWindowAsPeekDoes()
{
    // The day before counted 1,000 units: now they weigh by the part of that day still inside
    // the sliding day (one unit less every 86 s), and two hits of today are added to them.
    RawHit hit;
    hit.algorithm = "sliding_window";
    hit.windows = {{kLimit, kDay}};
    hit.user = "weighed";
    const QByteArray key = hit.stateKey(m_core.schema());
    const qint64 today = m_core.serverNowMs() / kDay * kDay;
    QVERIFY(m_core.inspect({"HSET", key, "start", QByteArray::number(today - kDay), "cur", "1000",
                            "prev", "0"}));
    QVERIFY(m_core.inspect({"PEXPIRE", key, QByteArray::number(2 * kDay)}));
    for (int i = 0; i < 2; ++i) {
        const auto counted = runRawHit(*m_core.client(), m_core.layout(), hit);
        QVERIFY(counted && counted->allowed);
    }
    QCOMPARE(m_core.bytes({"HGET", key, "prev"}), QByteArray("1000"));
    const QString peeked = peekedCount(hit);
    const QString summary = decodedSummary(hit);
    QVERIFY2(summary.startsWith(peeked + QLatin1Char(' ')),
             qPrintable(summary + QStringLiteral(" / peek: ") + peeked));
}

QTEST_MAIN(StateDecodingPeekTest)
#include "tst_StateDecodingPeek.moc"
