// ReplyOrder hands each caller its replies in the order of its commands whatever order they
// arrive in; callers do not wait for each other; a dropped command gives its turn up; a
// delivery that sends again (and is answered at once) neither recurses out of order nor loses
// a reply.

#include "core/redis/ReplyOrder.h"

#include <QtTest>

using namespace tollgate;

class ReplyOrderTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void holdsEarlyRepliesUntilTheirTurn();
    void callersDoNotWaitForEachOther();
    void aDroppedCommandGivesItsTurnUp();
    void aDeliveryMaySendAgain();

private:
    Callback<Reply> noting(int what) { return [this, what](Result<Reply>) { m_seen << what; }; }
    QList<int> m_seen;
};

static Reply integer(qint64 value)
{
    Reply reply;
    reply.type = Reply::Type::Integer;
    reply.integer = value;
    return reply;
}

void ReplyOrderTest::holdsEarlyRepliesUntilTheirTurn()
{
    m_seen.clear();
    auto order = std::make_shared<ReplyOrder>();
    const int caller = 0;
    std::vector<Callback<Reply>> sent;
    for (int i = 0; i < 4; ++i)
        sent.push_back(order->wrap(&caller, noting(i)));
    sent[2](integer(2));
    sent[1](integer(1));
    QVERIFY(m_seen.isEmpty());
    QCOMPARE(order->held(), size_t(2));
    sent[0](integer(0));
    QCOMPARE(m_seen, QList<int>({0, 1, 2}));
    sent[3](integer(3));
    sent[3](integer(3)); // a second answer has no place in the line
    QCOMPARE(m_seen, QList<int>({0, 1, 2, 3}));
    QCOMPARE(order->held(), size_t(0));
}

void ReplyOrderTest::callersDoNotWaitForEachOther()
{
    m_seen.clear();
    auto order = std::make_shared<ReplyOrder>();
    const int first = 0, second = 0;
    auto slow = order->wrap(&first, noting(10));
    auto after = order->wrap(&first, noting(11));
    auto other = order->wrap(&second, noting(20));
    auto withoutCaller = order->wrap(nullptr, noting(30));
    after(integer(0));
    other(integer(0));
    withoutCaller(integer(0));
    QCOMPARE(m_seen, QList<int>({20, 30}));
    slow(integer(0));
    QCOMPARE(m_seen, QList<int>({20, 30, 10, 11}));
}

void ReplyOrderTest::aDroppedCommandGivesItsTurnUp()
{
    m_seen.clear();
    auto order = std::make_shared<ReplyOrder>();
    const int caller = 0;
    auto dropped = std::make_unique<Callback<Reply>>(order->wrap(&caller, noting(0)));
    auto copy = *dropped; // copies share one turn: only the last one gone gives it up
    auto next = order->wrap(&caller, noting(1));
    next(integer(1));
    dropped.reset();
    QVERIFY(m_seen.isEmpty());
    copy = nullptr;
    QCOMPARE(m_seen, QList<int>({1}));
}

void ReplyOrderTest::aDeliveryMaySendAgain()
{
    m_seen.clear();
    auto order = std::make_shared<ReplyOrder>();
    const int caller = 0;
    Callback<Reply> earlier = order->wrap(&caller, [&](Result<Reply>) {
        m_seen << 0;
        // The caller sends again from its callback and that reply comes back at once: it
        // still waits for `later`, sent before it.
        order->wrap(&caller, noting(2))(integer(2));
    });
    Callback<Reply> later = order->wrap(&caller, noting(1));
    later(integer(1));
    QVERIFY(m_seen.isEmpty());
    earlier(integer(0));
    QCOMPARE(m_seen, QList<int>({0, 1, 2}));
    QCOMPARE(order->held(), size_t(0));
}

QTEST_APPLESS_MAIN(ReplyOrderTest)
#include "tst_ReplyOrder.moc"
