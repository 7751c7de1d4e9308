// The one core enumeration of "subjects with their usage" against a real redis-server:
// streamed in SCAN order without a cap, deduplicated, one usage rule for raw reads and peeks,
// bad keys named on their own row, users addressed without SCAN.
#include "core/subjects/SubjectReader.h"
#include "core/subjects/Usage.h"
#include "tests/support/CoreFixture.h"
#include "tollgate/Overrides.h"
#include "tollgate/Subjects.h"

#include <QElapsedTimer>
#include <algorithm>
#include <map>
#include <set>

using namespace tollgate;
using namespace tollgate::test;

class tst_SubjectEnumeration : public QObject
{
    Q_OBJECT

private:
    // `n` fixed-window counters of `action` (user u<i>, value i % 7 + 1), written pipelined.
    void fill(const QByteArray& action, int n)
    {
        QList<QList<QByteArray>> commands;
        for (int i = 0; i < n; ++i)
            commands.append({"SET",
                             m_core.schema().stateKey("u" + QByteArray::number(i), action,
                                                      Algorithm::FixedWindow, 60000),
                             QByteArray::number(i % 7 + 1), "PX", "60000"});
        QCOMPARE(m_core.server().pipeline(commands, 30000).size(), n);
    }

    Result<SubjectList> list(const SubjectsOptions& options = {})
    {
        const Subjects subjects(m_core.client(), m_core.schema());
        return await<SubjectList>(
            [&](QObject* context, Callback<SubjectList> done) {
                subjects.list(options, context, done);
            },
            60000);
    }

    const Subject* find(const SubjectList& list, const QByteArray& user, const QByteArray& action)
    {
        for (const Subject& s : list.subjects)
            if (s.user == user && s.action == action)
                return &s;
        return nullptr;
    }

    // An hour's override of `action` ("*": every action); `limit` for OverrideKind::Limit.
    bool setOverride(const QByteArray& user, const QByteArray& action, OverrideKind kind,
                     qint64 limit = 0)
    {
        OverrideRequest request;
        request.user = user;
        request.action = action;
        request.kind = kind;
        if (kind == OverrideKind::Limit)
            request.windows = {{limit, 60000}};
        request.durationMs = 3'600'000;
        request.actor = QStringLiteral("support");
        request.reason = QStringLiteral("trial");
        const OverrideStore store(m_core.client(), m_core.schema());
        return bool(await<Override>(
            [&](QObject* context, auto done) { store.set(request, context, done); }));
    }

    CoreFixture m_core;

private Q_SLOTS:
    void initTestCase() { TOLLGATE_REQUIRE(m_core, start()); }
    void init() { QVERIFY(m_core.flush()); }

    void streamsEveryBatchWithoutCap()
    {
        QVERIFY(m_core.save(makePolicy("like", 10, 60000)));
        fill("like", 5000);
        // Two more keys of the same subjects (a ban) must not make a second row.
        QVERIFY(m_core.inspect({"HSET", m_core.schema().actionBanKey("u1", "like"), "until_ms", "0",
                                "reason", "r", "actor", "a", "source", "manual"}));

        SubjectsOptions options;
        options.scanCount = 1000;
        options.readsInFlight = 2;
        int batches = 0;
        qint64 lastDelivered = 0;
        bool monotonic = true;
        std::set<QByteArray> users;
        const Subjects subjects(m_core.client(), m_core.schema());
        auto progress = await<SubjectsProgress>(
            [&](QObject*, Callback<SubjectsProgress> done) {
                subjects.stream(
                    options,
                    [&](std::vector<Subject>& batch, const SubjectsProgress& p) {
                        ++batches; // worker thread; the test thread waits in await()
                        monotonic = monotonic && p.subjects > lastDelivered;
                        lastDelivered = p.subjects;
                        for (const Subject& s : batch)
                            users.insert(s.user);
                        return true;
                    },
                    done);
            },
            60000);
        QVERIFY2(progress, qPrintable(progress ? QString() : progress.error().toString()));
        QVERIFY2(batches > 2, "rows must arrive batch by batch, not at the end");
        QVERIFY(monotonic);
        QCOMPARE(progress->subjects, qint64(5000)); // every one, each once
        QCOMPARE(qint64(users.size()), qint64(5000));
        QVERIFY(!progress->truncated);
        QVERIFY(progress->scanned >= 5001);

        options.maxSubjects = 1200;
        auto capped = list(options);
        QVERIFY(capped);
        QCOMPARE(qint64(capped->subjects.size()), qint64(1200));
        QVERIFY(capped->truncated);
    }

    void pacedStreamKeepsToItsBudget()
    {
        // Two windows a subject (two keys, four reads) and SCAN pages of whatever size the
        // server gives: the cost per page is what the budget must follow, not a guess per key.
        Policy policy = makePolicy("search", 100, 60'000);
        policy.windows.push_back({1000, 3'600'000});
        QVERIFY(m_core.save(policy));
        QList<QList<QByteArray>> commands;
        constexpr int kUsers = 3000;
        for (int i = 0; i < kUsers; ++i)
            for (const WindowLimit& window : policy.windows)
                commands.append({"SET",
                                 m_core.schema().stateKey("u" + QByteArray::number(i), "search",
                                                          Algorithm::FixedWindow, window.windowMs),
                                 "1", "PX", "3600000"});
        QCOMPARE(m_core.server().pipeline(commands, 30000).size(), qsizetype(2 * kUsers));

        constexpr int kBudget = 10'000;
        SubjectsOptions options;
        options.scanCount = 200;
        options.readsInFlight = 1;
        options.commandsPerSecond = kBudget;
        Client* client = m_core.client();
        const quint64 before = client->commandCount();
        QElapsedTimer clock;
        clock.start();
        auto paced = list(options);
        const qint64 elapsed = clock.elapsed();
        const quint64 sent = client->commandCount() - before;
        QVERIFY(paced);
        QCOMPARE(qint64(paced->subjects.size()), qint64(kUsers));
        QVERIFY2(sent >= quint64(4 * kUsers), qPrintable(QString::number(sent)));
        // Only the first page goes out before anything was paid (a page is a few hundred
        // commands here): everything after it took its time at the budget's rate, whatever
        // the machine's speed, so the bound holds on a slow machine as on a fast one.
        const qint64 unpaid = 1'000;
        QVERIFY2(elapsed * kBudget >= (qint64(sent) - unpaid) * 1000,
                 qPrintable(QStringLiteral("%1 commands in %2 ms at %3/s")
                                .arg(sent)
                                .arg(elapsed)
                                .arg(kBudget)));
    }

    void oneUsageRuleForRawReadsAndPeeks()
    {
        // The case: limit 3, count_denied, a stored counter of 4 -> 4 / 3, remaining 0.
        Policy policy = makePolicy("like", 3, 60000);
        policy.countDenied = true;
        QVERIFY(m_core.save(policy));
        for (int i = 0; i < 4; ++i)
            QVERIFY(m_core.hit(policy, "carol"));
        QCOMPARE(m_core.bytes({"GET", m_core.schema().stateKey("carol", "like",
                                                               Algorithm::FixedWindow, 60000)}),
                 QByteArray("4"));

        auto all = list();
        QVERIFY(all);
        const Subject* raw = find(*all, "carol", "like");
        QVERIFY(raw && raw->stateKnown);
        QCOMPARE(raw->state.count, qint64(4));
        QCOMPARE(raw->state.remaining, qint64(0));
        QCOMPARE(raw->state.tier, Tier::Deny);

        const Subjects subjects(m_core.client(), m_core.schema());
        auto peeked =
            await<std::vector<Subject>>([&](QObject* c, Callback<std::vector<Subject>> done) {
                subjects.user("carol", true, c, done);
            });
        QVERIFY(peeked);
        QCOMPARE(peeked->size(), size_t(1));
        QCOMPARE(peeked->front().state.count, qint64(4));
        QCOMPARE(peeked->front().state.remaining, qint64(0));
        QCOMPARE(peeked->front().state.tier, Tier::Deny);

        // Allowed, below the limit: raw and peek agree too (the peek's would-be hit is taken out).
        Policy view = makePolicy("view", 10, 60000);
        view.warn = 1;
        QVERIFY(m_core.save(view));
        QVERIFY(m_core.hit(view, "dan"));
        QVERIFY(m_core.hit(view, "dan"));
        auto again = list();
        QVERIFY(again);
        const Subject* dan = find(*again, "dan", "view");
        QVERIFY(dan);
        auto danPeek =
            await<std::vector<Subject>>([&](QObject* c, Callback<std::vector<Subject>> done) {
                subjects.user("dan", true, c, done);
            });
        QVERIFY(danPeek && danPeek->size() == 1);
        QCOMPARE(dan->state.count, qint64(2));
        QCOMPARE(danPeek->front().state.count, qint64(2));
        QCOMPARE(danPeek->front().state.remaining, dan->state.remaining);
        QCOMPARE(danPeek->front().state.tier, Tier::Warn);
        QCOMPARE(dan->state.tier, Tier::Warn);
    }

    void bansFoundAmongManyWithoutOneCheckEach()
    {
        // Ban keys are checked a group of subjects at a time: a ban must still land on its
        // own row only, an action ban and a user-wide one alike, wherever it falls in a group.
        QVERIFY(m_core.save(makePolicy("like", 10, 60000)));
        fill("like", 300);
        const std::set<QByteArray> actionBanned{"u0", "u13", "u14", "u299"};
        for (const QByteArray& user : actionBanned)
            QVERIFY(m_core.inspect({"HSET", m_core.schema().actionBanKey(user, "like"), "until_ms",
                                    "0", "reason", "r", "actor", "a", "source", "manual"}));
        QVERIFY(m_core.inspect({"HSET", m_core.schema().userBanKey("u77"), "until_ms", "0",
                                "reason", "r", "actor", "a", "source", "manual"}));
        auto all = list();
        QVERIFY(all);
        int banned = 0;
        for (const Subject& s : all->subjects) {
            if (s.action.isEmpty())
                continue; // the user-wide ban's own row
            const bool expected = actionBanned.count(s.user) > 0 || s.user == "u77";
            QVERIFY2(s.banned() == expected, s.user.constData());
            QCOMPARE(s.ban.has_value(), actionBanned.count(s.user) > 0);
            QCOMPARE(s.userBan.has_value(), s.user == "u77");
            banned += s.banned() ? 1 : 0;
        }
        QCOMPARE(banned, 5);
        QVERIFY(find(*all, "u77", QByteArray()) && find(*all, "u77", QByteArray())->userBan);
    }

    void firstPassTakesBansFromTheScan()
    {
        // With mayRepeat the scan's own ban keys and overrides hashes stand in for the EXISTS
        // round. SCAN returns a user's keys in any order: a subject read before its ban key or
        // overrides turned up must come again with them, and the last reading of each subject
        // must be what the EXISTS round reads.
        QVERIFY(m_core.save(makePolicy("like", 10, 60000)));
        QVERIFY(m_core.save(makePolicy("comment", 5, 60000)));
        fill("like", 1500);
        fill("comment", 300);
        for (int i = 0; i < 1500; i += 9)
            QVERIFY(m_core.inspect({"HSET",
                                    m_core.schema().actionBanKey("u" + QByteArray::number(i), "like"),
                                    "until_ms", "0", "reason", "r", "actor", "a", "source", "manual"}));
        for (int i = 4; i < 1500; i += 61)
            QVERIFY(m_core.inspect({"HSET", m_core.schema().userBanKey("u" + QByteArray::number(i)),
                                    "until_ms", "0", "reason", "r", "actor", "a", "source", "manual"}));
        for (int i = 2; i < 1500; i += 47)
            QVERIFY(setOverride("u" + QByteArray::number(i), "like", OverrideKind::Limit, 20));

        SubjectsOptions checked;
        checked.scanCount = 50; // many pages: many keys of a user land on different ones
        Client* client = m_core.client();
        quint64 before = client->commandCount();
        auto expected = list(checked);
        const quint64 checkedCommands = client->commandCount() - before;
        QVERIFY(expected);

        SubjectsOptions repeating = checked;
        repeating.mayRepeat = true;
        std::map<SubjectKey, int> readings;
        qint64 delivered = 0;
        const Subjects subjects(client, m_core.schema());
        before = client->commandCount();
        auto progress = await<SubjectsProgress>(
            [&](QObject*, Callback<SubjectsProgress> done) {
                subjects.stream(
                    repeating,
                    [&](std::vector<Subject>& batch, const SubjectsProgress& p) {
                        for (const Subject& s : batch)
                            ++readings[s.key()];
                        delivered = p.subjects;
                        return true;
                    },
                    done);
            },
            60000);
        const quint64 repeatingCommands = client->commandCount() - before;
        QVERIFY(progress);
        QCOMPARE(qint64(readings.size()), qint64(expected->subjects.size()));
        QCOMPARE(delivered, qint64(expected->subjects.size())); // each counted once
        const auto again = std::count_if(readings.begin(), readings.end(),
                                         [](const auto& reading) { return reading.second > 1; });
        QVERIFY2(again > 0, "some ban key or overrides must have come after its subject");
        QVERIFY2(repeatingCommands < checkedCommands,
                 qPrintable(QStringLiteral("%1 commands against %2 with the EXISTS round")
                                .arg(repeatingCommands)
                                .arg(checkedCommands)));

        auto last = list(repeating);
        QVERIFY(last);
        QCOMPARE(last->subjects.size(), expected->subjects.size());
        int banned = 0, overridden = 0;
        for (size_t i = 0; i < last->subjects.size(); ++i) {
            const Subject& got = last->subjects[i];
            const Subject& want = expected->subjects[i];
            QCOMPARE(got.key(), want.key());
            QVERIFY2(got.ban.has_value() == want.ban.has_value(), got.user.constData());
            QVERIFY2(got.userBan.has_value() == want.userBan.has_value(), got.user.constData());
            QCOMPARE(got.state.limit, want.state.limit);
            QCOMPARE(got.state.tier, want.state.tier);
            QCOMPARE(got.state.appliedOverride, want.state.appliedOverride);
            banned += got.banned() && !got.action.isEmpty() ? 1 : 0;
            overridden += got.state.appliedOverride == AppliedOverride::Limit ? 1 : 0;
        }
        // like: 167 action bans and 25 user-wide ones, 3 users in both; comment: 5 user-wide.
        QCOMPARE(banned, 167 + 25 - 3 + 5);
        QVERIFY(overridden > 20);
    }

    void overriddenUsersShowTheirOwnLimit()
    {
        // Counters of a fixed window are read raw; a user with an override gets the limit
        // hit.lua applies to them (a peek), wherever they fall in a group of the EXISTS check.
        QVERIFY(m_core.save(makePolicy("like", 10, 60000)));
        fill("like", 40);
        QVERIFY(setOverride("u3", "like", OverrideKind::Limit, 20));
        QVERIFY(setOverride("u21", "*", OverrideKind::Unlimited));
        auto all = list();
        QVERIFY(all);
        for (const Subject& s : all->subjects) {
            QVERIFY2(s.stateKnown, s.user.constData());
            QCOMPARE(s.state.appliedOverride, s.user == "u3"    ? AppliedOverride::Limit
                                              : s.user == "u21" ? AppliedOverride::Unlimited
                                                                : AppliedOverride::None);
            QCOMPARE(s.state.limit, qint64(s.user == "u3" ? 20 : 10));
        }
    }

    void badKeysAreNamedOnTheirRow()
    {
        QVERIFY(m_core.save(makePolicy("like", 10, 60000)));
        fill("like", 20);
        const QByteArray ban = m_core.schema().actionBanKey("u3", "like");
        const QByteArray counter =
            m_core.schema().stateKey("u4", "like", Algorithm::FixedWindow, 60000);
        QVERIFY(m_core.inspect({"DEL", ban}));
        QVERIFY(m_core.inspect({"SET", ban, "oops"}));
        QVERIFY(m_core.inspect({"SET", counter, "abc"}));

        auto all = list();
        QVERIFY2(all, qPrintable(all ? QString() : all.error().toString()));
        QCOMPARE(all->subjects.size(), size_t(20));
        const Subject* badBan = find(*all, "u3", "like");
        const Subject* badCounter = find(*all, "u4", "like");
        QVERIFY(badBan && badCounter);
        QVERIFY2(badBan->error.contains(QString::fromUtf8(ban)), qPrintable(badBan->error));
        QVERIFY2(badCounter->error.contains(QString::fromUtf8(counter)),
                 qPrintable(badCounter->error));
        QVERIFY(!badCounter->stateKnown);
        int fine = 0;
        for (const Subject& s : all->subjects)
            fine += s.error.isEmpty() && s.stateKnown ? 1 : 0;
        QCOMPARE(fine, 18);
    }

    void invalidPolicyIsShownAsInvalid()
    {
        QVERIFY(m_core.save(makePolicy("like", 10, 60000)));
        fill("like", 3);
        QVERIFY(m_core.inspect({"HSET", m_core.schema().policyKey("like"), "windows", "garbage"}));
        auto all = list();
        QVERIFY(all);
        QCOMPARE(all->invalidPolicies.size(), size_t(1));
        QCOMPARE(all->subjects.size(), size_t(3));
        for (const Subject& s : all->subjects) {
            QVERIFY(!s.hasPolicy);
            QVERIFY2(s.error.contains(QStringLiteral("invalid")), qPrintable(s.error));
        }
    }

    void userPrefixAndActionFilter()
    {
        QVERIFY(m_core.save(makePolicy("like", 10, 60000)));
        QVERIFY(m_core.save(makePolicy("comment", 10, 60000)));
        fill("like", 300);
        fill("comment", 30);
        SubjectsOptions options;
        options.userPrefix = "u2";
        auto prefixed = list(options);
        QVERIFY(prefixed);
        // u2, u20..u29, u200..u299 for like; u2, u20..u29 for comment
        QCOMPARE(prefixed->subjects.size(), size_t(1 + 10 + 100 + 1 + 10));
        for (const Subject& s : prefixed->subjects)
            QVERIFY(s.user.startsWith("u2"));
        options.action = "comment";
        auto both = list(options);
        QVERIFY(both);
        QCOMPARE(both->subjects.size(), size_t(11));
    }

    void userIsAddressedWithoutScan()
    {
        QVERIFY(m_core.save(makePolicy("like", 10, 60000)));
        QVERIFY(m_core.save(makePolicy("comment", 5, 30000)));
        QVERIFY(m_core.hit(makePolicy("like", 10, 60000), "erin"));
        BanRequest request;
        request.user = "erin";
        request.actor = QStringLiteral("test");
        request.reason = QStringLiteral("all of it");
        request.durationMs = 60000;
        QVERIFY(await<BanInfo>([&](QObject* c, Callback<BanInfo> done) {
            m_core.moderation().ban(request, c, done);
        }));
        // A foreign action (no policy) only a SCAN of the user's prefix can find.
        QVERIFY(m_core.inspect(
            {"SET", m_core.schema().stateKey("erin", "legacy", Algorithm::FixedWindow, 1000),
             "1"}));
        const Subjects subjects(m_core.client(), m_core.schema());
        auto found =
            await<std::vector<Subject>>([&](QObject* c, Callback<std::vector<Subject>> done) {
                subjects.user("erin", false, c, done);
            });
        QVERIFY(found);
        std::set<QByteArray> actions;
        for (const Subject& s : *found)
            actions.insert(s.action);
        QCOMPARE(actions, (std::set<QByteArray>{QByteArray(), QByteArray("like")}));
        for (const Subject& s : *found)
            QVERIFY(s.userBan.has_value());
        auto foreign =
            await<std::vector<Subject>>([&](QObject* c, Callback<std::vector<Subject>> done) {
                subjects.foreignActions("erin", 100000, c, done);
            });
        QVERIFY(foreign);
        QCOMPARE(foreign->size(), size_t(1));
        QCOMPARE(foreign->front().action, QByteArray("legacy"));
        QVERIFY(!foreign->front().hasPolicy);
    }
};

QTEST_GUILESS_MAIN(tst_SubjectEnumeration)
#include "tst_SubjectEnumeration.moc"
