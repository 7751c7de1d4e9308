// Issue 8: lua/hit.lua got a fast path and a leaner general path; this test proves the speed-up
// changed no decision. Random sequences of hits, peeks, manual bans and unbans, corrupted keys,
// keys that lost their TTL and time passing run through tests/reference/differential.lua, which
// executes the frozen reference (tests/reference/hit_reference.lua) and lua/hit.lua side by side
// in ONE script, on the prefixes "tgR:" and "tgN:", with one frozen clock. Every reply and the
// resulting value and expiry time of every key of the user must be identical, with no tolerance:
// the seam in differential.lua makes both scripts see the same time and write the same expiry
// times. Left out: stream ids (Redis takes them from the real clock) and the difference between
// a key already expired and a key deleted because its expiry was past (invisible after the script).
//
// hit.lua's short form (plain policies: the ids only in the keys) must answer and write exactly
// as the full form: plain hits of the sequences go either way ("hit_short": the reference gets the
// full form, lua/hit.lua the short form it stands for). tst_HitShortForm has its edge cases.
//
// TOLLGATE_DIFF_SEED and TOLLGATE_DIFF_CASES replay or extend a run; TOLLGATE_DIFF_CANDIDATE
// names another candidate script (to see the test catch a deliberately wrong change).

#include "tests/support/HitDifferential.h"
#include "tests/support/TestEnv.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QThread>
#include <QtTest>
#include <algorithm>

using tollgate::test::HitDifferential;
using tollgate::test::RedisServer;
using Step = tollgate::test::DifferentialStep;

namespace {

// The ids the sequences use (raw, escaped): plain ones may take a fast path, the others never
// do. Two plain users, so a quarter of the (user, action) pairs, each with its own policy, can.
const QList<QPair<QByteArray, QByteArray>> kUsers{
    {"u1", "u1"}, {"a:b", "a%3Ab"}, {"Zo\xc3\xab", "Zo\xc3\xab"}, {"u2", "u2"}};
const QList<QPair<QByteArray, QByteArray>> kActions{{"like", "like"}, {"up load", "up%20load"}};
const QList<QByteArray>& kAlgorithms = tollgate::test::kHitAlgorithms;
const QList<QByteArray>& kCodes = tollgate::test::kHitCodes;
constexpr qint64 kHour = 3'600'000;
constexpr qint64 kYear = 31'536'000'000;

// A policy of one (user, action): kept for a while so counts build up, bans happen and end.
struct Policy
{
    int algorithm = 0;
    bool calendar = false;
    QList<QPair<qint64, qint64>> windows; // limit, window_ms
    qint64 cost = 1;
    bool countDenied = false;
    qint64 warn = 0;
    qint64 banMs = 0;
    bool midnight = false;
    QByteArray offsets = "0";
    QByteArray channel;

    // What the short form can say: none of the options, windows from the first hit in UTC.
    bool plain() const
    {
        return !calendar && !countDenied && warn == 0 && banMs == 0 && !midnight && offsets == "0" &&
               channel.isEmpty();
    }
};

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

} // namespace

class HitDifferentialTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void randomSequencesAgree();
    void fixedWindowBranchesAgree_data();
    void fixedWindowBranchesAgree();
    void slidingLogBranchesAgree_data();
    void slidingLogBranchesAgree();
    void productsPast2Pow53AreExact();

private:
    int pick(int n) { return int(m_rng.bounded(n)); }
    bool chance(int percent) { return pick(100) < percent; }
    qint64 between(qint64 lo, qint64 hi) { return lo + qint64(m_rng.bounded(quint64(hi - lo + 1))); }

    Policy randomPolicy();
    QByteArray offsetsTable() const;
    Step hitStep(int user, int action, const Policy& policy);
    void malform(Step& step);
    Step banStep(int user, int action);
    Step unbanStep(int user, int action);
    Step corruptStep(int user, int action, const Policy& policy, bool heal);
    QList<QByteArray> stateKeys(int user, int action, const Policy& policy) const;
    QByteArray userKey(int user, const QByteArray& suffix) const;
    QByteArray actionKey(int user, int action, const QByteArray& suffix) const;
    QByteArray run(const Step& step, const QList<QByteArray>& compared);
    // One hit of user 0 on action 0 (as aclUser when not empty): both scripts agree, and
    // lua/hit.lua went the way `path` says.
    void hitAgrees(const Policy& policy, const QByteArray& cost, const QByteArray& aclUser,
                   const QList<QByteArray>& compared, const QByteArray& path);
    void tally(const Step& step, const QByteArray& reply, const QByteArray& path);

    QMap<QByteArray, int> m_outcomes;
    QByteArray m_lastPath; // the path of the last hit run: "fast", "slow:undo", ...

    RedisServer m_redis;
    HitDifferential m_scripts;
    QRandomGenerator m_rng;
};

void HitDifferentialTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    const QByteArray failure = m_scripts.load(m_redis);
    QVERIFY2(failure.isEmpty(), failure.constData());
    // Users whose ACL refuses one kind of write: TG_NOPERM must name the same command.
    const QByteArray users = tollgate::test::addRefusingUsers(m_redis);
    QVERIFY2(users.isEmpty(), users.constData());
}

QByteArray HitDifferentialTest::userKey(int user, const QByteArray& suffix) const
{
    return "tgR:{" + kUsers[user].second + "}" + suffix;
}

QByteArray HitDifferentialTest::actionKey(int user, int action, const QByteArray& suffix) const
{
    return userKey(user, ":" + kActions[action].second + suffix);
}

// Offsets of a zone with a change an hour ago and one in a day: midnight follows them.
QByteArray HitDifferentialTest::offsetsTable() const
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    return "3600000," + num(now - kHour) + ":7200000," + num(now + 24 * kHour) + ":3600000";
}

Policy HitDifferentialTest::randomPolicy()
{
    Policy p;
    // Half plain on purpose (the options below make one in eight plain by chance), evenly over the
    // algorithms and mostly of one window: the short form's fast paths, one per algorithm, need
    // them, and only half of a plain policy's hits go in the short form.
    const bool plain = chance(50);
    const int roll = pick(100);
    p.algorithm = plain ? roll % 4 : roll < 45 ? 0 : roll < 60 ? 1 : roll < 80 ? 2 : 3;
    p.calendar = !plain && p.algorithm == 0 && chance(15);
    const QList<qint64> calendarWindows{60000, kHour, 24 * kHour, 7 * 24 * kHour};
    const QList<qint64> windows{30, 80, 200, 500, 60000, kHour, 24 * kHour, kYear};
    const int count = chance(plain ? 80 : 60) ? 1 : chance(60) ? 2 : 3;
    while (p.windows.size() < count) {
        const qint64 window = p.calendar ? calendarWindows[pick(4)] : windows[pick(windows.size())];
        bool taken = false;
        for (const auto& w : p.windows)
            taken = taken || w.second == window;
        if (taken)
            continue;
        const int size = pick(100);
        qint64 limit = size < 50 ? between(1, 4) : size < 80 ? between(5, 20) : size < 90 ? 1'000'000'000 : between(21, 999'999'999);
        if (p.algorithm == 1)
            limit = qMin<qint64>(limit, 100'000);
        if (p.algorithm == 3)
            limit = qMin<qint64>(limit, window * 1000);
        p.windows.append({limit, window});
    }
    const qint64 firstLimit = p.windows.first().first;
    const int cost = pick(100);
    p.cost = cost < 70 ? 1 : cost < 90 ? between(2, 3) : between(1, qMin<qint64>(firstLimit + 1, 1'000'000'000));
    p.countDenied = chance(30);
    p.warn = chance(50) ? 0 : between(1, qMin<qint64>(firstLimit, 1'000'000'000));
    const int ban = pick(100);
    p.banMs = ban < 60 ? 0 : ban < 90 ? between(20, 150) : kHour;
    p.midnight = chance(10);
    if (p.midnight || p.calendar)
        p.offsets = chance(50) ? offsetsTable() : QByteArray(chance(50) ? "0" : "-18000000");
    else
        p.offsets = chance(85) ? QByteArray("0") : offsetsTable();
    p.channel = chance(20) ? "tgR:events" : "";
    if (plain) {
        p.countDenied = false;
        p.warn = p.banMs = 0;
        p.midnight = false;
        p.offsets = "0";
        p.channel.clear();
    }
    return p;
}

QList<QByteArray> HitDifferentialTest::stateKeys(int user, int action, const Policy& policy) const
{
    QList<QByteArray> keys;
    for (const auto& window : policy.windows)
        keys << actionKey(user, action, ":" + kCodes[policy.algorithm] + ":" + num(window.second));
    return keys;
}

Step HitDifferentialTest::hitStep(int user, int action, const Policy& p)
{
    Step step;
    step.operation = "hit";
    const int global = pick(10);
    step.keys << userKey(user, ":ban") << actionKey(user, action, ":ban") << userKey(user, ":audit")
              << (global < 6 ? QByteArray("tgR:audit") : global < 8 ? QByteArray() : userKey(user, ":audit"));
    step.keys += stateKeys(user, action, p);
    const qint64 cost = chance(80) ? p.cost : between(1, 5);
    step.args << (chance(85) ? "hit" : "peek") << kAlgorithms[p.algorithm] << num(cost)
              << (p.countDenied ? "1" : "0") << num(p.warn) << num(p.banMs)
              << (p.midnight ? "midnight" : "") << p.offsets << kUsers[user].first
              << kActions[action].first << p.channel << (p.calendar ? "calendar" : "first_hit");
    for (const auto& window : p.windows)
        step.args << num(window.first) << num(window.second);
    return step;
}

// One argument or key the contract refuses (or accepts in an unusual spelling).
void HitDifferentialTest::malform(Step& step)
{
    const QList<QByteArray> numbers{"0", "abc", "-0", "007", "1e3", " 1", "-1", "1000000001", "",
                                    "99999999999999999", "0x10", "2.5"};
    switch (pick(9)) {
    case 0: step.args[2 + pick(4)] = numbers[pick(numbers.size())]; break;
    case 1: step.args[12 + pick(step.args.size() - 12)] = numbers[pick(numbers.size())]; break;
    case 2: step.args[pick(12)] = QList<QByteArray>{"x", "", "calendar", "midnight", "peek"}[pick(5)]; break;
    case 3: step.keys[pick(step.keys.size())] += "x"; break;
    case 4: step.keys.removeLast(); break;
    case 5: step.args.removeLast(); break;
    case 6: step.args[7] = QList<QByteArray>{"abc", "0,", "3600000,5:1,4:2", "99999999", "+5"}[pick(5)]; break;
    case 7: step.args[8] = chance(50) ? QByteArray() : QByteArray(1025, 'u'); break;
    default: // a window spelled with a leading zero, in the argument, the key, or both
        step.args[13] = "0" + step.args[13];
        if (chance(50))
            step.keys[4] = step.keys[4].left(step.keys[4].lastIndexOf(':') + 1) + step.args[13];
    }
}

Step HitDifferentialTest::banStep(int user, int action)
{
    Step step;
    step.operation = "ban";
    const bool userWide = chance(30);
    step.keys << (userWide ? userKey(user, ":ban") : actionKey(user, action, ":ban"))
              << userKey(user, ":audit") << "tgR:audit";
    const bool permanent = chance(15);
    step.args << kUsers[user].first << (userWide ? QByteArray() : kActions[action].first) << "op"
              << "by hand" << num(permanent ? 0 : between(10, 300)) << "0" << "";
    return step;
}

Step HitDifferentialTest::unbanStep(int user, int action)
{
    Step step;
    step.operation = "unban";
    step.keys << userKey(user, ":audit") << "tgR:audit" << userKey(user, ":ban")
              << actionKey(user, action, ":ban");
    step.args << kUsers[user].first << "" << "op" << "lifted" << "";
    return step;
}

// What goes wrong with keys in real deployments: a lost TTL, a wrong type, a value of the wrong
// shape, a ban without its TTL. Or, as often, an operator deleting the lot (so a corruption does
// not stay for the rest of the run).
Step HitDifferentialTest::corruptStep(int user, int action, const Policy& policy, bool heal)
{
    QList<QByteArray> keys = stateKeys(user, action, policy);
    keys << userKey(user, ":ban") << actionKey(user, action, ":ban");
    Step step;
    step.operation = "raw";
    if (heal) {
        step.keys = keys << userKey(user, ":audit");
        step.args << "DEL";
        return step;
    }
    if (chance(10))
        keys = {userKey(user, ":audit")};
    const QList<QList<QByteArray>> commands{
        {"PERSIST"}, {"PERSIST"}, {"PERSIST"}, {"SET", "abc"}, {"SET", "12.5"},
        {"SET", "-3"}, {"SET", "007"}, {"SET", "99999999999999999"}, {"SET", "123+5/0"},
        {"SET", "0"}, {"SET", "0", "PXAT", num(QDateTime::currentMSecsSinceEpoch() + 100000)},
        {"SET", "-0"}, {"SET", "9007199254740993"},
        {"SET", "9223372036854775807"},
        {"SET", "1795430180059177+4/7"}, {"LPUSH", "x"}, {"HSET", "cur", "x"},
        {"HSET", "until_ms", num(QDateTime::currentMSecsSinceEpoch() + between(-100, 300))},
        {"HSET", "until_ms", "0"}, {"HSET", "until_ms", "soon"}, {"ZADD", "1", "junk"},
        {"ZADD", "1", "5-1"}};
    const QList<QByteArray> command = commands[pick(commands.size())];
    step.keys << keys[pick(keys.size())];
    step.args << command;
    return step;
}

QByteArray HitDifferentialTest::run(const Step& step, const QList<QByteArray>& compared)
{
    const tollgate::test::DifferentialOutcome outcome = m_scripts.run(m_redis, step, compared);
    if (!outcome.difference.isEmpty())
        return outcome.difference;
    m_lastPath = outcome.path;
    tally(step, outcome.reply, m_lastPath);
    return {};
}

// What the hits came to, so a run that stopped reaching a branch shows (and fails below).
// path: which way hit.lua went, "fast" or "slow" and the branches seen (see differential.lua).
// The short form's paths count apart ("short fast fixed_window"): the full form's must come up
// on their own.
void HitDifferentialTest::tally(const Step& step, const QByteArray& reply, const QByteArray& path)
{
    if (step.operation != "hit" && step.operation != "hit_short")
        return;
    const QByteArray form = step.operation == "hit_short" ? "short " : "";
    QByteArray outcome = reply.startsWith("E:") ? reply.mid(2, reply.indexOf(' ') - 2)
                                                : reply.split(' ').value(2) + " " + step.args.value(1);
    for (const QByteArray& part : path.split(':'))
        if (part != "slow")
            m_outcomes[form + part + " " + step.args.value(1)]++;
    m_outcomes[outcome]++;
}

void HitDifferentialTest::randomSequencesAgree()
{
    const quint32 seed = qEnvironmentVariableIsSet("TOLLGATE_DIFF_SEED")
                             ? quint32(qEnvironmentVariableIntValue("TOLLGATE_DIFF_SEED"))
                             : 20261123u;
    const int cases = qEnvironmentVariableIsSet("TOLLGATE_DIFF_CASES")
                          ? qEnvironmentVariableIntValue("TOLLGATE_DIFF_CASES")
                          : 4000;
    m_rng.seed(seed);
    QHash<int, Policy> policies;                  // per user * 2 + action
    QHash<int, QSet<QByteArray>> seen;            // every key a user's operations touched
    const QList<QByteArray> aclUsers{"noset", "noxadd", "nopexpire", "nohset"};
    for (int i = 0; i < cases; ++i) {
        const int user = pick(kUsers.size()), action = pick(kActions.size());
        Policy& policy = policies[user * 2 + action];
        if (policy.windows.isEmpty() || chance(8))
            policy = randomPolicy();
        const int roll = pick(100);
        Step step = roll < 80 ? hitStep(user, action, policy)
                    : roll < 86 ? banStep(user, action)
                    : roll < 89 ? unbanStep(user, action)
                                : corruptStep(user, action, policy, roll >= 93);
        const bool malformed = step.operation == "hit" && chance(5);
        if (malformed)
            malform(step);
        // (a malformed step stays full: the short form drops what malform() may have spoiled)
        else if (step.operation == "hit" && policy.plain() && chance(50))
            step.operation = "hit_short";
        QSet<QByteArray>& keys = seen[user];
        keys << userKey(user, ":ban") << userKey(user, ":audit") << "tgR:audit"
             << actionKey(user, action, ":ban");
        for (const QByteArray& key : std::as_const(step.keys))
            if (key.startsWith(QByteArray("tgR:{" + kUsers[user].second + "}")))
                keys << key;
        QList<QByteArray> compared = keys.values();
        std::sort(compared.begin(), compared.end());

        const bool restricted = chance(4);
        if (restricted)
            m_redis.setAuth(tollgate::test::kRefusingPassword, aclUsers[pick(aclUsers.size())]);
        const QByteArray difference = run(step, compared);
        if (restricted)
            m_redis.setAuth({}, {});
        if (!difference.isEmpty())
            QFAIL(qPrintable(QStringLiteral("seed %1, case %2 of %3: %4\n%5")
                                 .arg(seed).arg(i).arg(cases)
                                 .arg(QString::fromUtf8(step.description()), QString::fromUtf8(difference))));
        if (chance(10))
            QThread::msleep(ulong(between(5, 60)));
    }
    QStringList counts;
    for (auto it = m_outcomes.cbegin(); it != m_outcomes.cend(); ++it)
        counts << QStringLiteral("%1: %2").arg(QString::fromUtf8(it.key())).arg(it.value());
    qInfo().noquote() << "seed" << seed << "outcomes:" << counts.join(QStringLiteral(", "));
    // Every kind of answer must have come up, or the sequences no longer test what they claim.
    for (const char* kind :
         {"\"ok\" fixed_window", "\"ok\" sliding_log", "\"ok\" sliding_window", "\"ok\" token_bucket",
          "\"deny\" fixed_window", "\"deny\" token_bucket", "\"banned\" sliding_window", "\"warn\" fixed_window",
          "TG_INVALID", "TG_CORRUPT", "TG_NOPERM", "WRONGTYPE", "fast fixed_window", "fast sliding_log",
          "fast sliding_window", "fast token_bucket", "short fast fixed_window",
          "short fast sliding_log", "short fast sliding_window", "short fast token_bucket"})
        QVERIFY2(cases < 2000 || m_outcomes.value(kind) > 0, kind);
}

// The fixed window's fast path reads the counter first and counts with INCRBY only when the hit
// passes; a denial it answers itself, writing nothing: each row puts the counter in one state
// (both prefixes alike), hits it once and checks that both scripts agree and that lua/hit.lua
// went the expected way ("fast", "slow" and the branches, see differential.lua). A counter that
// INCRBY refuses must stay as it was.
void HitDifferentialTest::fixedWindowBranchesAgree_data()
{
    QTest::addColumn<QList<QByteArray>>("setup"); // a command on the counter after DEL, or none
    QTest::addColumn<qint64>("warn");             // the limit is 10, the cost 2
    QTest::addColumn<QByteArray>("aclUser");      // empty: the default user
    QTest::addColumn<QByteArray>("path");
    auto row = [](const char* name, const QList<QByteArray>& setup, qint64 warn,
                  const QByteArray& aclUser, const QByteArray& path) {
        QTest::newRow(name) << setup << warn << aclUser << path;
    };
    auto counter = [](const QByteArray& value, bool ttl) {
        QList<QByteArray> command{"SET", value};
        if (ttl)
            command << "PX" << "60000";
        return command;
    };
    row("new", {}, 0, {}, "fast");
    row("counting", counter("5", true), 0, {}, "fast");
    row("warn reached", counter("6", true), 5, {}, "fast");
    row("0 with a TTL", counter("0", true), 0, {}, "fast:zero");
    row("0 without TTL", counter("0", false), 0, {}, "fast:zero:ttlless");
    row("lost its TTL", counter("5", false), 0, {}, "fast:ttlless");
    row("denied", counter("10", true), 0, {}, "fast");
    row("crossing warn", counter("5", true), 5, {}, "slow");
    row("negative", counter("-3", true), 0, {}, "slow");
    row("leading zeros", counter("007", true), 0, {}, "slow");
    row("minus zero", counter("-0", false), 0, {}, "slow");
    row("saturated at 2^50", counter("1125899906842624", true), 0, {}, "slow");
    row("above 2^53", counter("9007199254740993", false), 0, {}, "slow");
    row("17 digits", counter("99999999999999999", false), 0, {}, "slow");
    row("int64 max", counter("9223372036854775807", false), 0, {}, "slow");
    row("wrong type", {"LPUSH", "x"}, 0, {}, "slow");
    row("SET refused", counter("5", true), 0, "noset", "slow");
    row("new, SET refused", {}, 0, "noset", "slow");
    row("PEXPIRE refused", counter("5", false), 0, "nopexpire", "slow");
    row("0, PEXPIRE refused", counter("0", false), 0, "nopexpire", "slow");
    row("new, PEXPIRE refused", {}, 0, "nopexpire", "fast");
}

void HitDifferentialTest::fixedWindowBranchesAgree()
{
    QFETCH(QList<QByteArray>, setup);
    QFETCH(qint64, warn);
    QFETCH(QByteArray, aclUser);
    QFETCH(QByteArray, path);
    // (a raw command runs on each prefix in turn: a relative expiry could differ by a millisecond)
    const qsizetype px = setup.indexOf("PX");
    if (px >= 0) {
        setup[px] = "PXAT";
        setup[px + 1] = num(QDateTime::currentMSecsSinceEpoch() + setup[px + 1].toLongLong());
    }
    const QByteArray counter = actionKey(0, 0, ":fw:60000");
    const QList<QByteArray> compared{counter, actionKey(0, 0, ":ban"), userKey(0, ":audit"),
                                     userKey(0, ":ban")};
    Step clear{compared, "raw", {"DEL"}};
    QCOMPARE(run(clear, compared), QByteArray());
    if (!setup.isEmpty()) {
        Step put{{counter}, "raw", setup};
        QCOMPARE(run(put, compared), QByteArray());
    }
    Policy policy;
    policy.windows = {{10, 60000}};
    policy.warn = warn;
    hitAgrees(policy, num(2), aclUser, compared, path);
}

// The sliding log's fast path finds the base (the newest member at or before the window's start)
// from the head of the log, asks for it when 8 members are that old, trims only when members
// precede it, and checks its writes before the first runs: each row builds a log (both prefixes
// alike), hits it once with cost 1 and checks that both scripts agree and which way lua/hit.lua
// went ("fast" with its branches, or "slow", see differential.lua).
using LogMembers = QList<QPair<QByteArray, QByteArray>>; // score (ms before now, "-<ms>[.5]"), member

void HitDifferentialTest::slidingLogBranchesAgree_data()
{
    QTest::addColumn<LogMembers>("members");
    QTest::addColumn<bool>("ttl");
    QTest::addColumn<qint64>("limit"); // per 60 s
    QTest::addColumn<QByteArray>("aclUser");
    QTest::addColumn<QByteArray>("path");
    // `old` members 120 s old (one score when tied), then `recent` ones within the last 30 s
    auto log = [](int old, int recent, bool tied = false) {
        LogMembers members;
        int total = 0;
        for (int i = 0; i < old; ++i)
            members.append({"-" + num(tied ? 120000 : 120000 - i), QByteArray::number(++total).rightJustified(16, '0')});
        for (int i = 0; i < recent; ++i)
            members.append({"-" + num(30000 - 10 * i), QByteArray::number(++total).rightJustified(16, '0')});
        return members;
    };
    auto row = [](const char* name, const LogMembers& members, bool ttl, qint64 limit, const QByteArray& aclUser,
                  const QByteArray& path) { QTest::newRow(name) << members << ttl << limit << aclUser << path; };
    row("new", {}, true, 100, {}, "fast");
    row("all in the window", log(0, 3), true, 100, {}, "fast:head");
    row("the base alone is old", log(1, 3), true, 100, {}, "fast:head");
    row("two old: one trimmed", log(2, 3), true, 100, {}, "fast:head:trim");
    row("three old, tied", log(3, 3, true), true, 100, {}, "fast:head");
    row("seven old, tied", log(7, 3, true), true, 100, {}, "fast:head");
    row("eight old: the base asked for", log(8, 3), true, 100, {}, "fast:head:base:trim");
    row("ten old", log(10, 3), true, 100, {}, "fast:head:base:trim");
    row("eight old, tied", log(8, 3, true), true, 100, {}, "fast:head:base:trim");
    row("lost its TTL", log(2, 3), false, 100, {}, "fast:head:trim");
    row("full", log(1, 3), true, 3, {}, "fast:head");
    row("old member format", {{"-1000", "5-1"}}, true, 100, {}, "slow");
    row("base not a total", LogMembers{{"-120000", "junk"}} + log(0, 2), true, 100, {}, "slow");
    row("base score not whole", LogMembers{{"-120000.5", "0000000000000001"}, {"-1000", "0000000000000002"}}, true,
        100, {}, "slow");
    row("trim refused", log(2, 3), true, 100, "nozrem", "slow");
    row("nothing to trim, trim refused", log(1, 3), true, 100, "nozrem", "slow");
    row("ZADD refused", log(1, 3), true, 100, "nozadd", "slow");
    row("new, ZADD refused", {}, true, 100, "nozadd", "slow");
    row("PEXPIRE refused", log(2, 3), true, 100, "nopexpire", "slow");
    row("new, PEXPIRE refused", {}, true, 100, "nopexpire", "slow");
}

void HitDifferentialTest::slidingLogBranchesAgree()
{
    QFETCH(LogMembers, members);
    QFETCH(bool, ttl);
    QFETCH(qint64, limit);
    QFETCH(QByteArray, aclUser);
    QFETCH(QByteArray, path);
    const QByteArray log = actionKey(0, 0, ":sl:60000");
    const QList<QByteArray> compared{log, actionKey(0, 0, ":ban"), userKey(0, ":audit"), userKey(0, ":ban")};
    Step clear{compared, "raw", {"DEL"}};
    QCOMPARE(run(clear, compared), QByteArray());
    if (!members.isEmpty()) {
        const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
        Step add{{log}, "raw", {"ZADD"}};
        for (const auto& [score, member] : members) {
            const qsizetype dot = score.indexOf('.');
            const qint64 us = (nowMs + score.left(dot < 0 ? score.size() : dot).toLongLong()) * 1000;
            add.args << num(us) + (dot < 0 ? QByteArray() : score.mid(dot)) << member;
        }
        QCOMPARE(run(add, compared), QByteArray());
        if (ttl) {
            Step expire{{log}, "raw", {"PEXPIREAT", num(nowMs + 60000)}};
            QCOMPARE(run(expire, compared), QByteArray());
        }
    }
    Policy policy;
    policy.algorithm = 1;
    policy.windows = {{limit, 60000}};
    hitAgrees(policy, "1", aclUser, compared, path);
}

void HitDifferentialTest::hitAgrees(const Policy& policy, const QByteArray& cost,
                                    const QByteArray& aclUser, const QList<QByteArray>& compared,
                                    const QByteArray& path)
{
    Step hit = hitStep(0, 0, policy);
    hit.args[0] = "hit";
    hit.args[2] = cost;
    if (!aclUser.isEmpty())
        m_redis.setAuth(tollgate::test::kRefusingPassword, aclUser);
    const QByteArray difference = run(hit, compared);
    m_redis.setAuth({}, {});
    QVERIFY2(difference.isEmpty(), difference.constData());
    QCOMPARE(m_lastPath, path);
}

// Issue 6's gap: floor(a * b / c) in doubles is wrong once a * b passes 2^53. GCRA with
// 999,999,937 per year and cost 123,457: the TAT moves by 123,457 * 31,536,000,000,000 / 999,999,937
// µs, kept as whole µs plus the exact remainder in 1/limit µs. The product is 3.9e18; the
// remainder computed as a * b - q * c in doubles is off by hundreds (a naive mul_div stores
// +280432640/999999937 instead of +280432411/999999937).
void HitDifferentialTest::productsPast2Pow53AreExact()
{
    const qint64 limit = 999'999'937, windowUs = kYear * 1000, cost = 123'457;
    const QByteArray key = "tg:{m}:x:tb:" + num(kYear);
    const QByteArray reply = m_redis.command(
        {"EVAL", m_scripts.candidate(), "6", "tg:{m}:ban", "tg:{m}:x:ban", "tg:{m}:overrides", "tg:{m}:audit", "", key, "hit",
         "token_bucket", num(cost), "0", "0", "0", "", "0", "m", "x", "", "first_hit", num(limit),
         num(kYear)});
    const QByteArray allowed = "*7\r\n:1\r\n$2\r\nok\r\n:" + num(cost) + "\r\n";
    QVERIFY2(reply.startsWith(allowed), reply.constData());
    const QByteArray tat = m_redis.command({"GET", key});
    const QByteArray fraction = "+" + num((cost * windowUs) % limit) + "/" + num(limit) + "\r\n";
    QVERIFY2(tat.endsWith(fraction), QByteArray(tat + " should end with " + fraction).constData());
}

QTEST_GUILESS_MAIN(HitDifferentialTest)
#include "tst_HitDifferential.moc"
