// Pure-function contracts of core: the key schema (escaping, parsing, SCAN patterns), durations,
// policy validation and connection URLs. No server needed.

#include "core/limits/Duration.h"
#include "core/limits/KeySchema.h"
#include "core/limits/Policy.h"
#include "core/redis/ConnectionOptions.h"

#include <QRegularExpression>
#include <QTimeZone>
#include <QtTest>

using namespace tollgate;
using Kind = KeySchema::Parsed::Kind;

Q_DECLARE_METATYPE(tollgate::Algorithm)
Q_DECLARE_METATYPE(tollgate::Policy)
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
    void parseDuration_data();
    void parseDuration();
    void formatDuration_data();
    void formatDuration();
    void policyValidate_data();
    void policyValidate();
    void policyFieldsRoundTrip();
    void fromUrl_data();
    void fromUrl();
    void fromUrlRejects_data();
    void fromUrlRejects();
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
    QTest::newRow("sliding window") << s.stateKey(u, a, Algorithm::SlidingWindow, 60000)
                                    << Kind::State << u << a << Algorithm::SlidingWindow
                                    << qint64(60000);
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
    QTest::newRow("cluster override index") << s.overrideIndexKey(true) << Kind::OverrideIndex
                                            << QByteArray() << QByteArray()
                                            << Algorithm::FixedWindow << qint64(0);
    QTest::newRow("action named overrides")
        << s.stateKey(u, "overrides", Algorithm::FixedWindow, 5) << Kind::State << u
        << QByteArray("overrides") << Algorithm::FixedWindow << qint64(5);
    QTest::newRow("policy") << s.policyKey(a) << Kind::Policy << QByteArray() << a
                            << Algorithm::FixedWindow << qint64(0);
    QTest::newRow("stats") << s.statsKey(a) << Kind::Stats << QByteArray() << a
                           << Algorithm::FixedWindow << qint64(0);
    QTest::newRow("global audit") << s.auditKey() << Kind::Audit << QByteArray() << QByteArray()
                                  << Algorithm::FixedWindow << qint64(0);
    // An action literally called "ban" or "audit" must not be mistaken for the user-wide keys.
    QTest::newRow("action named ban") << s.stateKey(u, "ban", Algorithm::FixedWindow, 5)
                                      << Kind::State << u << QByteArray("ban")
                                      << Algorithm::FixedWindow << qint64(5);
    QTest::newRow("ban of action named audit") << s.actionBanKey(u, "audit") << Kind::ActionBan << u
                                               << QByteArray("audit") << Algorithm::FixedWindow
                                               << qint64(0);
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
    const QList<QByteArray> otherKeys{
        s.stateKey(other, "like", Algorithm::FixedWindow, 1000), s.actionBanKey(other, "like"),
        s.userBanKey(other), s.userAuditKey(other)};
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

void KeySchemaTest::parseDuration_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("ms"); // -1 = rejected
    QTest::newRow("1ms") << QStringLiteral("1ms") << qint64(1);
    QTest::newRow("250ms") << QStringLiteral("250ms") << qint64(250);
    QTest::newRow("30s") << QStringLiteral("30s") << qint64(30000);
    QTest::newRow("10m") << QStringLiteral("10m") << qint64(600000);
    QTest::newRow("1h") << QStringLiteral("1h") << qint64(3600000);
    QTest::newRow("1d") << QStringLiteral("1d") << qint64(86400000);
    QTest::newRow("1w") << QStringLiteral("1w") << qint64(604800000);
    QTest::newRow("1h30m") << QStringLiteral("1h30m") << qint64(5400000);
    QTest::newRow("upper case, spaces") << QStringLiteral(" 2H ") << qint64(7200000);
    QTest::newRow("bare number") << QStringLiteral("30") << qint64(-1);
    QTest::newRow("empty") << QString() << qint64(-1);
    QTest::newRow("negative") << QStringLiteral("-5s") << qint64(-1);
    QTest::newRow("unknown unit") << QStringLiteral("5y") << qint64(-1);
    QTest::newRow("trailing junk") << QStringLiteral("5s!") << qint64(-1);
    QTest::newRow("fraction") << QStringLiteral("1.5s") << qint64(-1);
    QTest::newRow("overflow") << QStringLiteral("99999999999999999999d") << qint64(-1);
}

void KeySchemaTest::parseDuration()
{
    QFETCH(QString, text);
    QFETCH(qint64, ms);
    const auto parsed = tollgate::parseDuration(text);
    if (ms < 0) {
        QVERIFY(!parsed);
        QCOMPARE(parsed.error().kind, ErrorKind::InvalidInput);
    } else {
        QVERIFY2(parsed.ok(), parsed ? "" : qPrintable(parsed.error().message));
        QCOMPARE(*parsed, ms);
    }
}

void KeySchemaTest::formatDuration_data()
{
    QTest::addColumn<qint64>("ms");
    QTest::addColumn<QString>("text");
    QTest::newRow("1ms") << qint64(1) << QStringLiteral("1ms");
    QTest::newRow("1500ms") << qint64(1500) << QStringLiteral("1500ms");
    QTest::newRow("30s") << qint64(30000) << QStringLiteral("30s");
    QTest::newRow("1h30m") << qint64(5400000) << QStringLiteral("1h30m");
    QTest::newRow("1d") << qint64(86400000) << QStringLiteral("1d");
    QTest::newRow("8d") << qint64(8 * 86400000LL) << QStringLiteral("1w1d");
}

void KeySchemaTest::formatDuration()
{
    QFETCH(qint64, ms);
    QFETCH(QString, text);
    QCOMPARE(tollgate::formatDuration(ms), text);
    // Every rendering parses back to the same value.
    QCOMPARE(*tollgate::parseDuration(text), ms);
}

void KeySchemaTest::policyValidate_data()
{
    QTest::addColumn<Policy>("policy");
    QTest::addColumn<bool>("valid");

    Policy base;
    base.action = "comment";
    base.windows = {{10, 30000}};
    QTest::newRow("valid") << base << true;

    auto with = [&base](auto change) {
        Policy p = base;
        change(p);
        return p;
    };
    QTest::newRow("limit 0") << with([](Policy& p) { p.windows[0].limit = 0; }) << false;
    QTest::newRow("limit -1") << with([](Policy& p) { p.windows[0].limit = -1; }) << false;
    QTest::newRow("limit absurd") << with([](Policy& p) { p.windows[0].limit = 1LL << 40; }) << false;
    QTest::newRow("window 0") << with([](Policy& p) { p.windows[0].windowMs = 0; }) << false;
    QTest::newRow("window 1ms") << with([](Policy& p) { p.windows[0].windowMs = 1; }) << true;
    QTest::newRow("window 1 year") << with([](Policy& p) { p.windows[0].windowMs = 365 * 86400000LL; })
                                   << true;
    QTest::newRow("window > 1 year")
        << with([](Policy& p) { p.windows[0].windowMs = 365 * 86400000LL + 1; }) << false;
    QTest::newRow("no window") << with([](Policy& p) { p.windows.clear(); }) << false;
    QTest::newRow("empty action") << with([](Policy& p) { p.action.clear(); }) << false;
    QTest::newRow("several windows fixed") << with([](Policy& p) {
        p.windows = {{10, 60000}, {100, 3600000}, {1000, 86400000}};
    }) << true;
    QTest::newRow("several windows sliding_log") << with([](Policy& p) {
        p.algorithm = Algorithm::SlidingLog;
        p.windows = {{10, 60000}, {100, 3600000}};
    }) << true;
    QTest::newRow("several windows token_bucket") << with([](Policy& p) {
        p.algorithm = Algorithm::TokenBucket;
        p.windows = {{10, 60000}, {100, 3600000}};
    }) << true; // several windows work for every algorithm (hit.lua agrees)
    QTest::newRow("nine windows") << with([](Policy& p) {
        p.windows.clear();
        for (qint64 i = 1; i <= 9; ++i)
            p.windows.push_back({10 * i, 1000 * i});
    }) << false;
    QTest::newRow("calendar day") << with([](Policy& p) {
        p.calendarAligned = true;
        p.windows = {{10, 60000}, {100, 86400000}, {500, 7 * 86400000LL}};
    }) << true;
    QTest::newRow("calendar 30s") << with([](Policy& p) {
        p.calendarAligned = true;
        p.windows = {{10, 30000}};
    }) << false;
    QTest::newRow("calendar sliding_log") << with([](Policy& p) {
        p.calendarAligned = true;
        p.algorithm = Algorithm::SlidingLog;
    }) << false;
    QTest::newRow("same window twice") << with([](Policy& p) {
        p.windows = {{10, 60000}, {20, 60000}};
    }) << false;
    QTest::newRow("warn below limit") << with([](Policy& p) { p.warn = 9; }) << true;
    QTest::newRow("warn == limit") << with([](Policy& p) { p.warn = 10; }) << false;
    QTest::newRow("warn > limit") << with([](Policy& p) { p.warn = 11; }) << false;
    QTest::newRow("warn negative") << with([](Policy& p) { p.warn = -1; }) << false;
    QTest::newRow("negative ban") << with([](Policy& p) { p.banMs = -1; }) << false;
    QTest::newRow("absurd ban") << with([](Policy& p) { p.banMs = 100 * 365 * 86400000LL; }) << false;
    QTest::newRow("ban 1h") << with([](Policy& p) { p.banMs = 3600000; }) << true;
    QTest::newRow("ban until midnight") << with([](Policy& p) { p.banUntilMidnight = true; }) << true;
    QTest::newRow("both ban kinds") << with([](Policy& p) {
        p.banMs = 3600000;
        p.banUntilMidnight = true;
    }) << false;
    QTest::newRow("cost 0") << with([](Policy& p) { p.cost = 0; }) << false;
    QTest::newRow("tz Berlin") << with([](Policy& p) { p.timeZone = "Europe/Berlin"; }) << true;
    QTest::newRow("tz unknown") << with([](Policy& p) { p.timeZone = "Mars/Olympus"; }) << false;
    QTest::newRow("tz empty") << with([](Policy& p) { p.timeZone = ""; }) << false;
    QTest::newRow("sliding_log limit too big") << with([](Policy& p) {
        p.algorithm = Algorithm::SlidingLog;
        p.windows[0].limit = Policy::kMaxSlidingLogLimit + 1;
    }) << false;
}

void KeySchemaTest::policyValidate()
{
    QFETCH(Policy, policy);
    QFETCH(bool, valid);
    const Status status = policy.validate();
    QVERIFY2(status.ok() == valid, status ? "accepted" : qPrintable(status.error().message));
    if (!valid) {
        QCOMPARE(status.error().kind, ErrorKind::InvalidInput);
        QVERIFY(!status.error().message.isEmpty());
    }
}

void KeySchemaTest::policyFieldsRoundTrip()
{
    Policy p;
    p.action = "search";
    p.windows = {{10, 60000}, {100, 3600000}};
    p.cost = 2;
    p.warn = 5;
    p.banUntilMidnight = true;
    p.timeZone = "Europe/Berlin";
    p.calendarAligned = true;
    p.countDenied = true;
    p.message = QStringLiteral("slow down, ünïcode");
    const auto back = Policy::fromFields(p.action, p.toFields());
    QVERIFY(back.ok());
    QCOMPARE(back->windows, p.windows);
    QCOMPARE(back->cost, p.cost);
    QCOMPARE(back->warn, p.warn);
    QCOMPARE(back->banUntilMidnight, true);
    QCOMPARE(back->timeZone, p.timeZone);
    QCOMPARE(back->calendarAligned, true);
    // A policy saved before zones had names kept a fixed offset.
    const auto legacy =
        Policy::fromFields("x", {{"windows", "1000:1"}, {"tz_offset_ms", "7200000"}});
    QVERIFY(legacy.ok());
    QCOMPARE(QTimeZone(legacy->timeZone).offsetFromUtc(QDateTime::currentDateTimeUtc()), 7200);
    QVERIFY(legacy->validate().ok());
    QCOMPARE(back->countDenied, true);
    QCOMPARE(back->message, p.message);
}

void KeySchemaTest::fromUrl_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("isUnix");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("socket");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("password");
    QTest::addColumn<int>("db");
    QTest::addColumn<bool>("tls");
    QTest::addColumn<QString>("ca");

    QTest::newRow("defaults") << QStringLiteral("redis://localhost") << false
                              << QStringLiteral("localhost") << 6379 << QString() << QString()
                              << QString() << 0 << false << QString();
    QTest::newRow("user, password, port, db")
        << QStringLiteral("redis://user:pass@host:6380/3") << false << QStringLiteral("host") << 6380
        << QString() << QStringLiteral("user") << QStringLiteral("pass") << 3 << false << QString();
    QTest::newRow("password only") << QStringLiteral("redis://:secret@h") << false
                                   << QStringLiteral("h") << 6379 << QString() << QString()
                                   << QStringLiteral("secret") << 0 << false << QString();
    QTest::newRow("escaped password") << QStringLiteral("redis://u:p%40ss%3Aw@h/1") << false
                                      << QStringLiteral("h") << 6379 << QString()
                                      << QStringLiteral("u") << QStringLiteral("p@ss:w") << 1
                                      << false << QString();
    QTest::newRow("tls with ca") << QStringLiteral("rediss://u:p@redis.example:6390/2?ca=/etc/ca.pem")
                                 << false << QStringLiteral("redis.example") << 6390 << QString()
                                 << QStringLiteral("u") << QStringLiteral("p") << 2 << true
                                 << QStringLiteral("/etc/ca.pem");
    QTest::newRow("unix") << QStringLiteral("unix:///tmp/x.sock") << true << QString() << 0
                          << QStringLiteral("/tmp/x.sock") << QString() << QString() << 0 << false
                          << QString();
    QTest::newRow("unix with db") << QStringLiteral("unix:///tmp/x.sock?db=4") << true << QString()
                                  << 0 << QStringLiteral("/tmp/x.sock") << QString() << QString()
                                  << 4 << false << QString();
}

void KeySchemaTest::fromUrl()
{
    QFETCH(QString, url);
    QFETCH(bool, isUnix);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QString, socket);
    QFETCH(QString, user);
    QFETCH(QString, password);
    QFETCH(int, db);
    QFETCH(bool, tls);
    QFETCH(QString, ca);

    const auto options = ConnectionOptions::fromUrl(url);
    QVERIFY2(options.ok(), options ? "" : qPrintable(options.error().message));
    QCOMPARE(options->transport == ConnectionOptions::Transport::Unix, isUnix);
    if (isUnix) {
        QCOMPARE(options->socketPath, socket);
    } else {
        QCOMPARE(options->host, host);
        QCOMPARE(int(options->port), port);
    }
    QCOMPARE(options->user, user);
    QCOMPARE(options->password, password);
    QCOMPARE(options->database, db);
    QCOMPARE(options->tls.enabled, tls);
    QCOMPARE(options->tls.caFile, ca);
    if (tls)
        QVERIFY(options->tls.verifyPeer); // on by default

    // toUrl() hides the password unless asked, and the full URL parses back to the same thing.
    const auto withoutPassword = ConnectionOptions::fromUrl(options->toUrl());
    QVERIFY(withoutPassword.ok());
    QVERIFY(withoutPassword->password.isEmpty());
    const auto again = ConnectionOptions::fromUrl(options->toUrl(true));
    QVERIFY(again.ok());
    QCOMPARE(again->password, password);
    QCOMPARE(again->database, db);
}

void KeySchemaTest::fromUrlRejects_data()
{
    QTest::addColumn<QString>("url");
    QTest::newRow("bad scheme") << QStringLiteral("http://localhost:6379");
    QTest::newRow("no scheme") << QStringLiteral("localhost:6379");
    QTest::newRow("empty") << QString();
    QTest::newRow("bad db") << QStringLiteral("redis://localhost/abc");
    QTest::newRow("negative db") << QStringLiteral("redis://localhost/-1");
    QTest::newRow("bad port") << QStringLiteral("redis://localhost:99999");
    QTest::newRow("port not a number") << QStringLiteral("redis://localhost:port");
    QTest::newRow("no host") << QStringLiteral("redis:///0");
    QTest::newRow("unix without path") << QStringLiteral("unix://");
    QTest::newRow("unknown option") << QStringLiteral("redis://localhost?bogus=1");
    QTest::newRow("bad timeout") << QStringLiteral("redis://localhost?timeout=0");
}

void KeySchemaTest::fromUrlRejects()
{
    QFETCH(QString, url);
    const auto options = ConnectionOptions::fromUrl(url);
    QVERIFY(!options);
    QCOMPARE(options.error().kind, ErrorKind::InvalidInput);
    QVERIFY(!options.error().message.isEmpty());
}

QTEST_APPLESS_MAIN(KeySchemaTest)
#include "tst_KeySchema.moc"
