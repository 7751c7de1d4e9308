// DecisionDeadlines on its own: every watched item is expired once, in order, never when it was
// forgotten; a burst that falls due together starts early enough for its last answer to go out
// by its deadline, and no item goes earlier than a quarter of the timeout before its own.
#include <QtTest> // (first: moc, run without the compiler's macros, then reads <chrono> too)

#include "service/decide/DecisionDeadlines.h"

#include <atomic>
#include <mutex>
#include <vector>

using namespace tollgate::service;
using Clock = Watched::Clock;

namespace {

struct Item : Watched
{
    explicit Item(int n) : number(n) {}
    int number;
};

struct Expired
{
    int number;
    Clock::time_point at;
};

/// The expiries seen, each costing `cost` of this thread's time (an answer made and sent).
class Recorder
{
public:
    explicit Recorder(std::chrono::microseconds cost = {}) : m_cost(cost) {}

    DecisionDeadlines::Expire expire()
    {
        return [this](const std::shared_ptr<Watched>& item) {
            const auto until = Clock::now() + m_cost;
            while (Clock::now() < until) {
            }
            std::lock_guard lock(m_mutex);
            m_seen.push_back({static_cast<Item&>(*item).number, Clock::now()});
        };
    }
    std::vector<Expired> seen()
    {
        std::lock_guard lock(m_mutex);
        return m_seen;
    }

private:
    const std::chrono::microseconds m_cost;
    std::mutex m_mutex;
    std::vector<Expired> m_seen;
};

/// `count` items watched from the same moment; returns that moment.
Clock::time_point watchBurst(DecisionDeadlines& deadlines, int first, int count,
                             std::vector<std::shared_ptr<Item>>* items)
{
    const auto from = Clock::now();
    for (int i = 0; i < count; ++i) {
        items->push_back(std::make_shared<Item>(first + i));
        deadlines.watch(items->back(), from);
    }
    return from;
}

} // namespace

class DecisionDeadlinesTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void expiresEachOnceInOrderButNotTheForgotten();
    void aBurstStartsEarlyButNeverByMoreThanAQuarter();
};

void DecisionDeadlinesTest::expiresEachOnceInOrderButNotTheForgotten()
{
    Recorder recorder;
    DecisionDeadlines deadlines(std::chrono::milliseconds(50), recorder.expire());
    std::vector<std::shared_ptr<Item>> items;
    for (int i = 0; i < 10; ++i) {
        items.push_back(std::make_shared<Item>(i));
        deadlines.watch(items.back(), Clock::now());
    }
    deadlines.forget(*items[3]);
    deadlines.forget(*items[7]);
    deadlines.forget(*items[7]); // twice: nothing more
    QTRY_COMPARE_WITH_TIMEOUT(int(recorder.seen().size()), 8, 5000);
    QTest::qWait(100); // nothing after
    const std::vector<Expired> seen = recorder.seen();
    QCOMPARE(int(seen.size()), 8);
    std::vector<int> numbers;
    for (const Expired& expired : seen)
        numbers.push_back(expired.number);
    QCOMPARE(numbers, (std::vector<int>{0, 1, 2, 4, 5, 6, 8, 9}));
    deadlines.forget(*items[0]); // already expired: nothing
}

void DecisionDeadlinesTest::aBurstStartsEarlyButNeverByMoreThanAQuarter()
{
    // 40 items due together, each answer costing 1 ms: one after another they take 40 ms. The
    // first burst teaches the thread what an answer costs; the second then starts about 40 ms
    // before its deadline, so its first answer goes out well before it (the last one at it,
    // which only timing on a quiet machine shows: bench_service measures it). A timeout of
    // 400 ms allows 100 ms of lead: none of the 40 may go before its deadline less that.
    const auto timeout = std::chrono::milliseconds(400);
    Recorder recorder(std::chrono::milliseconds(1));
    DecisionDeadlines deadlines(timeout, recorder.expire());
    std::vector<std::shared_ptr<Item>> items;
    watchBurst(deadlines, 0, 40, &items);
    QTRY_COMPARE_WITH_TIMEOUT(int(recorder.seen().size()), 40, 10'000);

    const auto from = watchBurst(deadlines, 40, 40, &items);
    QTRY_COMPARE_WITH_TIMEOUT(int(recorder.seen().size()), 80, 10'000);
    const std::vector<Expired> seen = recorder.seen();
    const auto due = from + timeout;
    QCOMPARE(seen[40].number, 40);
    QCOMPARE(seen[79].number, 79);
    // (the whole burst takes 40 ms: its first answer went out before its deadline even if the
    // thread woke 20 ms late)
    QVERIFY2(seen[40].at < due - std::chrono::milliseconds(20),
             "a burst that takes 40 ms to answer began less than 20 ms before its deadline");
    for (size_t i = 40; i < seen.size(); ++i)
        QVERIFY2(seen[i].at >= due - timeout / 4, "an answer went out more than a quarter early");
}

QTEST_GUILESS_MAIN(DecisionDeadlinesTest)
#include "tst_DecisionDeadlines.moc"
