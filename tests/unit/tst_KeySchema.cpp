// Pure-function contracts of the key schema: escaping, parsing every kind of key, SCAN patterns
// and id validation. No server needed.

#include "tollgate/KeySchema.h"

#include <QRegularExpression>
#include <QtTest>

using namespace tollgate;
using Kind = KeySchema::Parsed::Kind;

Q_DECLARE_METATYPE(tollgate::Algorithm)
Q_DECLARE_METATYPE(tollgate::KeySchema::Parsed::Kind)

namespace {

// Redis' glob semantics (stringmatchlen) for the pattern characters a SCAN pattern may hold,
// written independently so the test does not trust the code under test.
bool globMatch(const QByteArray& pattern, const QByteArray& text)
{
    QString rx;
    for (int i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '*')
            rx += QStringLiteral(".*");
        else if (c == '?')
            rx += QLatin1Char('.');
        else
            rx += QRegularExpression::escape(QString(QLatin1Char(c)));
    }
    // Latin-1 keeps one char per byte, so '.' matches exactly one byte as in Redis.
    const QRegularExpression re(QRegularExpression::anchoredPattern(rx),
                                QRegularExpression::DotMatchesEverythingOption);
    return re.match(QString::fromLatin1(text)).hasMatch();
}

bool hasGlobOrSeparator(const QByteArray& escaped)
{
    for (char c : escaped) {
        if (c == ':' || c == '{' || c == '}' || c == '*' || c == '?' || c == '[' || c == ']' ||
            c == '\\' || c == ' ' || c == '\n' || c == '\0')
            return true;
    }
    return false;
}

} // namespace

class KeySchemaTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void escapeRoundTrip_data();
    void escapeRoundTrip();
    void unescapeRejectsForeign_data();
    void unescapeRejectsForeign();
    void parseEveryKind_data();
    void parseEveryKind();
    void parseForeignKeys_data();
    void parseForeignKeys();
    void customPrefix();
    void scanPatternsDoNotCrossUsers_data();
    void scanPatternsDoNotCrossUsers();
    void validateId_data();
    void validateId();
};

void KeySchemaTest::escapeRoundTrip_data()
{
    QTest::addColumn<QByteArray>("id");
    QTest::newRow("plain") << QByteArray("user42");
    QTest::newRow("unicode") << QStringLiteral("Zoë 東京 🚀").toUtf8();
    QTest::newRow("spaces") << QByteArray("  two  spaces ");
    QTest::newRow("colon") << QByteArray("a:b:c");
    QTest::newRow("braces") << QByteArray("{evil}");
    QTest::newRow("glob") << QByteArray("a*b?c[d]e\\");
    QTest::newRow("newline") << QByteArray("line1\nline2\r\n");
    QTest::newRow("percent") << QByteArray("100%25%");
    QTest::newRow("nul bytes") << QByteArray("a\0b\0", 4);
    QTest::newRow("only nul") << QByteArray(1, '\0');
    QTest::newRow("every byte") << [] {
        QByteArray all;
        for (int i = 0; i < 256; ++i)
            all += static_cast<char>(i);
        return all;
    }();
    QTest::newRow("looks escaped") << QByteArray("%3A");
    QTest::newRow("lone 0xff") << QByteArray("\xff");
    QTest::newRow("truncated utf-8") << QByteArray("ab\xe6\x9d");
    QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80");
}

void KeySchemaTest::escapeRoundTrip()
{
    QFETCH(QByteArray, id);
    const QByteArray escaped = KeySchema::escape(id);
    QVERIFY2(!hasGlobOrSeparator(escaped), escaped.constData());
    const auto back = KeySchema::unescape(escaped);
    QVERIFY(back.has_value());
    QCOMPARE(*back, id);

    // And through whole keys: the parsed user and action are the raw ids.
    const KeySchema schema;
    const auto state = schema.parse(schema.stateKey(id, id, Algorithm::SlidingLog, 1000));
    QCOMPARE(state.kind, Kind::State);
    QCOMPARE(state.user, id);
    QCOMPARE(state.action, id);
    const auto ban = schema.parse(schema.actionBanKey(id, id));
    QCOMPARE(ban.kind, Kind::ActionBan);
    QCOMPARE(ban.user, id);
    QCOMPARE(ban.action, id);
}

void KeySchemaTest::unescapeRejectsForeign_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("raw colon") << QByteArray("a:b");
    QTest::newRow("raw star") << QByteArray("a*");
    QTest::newRow("truncated escape") << QByteArray("a%3");
    QTest::newRow("lower-case hex") << QByteArray("%3a");
    QTest::newRow("non-hex") << QByteArray("%ZZ");
    QTest::newRow("raw space") << QByteArray("a b");
}

void KeySchemaTest::unescapeRejectsForeign()
{
    QFETCH(QByteArray, text);
    QVERIFY(!KeySchema::unescape(text).has_value());
}

void KeySchemaTest::parseEveryKind_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<Kind>("kind");
    QTest::addColumn<QByteArray>("user");
    QTest::addColumn<QByteArray>("action");
    QTest::addColumn<Algorithm>("algorithm");
    QTest::addColumn<qint64>("windowMs");

    const KeySchema s;
    const QByteArray u("u:{1}*");
    const QByteArray a("act ion");
    QTest::newRow("fixed window") << s.stateKey(u, a, Algorithm::FixedWindow, 30000) << Kind::State
                                  << u << a << Algorithm::FixedWindow << qint64(30000);
    QTest::newRow("sliding log") << s.stateKey(u, a, Algorithm::SlidingLog, 1) << Kind::State << u
                                 << a << Algorithm::SlidingLog << qint64(1);
    QTest::newRow("sliding window")
        << s.stateKey(u, a, Algorithm::SlidingWindow, 60000) << Kind::State << u << a
        << Algorithm::SlidingWindow << qint64(60000);
    QTest::newRow("token bucket") << s.stateKey(u, a, Algorithm::TokenBucket, 3600000)
                                  << Kind::State << u << a << Algorithm::TokenBucket
                                  << qint64(3600000);
    QTest::newRow("action ban") << s.actionBanKey(u, a) << Kind::ActionBan << u << a
                                << Algorithm::FixedWindow << qint64(0);
    QTest::newRow("user ban") << s.userBanKey(u) << Kind::UserBan << u << QByteArray()
                              << Algorithm::FixedWindow << qint64(0);
    QTest::newRow("user audit") << s.userAuditKey(u) << Kind::UserAudit << u << QByteArray()
                                << Algorithm::FixedWindow << qint64(0);
    QTest::newRow("overrides") << s.overridesKey(u) << Kind::Overrides << u << QByteArray()
                               << Algorithm::FixedWindow << qint64(0);
    QTest::newRow("override index") << s.overrideIndexKey() << Kind::OverrideIndex << QByteArray()
                                    << QByteArray() << Algorithm::FixedWindow << qint64(0);
    QTest::newRow("cluster override index")
        << s.overrideIndexKey(true) << Kind::OverrideIndex << QByteArray() << QByteArray()
        << Algorithm::FixedWindow << qint64(0);
    QTest::newRow("action named overrides")
        << s.stateKey(u, "overrides", Algorithm::FixedWindow, 5) << Kind::State << u
        << QByteArray("overrides") << Algorithm::FixedWindow << qint64(5);
    QTest::newRow("policy") << s.policyKey(a) << Kind::Policy << QByteArray() << a
                            << Algorithm::FixedWindow << qint64(0);
    QTest::newRow("policy history") << s.policyHistoryKey(a) << Kind::PolicyHistory << QByteArray()
                                    << a << Algorithm::FixedWindow << qint64(0);
    // The history of an action named "x:history" is no policy hash, and the reverse.
    QTest::newRow("policy named history")
        << s.policyKey("x:history") << Kind::Policy << QByteArray() << QByteArray("x:history")
        << Algorithm::FixedWindow << qint64(0);
    QTest::newRow("stats") << s.statsKey(a) << Kind::Stats << QByteArray() << a
                           << Algorithm::FixedWindow << qint64(0);
    QTest::newRow("global audit") << s.auditKey() << Kind::Audit << QByteArray() << QByteArray()
                                  << Algorithm::FixedWindow << qint64(0);
    // An action literally called "ban" or "audit" must not be mistaken for the user-wide keys.
    QTest::newRow("action named ban")
        << s.stateKey(u, "ban", Algorithm::FixedWindow, 5) << Kind::State << u << QByteArray("ban")
        << Algorithm::FixedWindow << qint64(5);
    QTest::newRow("ban of action named audit")
        << s.actionBanKey(u, "audit") << Kind::ActionBan << u << QByteArray("audit")
        << Algorithm::FixedWindow << qint64(0);
}

void KeySchemaTest::parseEveryKind()
{
    QFETCH(QByteArray, key);
    QFETCH(Kind, kind);
    QFETCH(QByteArray, user);
    QFETCH(QByteArray, action);
    QFETCH(Algorithm, algorithm);
    QFETCH(qint64, windowMs);

    const auto parsed = KeySchema().parse(key);
    QCOMPARE(parsed.kind, kind);
    QCOMPARE(parsed.user, user);
    QCOMPARE(parsed.action, action);
    if (kind == Kind::State) {
        QCOMPARE(parsed.algorithm, algorithm);
        QCOMPARE(parsed.windowMs, windowMs);
    }
}

void KeySchemaTest::parseForeignKeys_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::newRow("other prefix") << QByteArray("act:limit:like:42");
    QTest::newRow("prefix look-alike") << QByteArray("tgx:{u}:ban");
    QTest::newRow("no brace") << QByteArray("tg:u:ban");
    QTest::newRow("unclosed brace") << QByteArray("tg:{u:ban");
    QTest::newRow("raw glob in user") << QByteArray("tg:{a*}:ban");
    QTest::newRow("empty user") << QByteArray("tg:{}:ban");
    QTest::newRow("unknown algorithm") << QByteArray("tg:{u}:like:xx:1000");
    QTest::newRow("window not a number") << QByteArray("tg:{u}:like:fw:ten");
    QTest::newRow("window zero") << QByteArray("tg:{u}:like:fw:0");
    QTest::newRow("too many parts") << QByteArray("tg:{u}:like:fw:1000:x");
    QTest::newRow("unknown suffix") << QByteArray("tg:{u}:like:bans");
    QTest::newRow("empty policy") << QByteArray("tg:policy:");
    // The tollgated registry is no user's and no policy's: scans of <p>:{* pass it over.
    QTest::newRow("service registry") << KeySchema().servicesKey();
    QTest::newRow("service last-seen") << KeySchema().servicesSeenKey();
}

void KeySchemaTest::parseForeignKeys()
{
    QFETCH(QByteArray, key);
    QCOMPARE(KeySchema().parse(key).kind, Kind::Foreign);
}

void KeySchemaTest::customPrefix()
{
    const KeySchema schema("app1:rl");
    const QByteArray key = schema.stateKey("42", "like", Algorithm::FixedWindow, 10000);
    QVERIFY(key.startsWith("app1:rl:{42}:"));
    QCOMPARE(schema.parse(key).kind, Kind::State);
    QCOMPARE(KeySchema().parse(key).kind, Kind::Foreign);
    QCOMPARE(schema.parse(KeySchema().userBanKey("42")).kind, Kind::Foreign);
    QCOMPARE(schema.servicesKey(), QByteArray("app1:rl:{:}:services"));
    QCOMPARE(schema.servicesSeenKey(), QByteArray("app1:rl:{:}:services:seen"));
}

void KeySchemaTest::scanPatternsDoNotCrossUsers_data()
{
    QTest::addColumn<QByteArray>("user");
    QTest::addColumn<QByteArray>("other");
    QTest::newRow("a* vs ab") << QByteArray("a*") << QByteArray("ab");
    QTest::newRow("a? vs ab") << QByteArray("a?") << QByteArray("ab");
    QTest::newRow("[ab] vs a") << QByteArray("[ab]") << QByteArray("a");
    QTest::newRow("* vs anyone") << QByteArray("*") << QByteArray("42");
    QTest::newRow("brace injection") << QByteArray("x}:like") << QByteArray("x");
    QTest::newRow("colon prefix") << QByteArray("a") << QByteArray("a:b");
    QTest::newRow("escape look-alike") << QByteArray("%2A") << QByteArray("*");
}

void KeySchemaTest::scanPatternsDoNotCrossUsers()
{
    QFETCH(QByteArray, user);
    QFETCH(QByteArray, other);
    const KeySchema s;
    const QList<QByteArray> otherKeys{s.stateKey(other, "like", Algorithm::FixedWindow, 1000),
                                      s.actionBanKey(other, "like"), s.userBanKey(other),
                                      s.userAuditKey(other)};
    const QList<QByteArray> ownKeys{s.stateKey(user, "like", Algorithm::FixedWindow, 1000),
                                    s.userBanKey(user), s.userAuditKey(user)};
    for (const QByteArray& key : otherKeys) {
        QVERIFY2(!globMatch(s.userPattern(user), key), key.constData());
        QVERIFY2(!globMatch(s.actionPattern(user, "like"), key), key.constData());
        QVERIFY2(globMatch(s.userPattern(other), key), key.constData());
        QVERIFY(globMatch(s.allUsersPattern(), key));
    }
    for (const QByteArray& key : ownKeys) {
        QVERIFY2(globMatch(s.userPattern(user), key), key.constData());
        QVERIFY2(!globMatch(s.userPattern(other), key), key.constData());
    }
    // Both users' keys sit in their own hash tag: the tag is exactly the escaped id.
    const QByteArray key = s.userBanKey(user);
    const int open = key.indexOf('{');
    QCOMPARE(key.mid(open + 1, key.indexOf('}') - open - 1), KeySchema::escape(user));
}

void KeySchemaTest::validateId_data()
{
    QTest::addColumn<QByteArray>("id");
    QTest::addColumn<bool>("valid");
    QTest::newRow("empty") << QByteArray() << false;
    QTest::newRow("one byte") << QByteArray("x") << true;
    QTest::newRow("nul byte") << QByteArray(1, '\0') << true;
    QTest::newRow("1024 bytes") << QByteArray(1024, 'x') << true;
    QTest::newRow("1025 bytes") << QByteArray(1025, 'x') << false;
    QTest::newRow("1 MB") << QByteArray(1 << 20, 'x') << false;
}

void KeySchemaTest::validateId()
{
    QFETCH(QByteArray, id);
    QFETCH(bool, valid);
    const Status status = KeySchema::validateId(id, QStringLiteral("user id"));
    QCOMPARE(status.ok(), valid);
    if (!valid) {
        QCOMPARE(status.error().kind, ErrorKind::InvalidInput);
        QVERIFY2(status.error().message.contains(QStringLiteral("user id")),
                 qPrintable(status.error().message));
    }
}

QTEST_APPLESS_MAIN(KeySchemaTest)
#include "tst_KeySchema.moc"
