// hit.lua's short form (lua/README.md: plain policies, the ids only in the keys) against its full
// form, beyond the random sequences of tst_HitDifferential: every well-formed spelling answers and
// writes as the frozen reference does with the full form (through tests/reference/differential.lua),
// and every malformed one is TG_INVALID with nothing written, as the full form it stands for is
// in both scripts.
#include "tests/support/HitDifferential.h"
#include "tests/support/TestEnv.h"

#include <QtTest>
#include <tuple>

using tollgate::test::DifferentialOutcome;
using tollgate::test::HitDifferential;
using tollgate::test::RedisServer;
using Step = tollgate::test::DifferentialStep;

namespace {

const QList<QByteArray>& kAlgorithms = tollgate::test::kHitAlgorithms;
const QList<QByteArray>& kCodes = tollgate::test::kHitCodes;

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

} // namespace

class HitShortFormTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void shortFormMatchesFullForm_data();
    void shortFormMatchesFullForm();
    void shortFormRefusesMalformed_data();
    void shortFormRefusesMalformed();

private:
    RedisServer m_redis;
    HitDifferential m_scripts;
};

void HitShortFormTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    const QByteArray failure = m_scripts.load(m_redis);
    QVERIFY2(failure.isEmpty(), failure.constData());
}

// The short form's well-formed spellings through the wrapper ("hit_short"): the reference gets the
// full form with the raw ids, lua/hit.lua the short form with only the escaped ones in the keys.
// Three hits (2 per minute: ok, ok, deny) must agree in reply and state; the first must go the
// way `path` says (escaped ids, non-canonical numbers and several windows leave the fast path).
void HitShortFormTest::shortFormMatchesFullForm_data()
{
    QTest::addColumn<QByteArray>("prefix");
    QTest::addColumn<QByteArray>("user");       // raw
    QTest::addColumn<QByteArray>("userKey");    // as the keys spell it
    QTest::addColumn<QByteArray>("action");
    QTest::addColumn<QByteArray>("actionKey");
    QTest::addColumn<int>("algorithm");
    QTest::addColumn<QByteArray>("mode");
    QTest::addColumn<QByteArray>("cost");       // spelled
    QTest::addColumn<QByteArray>("limit");      // of the first window (60 s), spelled
    QTest::addColumn<QByteArray>("window");     // spelled; its key says 60000
    QTest::addColumn<bool>("second");           // a second window, 3 per second
    QTest::addColumn<QByteArray>("path");
    const QByteArray longId(1024, 'i');
    for (int a = 0; a < kAlgorithms.size(); ++a) {
        auto row = [&](const char* name, const QByteArray& prefix, const QByteArray& user, const QByteArray& userKey,
                       const QByteArray& action, const QByteArray& actionKey, const QByteArray& mode,
                       const QByteArray& cost, const QByteArray& limit, const QByteArray& window, bool second,
                       const QByteArray& path) {
            QTest::addRow("%s: %s", kCodes[a].constData(), name) << prefix << user << userKey << action << actionKey
                                                                 << a << mode << cost << limit << window << second << path;
        };
        row("plain ids", "tgR:", "u1", "u1", "like", "like", "hit", "1", "2", "60000", false, "fast");
        row("user of 1024 bytes", "tgR:", longId, longId, "like", "like", "hit", "1", "2", "60000", false, "fast");
        row("action of 1024 bytes", "tgR:", "u1", "u1", longId, longId, "hit", "1", "2", "60000", false, "fast");
        row("a space and a brace in the prefix", "tgR:a b}:", "u1", "u1", "like", "like", "hit", "1", "2", "60000",
            false, "fast");
        row("escaped user", "tgR:", "a:b", "a%3Ab", "like", "like", "hit", "1", "2", "60000", false, "slow");
        row("escaped action", "tgR:", "u1", "u1", "up load", "up%20load", "hit", "1", "2", "60000", false, "slow");
        row("UTF-8 user", "tgR:", "Zo\xc3\xab", "Zo\xc3\xab", "like", "like", "hit", "1", "2", "60000", false, "slow");
        row("UTF-8 action", "tgR:", "u1", "u1", "\xe2\x82\xac", "\xe2\x82\xac", "hit", "1", "2", "60000", false, "slow");
        row("user %", "tgR:", "%", "%25", "like", "like", "hit", "1", "2", "60000", false, "slow");
        row("user %41 (not A)", "tgR:", "%41", "%2541", "like", "like", "hit", "1", "2", "60000", false, "slow");
        row("user with a brace", "tgR:", "{u}", "%7Bu%7D", "like", "like", "hit", "1", "2", "60000", false, "slow");
        row("cost 01", "tgR:", "u1", "u1", "like", "like", "hit", "01", "2", "60000", false, "slow");
        row("limit 002", "tgR:", "u1", "u1", "like", "like", "hit", "1", "002", "60000", false, "slow");
        row("window 060000", "tgR:", "u1", "u1", "like", "like", "hit", "1", "2", "060000", false, "slow");
        row("two windows", "tgR:", "u1", "u1", "like", "like", "hit", "1", "2", "60000", true, "slow");
        row("two windows, escaped ids", "tgR:", "a:b", "a%3Ab", "up load", "up%20load", "hit", "1", "2", "60000",
            true, "slow");
        row("peek", "tgR:", "u1", "u1", "like", "like", "peek", "1", "2", "60000", false, "slow");
    }
}

void HitShortFormTest::shortFormMatchesFullForm()
{
    QFETCH(QByteArray, prefix);
    QFETCH(QByteArray, user);
    QFETCH(QByteArray, userKey);
    QFETCH(QByteArray, action);
    QFETCH(QByteArray, actionKey);
    QFETCH(int, algorithm);
    QFETCH(QByteArray, mode);
    QFETCH(QByteArray, cost);
    QFETCH(QByteArray, limit);
    QFETCH(QByteArray, window);
    QFETCH(bool, second);
    QFETCH(QByteArray, path);
    const QByteArray base = prefix + "{" + userKey + "}:", state = base + actionKey + ":" + kCodes[algorithm] + ":";
    Step hit;
    hit.operation = "hit_short";
    hit.keys << base + "ban" << base + actionKey + ":ban" << base + "audit" << prefix + "audit" << state + "60000";
    hit.args << mode << kAlgorithms[algorithm] << cost << "0" << "0" << "0" << "" << "0" << user << action << ""
             << "first_hit" << limit << window;
    if (second) {
        hit.keys << state + "1000";
        hit.args << "3" << "1000";
    }
    const QList<QByteArray> compared = hit.keys;
    const Step clear{compared, "raw", {"DEL"}};
    QCOMPARE(m_scripts.run(m_redis, clear, compared).difference, QByteArray());
    for (int i = 0; i < 3; ++i) {
        const DifferentialOutcome outcome = m_scripts.run(m_redis, hit, compared);
        QVERIFY2(outcome.difference.isEmpty(),
                 qPrintable(QStringLiteral("hit %1: %2").arg(i).arg(QString::fromUtf8(outcome.difference))));
        if (i == 0)
            QCOMPARE(outcome.path, path);
    }
    QCOMPARE(m_scripts.run(m_redis, clear, compared).difference, QByteArray());
}

// Short forms the contract refuses, sent straight to lua/hit.lua: each must be TG_INVALID and
// write nothing, on the fast path's single check (one window) as on the general path's (two),
// and so must the full form it stands for (raw ids given), in lua/hit.lua and in the reference.
// The ids are only in the keys, so the keys carry most of it: a non-canonical escape, an id the
// escaping would spell otherwise, keys of another user, action, window, algorithm or prefix.
void HitShortFormTest::shortFormRefusesMalformed_data()
{
    QTest::addColumn<QList<QByteArray>>("keys");
    QTest::addColumn<QList<QByteArray>>("args");
    QTest::addColumn<QByteArray>("user"); // the raw ids of the full form
    QTest::addColumn<QByteArray>("action");
    const QByteArray longId(1025, 'i');
    for (int a = 0; a < kAlgorithms.size(); ++a) {
        const QByteArray code = kCodes[a], other = kCodes[(a + 1) % kCodes.size()], alg = kAlgorithms[a];
        for (int n = 1; n <= 2; ++n) {
            // The keys of a prefix and ids (as keys spell them), the first window's key saying `digits`
            auto keysOf = [&](const QByteArray& prefix, const QByteArray& user, const QByteArray& action,
                              const QByteArray& stateCode = {}, const QByteArray& digits = "60000") {
                const QByteArray base = prefix + "{" + user + "}:";
                QList<QByteArray> keys{base + "ban", base + action + ":ban", base + "overrides",
                                       base + action + ":" + (stateCode.isEmpty() ? code : stateCode) + ":" + digits};
                if (n == 2)
                    keys << base + action + ":" + code + ":1000";
                return keys;
            };
            auto argsOf = [&](const QByteArray& cost = "1", const QByteArray& limit = "5",
                              const QByteArray& window = "60000") {
                QList<QByteArray> args{"hit", alg, cost, limit, window};
                if (n == 2)
                    args << "5" << "1000";
                return args;
            };
            const QList<QByteArray> keys = keysOf("tgM:", "u1", "like");
            const QList<QByteArray> args = argsOf();
            auto row = [&](const char* name, const QList<QByteArray>& k, const QList<QByteArray>& v,
                           const QByteArray& user = "u1", const QByteArray& action = "like") {
                QTest::addRow("%s, %d window%s: %s", code.constData(), n, n == 1 ? "" : "s", name) << k << v << user << action;
            };
            // ids the escaping spells otherwise (the raw id is what the full form would get)
            row("user escaped in lower case", keysOf("tgM:", "a%3ab", "like"), args, "a:b");
            row("action escaped in lower case", keysOf("tgM:", "u1", "x%3ay"), args, "u1", "x:y");
            row("plain bytes escaped", keysOf("tgM:", "%75%31", "like"), args, "u1");
            row("UTF-8 escaped", keysOf("tgM:", "Zo%C3%AB", "like"), args, "Zo\xc3\xab");
            row("a colon not escaped", keysOf("tgM:", "a:b", "like"), args, "a:b");
            row("a space not escaped", keysOf("tgM:", "u1", "up load"), args, "u1", "up load");
            row("cut UTF-8 not escaped", keysOf("tgM:", "Zo\xc3", "like"), args, "Zo\xc3");
            row("a % not escaped", keysOf("tgM:", "50%", "like"), args, "50%");
            row("a % before non-hex", keysOf("tgM:", "50%zz", "like"), args, "50%zz");
            row("braces not escaped", keysOf("tgM:", "{u1}", "like"), args, "{u1}");
            row("empty user", keysOf("tgM:", "", "like"), args, "");
            row("empty action", keysOf("tgM:", "u1", ""), args, "u1", "");
            row("user of 1025 bytes", keysOf("tgM:", longId, "like"), args, longId);
            row("action of 1025 bytes", keysOf("tgM:", "u1", longId), args, "u1", longId);
            // keys that are not this hit's
            QList<QByteArray> k = keys;
            k[1] = "tgM:{u2}:like:ban";
            row("action ban of another user", k, args);
            k = keys;
            k[2] = "tgM:{u2}:overrides";
            row("overrides of another user", k, args);
            k = keys;
            k[2] = "tgM:{u1}:override";
            row("overrides misspelt", k, args);
            k = keys;
            k[2] = "tgM:{u1}:overrides " + keys[3];
            row("overrides key holding the state key", k, args);
            k = keys;
            k[2] = "tgM:{u1}:overrides tgM:{u1}:";
            row("overrides key holding the head", k, args);
            k = keys;
            k[3] = "tgM:{u2}:like:" + code + ":60000";
            row("state key of another user", k, args);
            k = keys;
            k[3] = "tgM:{u1}:other:" + code + ":60000";
            row("state key of another action", k, args);
            row("state key of another window", keysOf("tgM:", "u1", "like", code, "30000"), args);
            row("state key of another algorithm", keysOf("tgM:", "u1", "like", other), args);
            row("state key with a leading zero", keysOf("tgM:", "u1", "like", code, "060000"), args);
            row("leading zero in key and argument", keysOf("tgM:", "u1", "like", code, "060000"),
                argsOf("1", "5", "060000"));
            k = keys;
            k[0] = "tgMx:{u1}:ban";
            row("user ban of another prefix", k, args);
            k = keys;
            k[0] = "tgM:{u1}:audit";
            row("user ban is the audit key", k, args);
            k = keys;
            k[1] = "tgM:{u1}:like:bans";
            row("action ban misspelt", k, args);
            k = keys;
            k[1] = k[0];
            row("action ban is the user ban", k, args);
            row("prefix holding {", keysOf("tgM{:", "u1", "like"), args);
            row("prefix without a colon", keysOf("tgM", "u1", "like"), args);
            row("prefix of one byte", keysOf(":", "u1", "like"), args);
            row("no prefix", keysOf("", "u1", "like"), args);
            // numbers out of range or not spelled as integers
            for (const QByteArray cost : {"0", "-1", "-0", "+1", " 1", "1e3", "2.5", "abc", "", "1000000001",
                                          "99999999999999999"})
                row(QByteArray("cost \"" + cost + "\"").constData(), keys, argsOf(cost));
            for (const QByteArray limit : {"0", "-5", "abc", "", "1000000001"})
                row(QByteArray("limit \"" + limit + "\"").constData(), keys, argsOf("1", limit));
            if (a == 1)
                row("limit past the log's 100000", keys, argsOf("1", "100001"));
            if (a == 3)
                row("limit past one per microsecond", keysOf("tgM:", "u1", "like", code, "1"), argsOf("1", "1001", "1"));
            for (const QByteArray window : {"0", "-60000", "abc", "31536000001"})
                row(QByteArray("window \"" + window + "\"").constData(), keysOf("tgM:", "u1", "like", code, window),
                    argsOf("1", "5", window));
            QList<QByteArray> v = args;
            v[0] = "x";
            row("mode x", keys, v);
            v[0] = "";
            row("mode empty", keys, v);
            v = args;
            v[1] = "leaky_bucket";
            row("algorithm unknown", keys, v);
            // keys or arguments missing or too many
            row("no action ban", keys.mid(0, 1) + keys.mid(2), args);
            row("no state key", keys.mid(0, 3), args);
            row("one state key missing", keys.mid(0, keys.size() - 1), args);
            row("one key too many", keys + QList<QByteArray>{"tgM:{u1}:like:" + code + ":30000"}, args);
            row("the audit key too", keys.mid(0, 3) + QList<QByteArray>{"tgM:{u1}:audit"} + keys.mid(3), args);
            row("one argument too many", keys, args + QList<QByteArray>{"5"});
            row("one argument missing", keys, args.mid(0, args.size() - 1));
            row("no windows", keys.mid(0, 3), args.mid(0, 3));
            if (n == 2) {
                k = keysOf("tgM:", "u1", "like");
                k[4] = k[3];
                v = args;
                v[6] = "60000";
                row("a window twice", k, v);
            }
        }
        // more windows than the 8 a hit takes
        QList<QByteArray> keys{"tgM:{u1}:ban", "tgM:{u1}:like:ban", "tgM:{u1}:overrides"}, args{"hit", alg, "1"};
        for (int i = 1; i <= 9; ++i) {
            keys << "tgM:{u1}:like:" + code + ":" + num(i * 1000);
            args << "5" << num(i * 1000);
        }
        QTest::addRow("%s: 9 windows", code.constData()) << keys << args << QByteArray("u1") << QByteArray("like");
    }
}

void HitShortFormTest::shortFormRefusesMalformed()
{
    QFETCH(QList<QByteArray>, keys);
    QFETCH(QList<QByteArray>, args);
    QFETCH(QByteArray, user);
    QFETCH(QByteArray, action);
    // The full form it stands for: the user's audit key (named after the user ban's), no global
    // one, a plain policy's arguments and the raw ids; the reference's (script contract 2) without
    // the overrides key.
    const QByteArray userBan = keys.value(0);
    const QByteArray audit =
        userBan.endsWith("ban") ? QByteArray(userBan.chopped(3) + "audit") : QByteArray(userBan + ":audit");
    QList<QByteArray> fullKeys = keys.mid(0, 3);
    fullKeys << audit << "";
    fullKeys += keys.mid(3);
    QList<QByteArray> referenceKeys = keys.mid(0, 2);
    referenceKeys << audit << "";
    referenceKeys += keys.mid(3);
    QList<QByteArray> fullArgs = args.mid(0, 3);
    fullArgs << "0" << "0" << "0" << "" << "0" << user << action << "" << "first_hit";
    fullArgs += args.mid(3);
    // Every key either form names (and any key under the test's prefix) must still be absent
    // afterwards; what is found is deleted, so one failure does not spill into the next row.
    QList<QByteArray> named = keys + fullKeys + referenceKeys;
    named.removeAll(QByteArray());
    const QByteArray leftovers =
        "local found = redis.call('KEYS', '*tgM*')\n"
        "for _, key in ipairs(ARGV) do if redis.call('EXISTS', key) == 1 then found[#found + 1] = key end end\n"
        "for _, key in ipairs(found) do redis.call('DEL', key) end\n"
        "return found";
    QCOMPARE(m_redis.command(QList<QByteArray>{"EVAL", leftovers, "0"} + named), QByteArray("*0\r\n"));
    const QList<std::tuple<const char*, QByteArray, QList<QByteArray>, QList<QByteArray>>> forms{
        {"short form", m_scripts.candidateSha(), keys, args},
        {"full form", m_scripts.candidateSha(), fullKeys, fullArgs},
        {"full form (reference)", m_scripts.referenceSha(), referenceKeys, fullArgs}};
    for (const auto& [form, sha, k, v] : forms) {
        // the reference (contract 2) has no overrides key to find fault with
        if (sha == m_scripts.referenceSha() && keys.value(2) != userBan.chopped(3) + "overrides")
            continue;
        // (RESP on one line in a failure message)
        const QByteArray reply =
            m_redis.command(QList<QByteArray>{"EVALSHA", sha, num(k.size())} + k + v).replace("\r\n", " ");
        const QByteArray found = m_redis.command(QList<QByteArray>{"EVAL", leftovers, "0"} + named).replace("\r\n", " ");
        QVERIFY2(reply.startsWith("-TG_INVALID "), QByteArray(QByteArray(form) + " replied " + reply.left(300)).constData());
        QVERIFY2(found == "*0 ", QByteArray(QByteArray(form) + " wrote " + found.left(300)).constData());
    }
}

QTEST_GUILESS_MAIN(HitShortFormTest)
#include "tst_HitShortForm.moc"
