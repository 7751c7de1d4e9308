// SubjectReader's raw reads, written as one pipeline straight from the key parts, against a real
// redis-server: ids with any bytes read the keys hit.lua wrote (the raw figures equal the
// peek's), bans and wrong key types land on their own row only, and a server that goes away
// mid-read still answers every row, once.
#include "core/subjects/SubjectReader.h"
#include "tests/support/CoreFixture.h"
#include "tollgate/Subjects.h"

using namespace tollgate;
using namespace tollgate::test;

namespace {

// Ids that must survive escaping, key building and the pipeline byte for byte.
const QList<QByteArray>& oddIds()
{
    static const QList<QByteArray> ids{"zoë 😀 ユーザー",
                                       "with  spaces ",
                                       "a:b:c",
                                       "{brace}}",
                                       "*",
                                       "?[x]*",
                                       "new\nline",
                                       "cr\r\nlf$3\r\n",
                                       "100%41",
                                       QByteArray("nul\0byte", 8),
                                       QByteArray(KeySchema::kMaxIdBytes, 'x')};
    return ids;
}

const Subject* find(const std::vector<Subject>& subjects, const QByteArray& user,
                    const QByteArray& action)
{
    for (const Subject& s : subjects)
        if (s.user == user && s.action == action)
            return &s;
    return nullptr;
}

} // namespace

class tst_SubjectReader : public QObject
{
    Q_OBJECT

private:
    Result<std::vector<Subject>> read(const std::vector<SubjectKey>& keys, bool peek)
    {
        const Subjects subjects(m_core.client(), m_core.schema());
        return await<std::vector<Subject>>(
            [&](QObject* context, Callback<std::vector<Subject>> done) {
                subjects.read(keys, peek, context, done);
            },
            30000);
    }

    std::vector<SubjectKey> keysOf(const QByteArray& action)
    {
        std::vector<SubjectKey> keys;
        for (const QByteArray& id : oddIds())
            keys.push_back({id, action});
        return keys;
    }

    CoreFixture m_core;

private Q_SLOTS:
    void initTestCase() { TOLLGATE_REQUIRE(m_core, start()); }
    void init() { TOLLGATE_REQUIRE(m_core, restartAndFlush()); } // one test kills the server

    void oddIdsReadRawAsThePeekSeesThem()
    {
        Policy like = makePolicy("like", 10, 60000); // above every count below
        like.windows.push_back({50, 3'600'000});     // two windows: two GET + PTTL pairs per row
        QVERIFY(m_core.save(like));
        for (int i = 0; i < oddIds().size(); ++i)
            for (int hit = 0; hit <= i % 7; ++hit)
                QVERIFY(m_core.hit(like, oddIds()[i]));
        auto raw = read(keysOf("like"), false);
        auto peeked = read(keysOf("like"), true);
        QVERIFY2(raw && peeked, qPrintable(raw ? QString() : raw.error().toString()));
        QCOMPARE(raw->size(), size_t(oddIds().size()));
        for (int i = 0; i < oddIds().size(); ++i) {
            const Subject& s = (*raw)[size_t(i)];
            const Subject& p = (*peeked)[size_t(i)];
            QCOMPARE(s.user, oddIds()[i]); // in the order asked
            QVERIFY2(s.stateKnown && s.error.isEmpty(), qPrintable(s.error));
            QCOMPARE(s.state.count, qint64(i % 7 + 1));
            QCOMPARE(s.state.count, p.state.count);
            QCOMPARE(s.state.remaining, p.state.remaining);
            QCOMPARE(s.state.tier, p.state.tier);
            QVERIFY(!s.banned());
        }
        // The enumeration finds every one of them by SCAN and reads the same.
        const Subjects subjects(m_core.client(), m_core.schema());
        auto listed = await<SubjectList>(
            [&](QObject* context, Callback<SubjectList> done) { subjects.list({}, context, done); },
            30000);
        QVERIFY(listed);
        QCOMPARE(listed->subjects.size(), size_t(oddIds().size()));
        for (int i = 0; i < oddIds().size(); ++i) {
            const Subject* s = find(listed->subjects, oddIds()[i], "like");
            QVERIFY2(s && s->stateKnown, oddIds()[i].left(40).constData());
            QCOMPARE(s->state.count, qint64(i % 7 + 1));
        }
    }

    void bansAndWrongTypesLandOnTheirOwnRow()
    {
        QVERIFY(m_core.save(makePolicy("like", 5, 60000)));
        for (const QByteArray& id : oddIds())
            QVERIFY(m_core.hit(makePolicy("like", 5, 60000), id));
        const KeySchema& schema = m_core.schema();
        const QByteArray actionBanned = oddIds()[1], userBanned = oddIds()[6];
        const QByteArray wrongCounter = oddIds()[3], wrongBan = oddIds()[8];
        QVERIFY(m_core.inspect({"HSET", schema.actionBanKey(actionBanned, "like"), "until_ms", "0",
                                "reason", "r", "actor", "a", "source", "manual"}));
        QVERIFY(m_core.inspect({"HSET", schema.userBanKey(userBanned), "until_ms", "0", "reason",
                                "r", "actor", "a", "source", "manual"}));
        const QByteArray counter =
            schema.stateKey(wrongCounter, "like", Algorithm::FixedWindow, 60000);
        QVERIFY(m_core.inspect({"DEL", counter}));
        QVERIFY(m_core.inspect({"HSET", counter, "not", "a counter"}));
        QVERIFY(m_core.inspect({"SET", schema.actionBanKey(wrongBan, "like"), "not a hash"}));

        std::vector<SubjectKey> keys = keysOf("like");
        keys.push_back({userBanned, QByteArray()}); // the user-wide ban's own row
        auto read = this->read(keys, false);
        QVERIFY(read);
        QCOMPARE(read->size(), keys.size());
        for (const Subject& s : *read) {
            const QByteArray name = s.user.left(40);
            if (s.action.isEmpty()) {
                QVERIFY(s.userBan.has_value());
                continue;
            }
            QCOMPARE(s.ban.has_value(), s.user == actionBanned);
            QCOMPARE(s.userBan.has_value(), s.user == userBanned);
            if (s.user == wrongCounter || s.user == wrongBan) {
                QVERIFY2(!s.error.isEmpty(), name.constData());
                const QByteArray key =
                    s.user == wrongCounter ? counter : schema.actionBanKey(wrongBan, "like");
                QVERIFY2(s.error.contains(QString::fromUtf8(key)), qPrintable(s.error));
            } else {
                QVERIFY2(s.error.isEmpty(), qPrintable(s.error));
                QVERIFY(s.stateKnown);
                QCOMPARE(s.state.count, qint64(1));
            }
        }
    }

    void serverGoneMidReadAnswersEveryRowOnce()
    {
        const Policy like = makePolicy("like", 5, 60000);
        QVERIFY(m_core.save(like));
        ConnectionOptions options = m_core.options();
        options.autoReconnect = false;
        auto client = m_core.connect(options);
        QVERIFY2(client, qPrintable(m_core.errorString()));
        PolicyListing listing;
        listing.policies.push_back(like);
        const SubjectReader reader(
            client.get(), m_core.schema(),
            std::make_shared<const PolicyCatalog>(PolicyCatalog::from(listing)));
        std::vector<SubjectKey> keys;
        for (int i = 0; i < 3000; ++i)
            keys.push_back({"u" + QByteArray::number(i), "like"});
        keys.push_back({"u7", QByteArray()});
        // The server holds every reply back, then dies with the reads unanswered.
        QVERIFY(m_core.inspect({"CLIENT", "PAUSE", "10000", "ALL"}));
        QTimer::singleShot(300, [this] { m_core.server().kill(); });
        QObject context;
        std::vector<Subject> rows;
        int deliveries = 0;
        reader.read(keys, SubjectReader::Mode::Raw, [&](std::vector<Subject> subjects) {
            // The worker thread: hand them to the test's.
            QMetaObject::invokeMethod(&context, [&, subjects = std::move(subjects)]() mutable {
                ++deliveries;
                rows = std::move(subjects);
            });
        });
        QTRY_COMPARE_WITH_TIMEOUT(deliveries, 1, 20000);
        QCOMPARE(rows.size(), keys.size());
        for (const Subject& s : rows) {
            QVERIFY(!s.stateKnown);
            QVERIFY2(!s.error.isEmpty(), s.user.constData());
        }
    }
};

QTEST_GUILESS_MAIN(tst_SubjectReader)
#include "tst_SubjectReader.moc"
