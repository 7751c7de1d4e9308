// Pure-function contracts of the policy a user types: durations ("90s", "1h30m") both ways,
// Policy::validate and the policy hash's fields. No server needed.

#include "core/policies/Duration.h"
#include "tollgate/Policy.h"

#include <QTimeZone>
#include <QtTest>

using namespace tollgate;

Q_DECLARE_METATYPE(tollgate::Policy)

class PolicyInputTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parseDuration_data();
    void parseDuration();
    void formatDuration_data();
    void formatDuration();
    void policyValidate_data();
    void policyValidate();
    void policyFieldsRoundTrip();
};

void PolicyInputTest::parseDuration_data()
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

void PolicyInputTest::parseDuration()
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

void PolicyInputTest::formatDuration_data()
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

void PolicyInputTest::formatDuration()
{
    QFETCH(qint64, ms);
    QFETCH(QString, text);
    QCOMPARE(tollgate::formatDuration(ms), text);
    // Every rendering parses back to the same value.
    QCOMPARE(*tollgate::parseDuration(text), ms);
}

void PolicyInputTest::policyValidate_data()
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
    QTest::newRow("limit absurd") << with([](Policy& p) { p.windows[0].limit = 1LL << 40; })
                                  << false;
    QTest::newRow("window 0") << with([](Policy& p) { p.windows[0].windowMs = 0; }) << false;
    QTest::newRow("window 1ms") << with([](Policy& p) { p.windows[0].windowMs = 1; }) << true;
    QTest::newRow("window 1 year")
        << with([](Policy& p) { p.windows[0].windowMs = 365 * 86400000LL; }) << true;
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
    QTest::newRow("absurd ban") << with([](Policy& p) { p.banMs = 100 * 365 * 86400000LL; })
                                << false;
    QTest::newRow("ban 1h") << with([](Policy& p) { p.banMs = 3600000; }) << true;
    QTest::newRow("ban until midnight")
        << with([](Policy& p) { p.banUntilMidnight = true; }) << true;
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

void PolicyInputTest::policyValidate()
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

void PolicyInputTest::policyFieldsRoundTrip()
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

QTEST_APPLESS_MAIN(PolicyInputTest)
#include "tst_PolicyInput.moc"
