// tollgated's configuration: envoyproxy/ratelimit's YAML as it is, translated into Tollgate
// policies (with the differences check-config reports), the errors naming file, line and field,
// and how request descriptors match the tree.
#include "service/config/ServiceConfig.h"
#include "service/decide/DescriptorMatch.h"

#include <QtTest>

using namespace tollgate;
using namespace tollgate::service;

namespace {

Result<ServiceConfig> parse(const char* text)
{
    return parseServiceConfig({{QStringLiteral("rl.yaml"), QByteArray(text)}});
}

RequestDescriptor descriptor(const QList<QPair<QByteArray, QByteArray>>& entries)
{
    RequestDescriptor d;
    for (const auto& [key, value] : entries)
        d.entries.push_back({key, value});
    return d;
}

// envoyproxy/ratelimit's own README example, unchanged in form.
const char kEnvoyExample[] = R"(
domain: mongo_cps
descriptors:
  - key: database
    value: users
    rate_limit:
      unit: second
      requests_per_unit: 500

  - key: database
    value: default
    rate_limit:
      unit: second
      requests_per_unit: 500
---
domain: messaging
descriptors:
  - key: message_type
    value: marketing
    descriptors:
      - key: to_number
        rate_limit:
          unit: day
          requests_per_unit: 5
  - key: to_number
    rate_limit:
      unit: day
      requests_per_unit: 100
  - key: remote_address
    rate_limit:
      name: per_ip
      unit: minute
      requests_per_unit: 10
  - key: key1
    value: value1
    rate_limit:
      unlimited: true
  - key: client_id
    value: foo
    shadow_mode: true
    detailed_metric: true
    rate_limit:
      unit: hour
      requests_per_unit: 10
      name: foo_limit
    replaces:
      - name: per_ip
)";

} // namespace

class ServiceConfigTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void envoyExampleTranslates();
    void tollgateAdditions();
    void errorsNameFileLineAndField_data();
    void errorsNameFileLineAndField();
    void matchingOrderAndSubjects();
    void wildcardsAnywhere();
    void longSubjectsAreHashed();
};

void ServiceConfigTest::envoyExampleTranslates()
{
    const auto config = parse(kEnvoyExample);
    QVERIFY2(config, qPrintable(config ? QString() : config.error().message));
    QCOMPARE(config->domains.size(), size_t(2));
    const Policy* users = config->policy("mongo_cps.database_users");
    QVERIFY(users);
    QCOMPARE(users->windows.front().limit, 500);
    QCOMPARE(users->windows.front().windowMs, 1000);
    QVERIFY(!users->calendarAligned); // no calendar second: a difference check-config reports
    const Policy* perNumber = config->policy("messaging.message_type_marketing.to_number");
    QVERIFY(perNumber);
    QVERIFY(perNumber->calendarAligned); // a day from 00:00 UTC, as envoyproxy/ratelimit counts
    QCOMPARE(perNumber->windows.front().windowMs, 86'400'000);
    const Policy* foo = config->policy("messaging.client_id_foo");
    QVERIFY(foo && foo->shadow);
    QVERIFY(!config->policy("messaging.key1_value1")); // unlimited: nothing to count
    QCOMPARE(config->policies.size(), size_t(6));
    bool secondNoted = false;
    for (const QString& note : config->notes)
        secondNoted = secondNoted || (note.startsWith(QStringLiteral("rl.yaml:4:")) &&
                                      note.contains(QStringLiteral("first hit")));
    QVERIFY2(secondNoted, qPrintable(QStringList(config->notes.begin(), config->notes.end()).join(QLatin1Char('\n'))));
    QCOMPARE(config->digest.size(), 64);
}

void ServiceConfigTest::tollgateAdditions()
{
    const auto config = parse(R"(
domain: api
descriptors:
  - key: user_id
    rate_limit: {unit: minute, requests_per_unit: 10}
    tollgate:
      algorithm: sliding_window
      windows: "1m:10,1h:200"
      warn: 8
      ban: 15m
      count_denied: true
      message: "slow down"
  - key: tenant
    descriptors:
      - key: user_id
        rate_limit: {unit: hour, requests_per_unit: 100}
        tollgate: {user: tenant, calendar: true, time_zone: Europe/Paris}
)");
    QVERIFY2(config, qPrintable(config ? QString() : config.error().message));
    const Policy* user = config->policy("api.user_id");
    QVERIFY(user);
    QCOMPARE(user->algorithm, Algorithm::SlidingWindow);
    QCOMPARE(user->windows.size(), size_t(2));
    QCOMPARE(user->warn, 8);
    QCOMPARE(user->banMs, 900'000);
    QVERIFY(user->countDenied);
    QCOMPARE(user->message, QStringLiteral("slow down"));
    const Policy* tenant = config->policy("api.tenant.user_id");
    QVERIFY(tenant && tenant->calendarAligned);
    QCOMPARE(tenant->timeZone, QByteArray("Europe/Paris"));
    // tollgate.user: the tenant is the subject, whatever the user id.
    const DomainConfig* domain = config->domain("api");
    const DescriptorMatch match =
        matchDescriptor(*domain, descriptor({{"tenant", "acme"}, {"user_id", "42"}}));
    QVERIFY(match.rule);
    QCOMPARE(match.user, QByteArray("acme"));
}

void ServiceConfigTest::errorsNameFileLineAndField_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unknown field") << QByteArray("domain: d\ndescriptors:\n  - key: a\n    rate_limt: {}\n")
                                   << QStringLiteral("rl.yaml:4: descriptor.rate_limt: unknown field");
    QTest::newRow("bad unit") << QByteArray("domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unit: fortnight, requests_per_unit: 1}\n")
                              << QStringLiteral("rl.yaml:4: rate_limit.unit: 'fortnight' is not one of");
    QTest::newRow("negative count") << QByteArray("domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unit: second, requests_per_unit: -1}\n")
                                    << QStringLiteral("rl.yaml:4: rate_limit.requests_per_unit: must be a whole number");
    QTest::newRow("no key") << QByteArray("domain: d\ndescriptors:\n  - value: a\n")
                            << QStringLiteral("rl.yaml:3: key: every descriptor needs a key");
    QTest::newRow("twice") << QByteArray("domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unit: second, requests_per_unit: 1}\n  - key: a\n    rate_limit: {unit: second, requests_per_unit: 2}\n")
                           << QStringLiteral("rl.yaml:5: key: a descriptor with the same key and value");
    QTest::newRow("replaces itself") << QByteArray("domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unit: second, requests_per_unit: 1, name: x, replaces: [{name: x}]}\n")
                                     << QStringLiteral("rl.yaml:4: rate_limit.replaces: a limit cannot replace itself ('x')");
    QTest::newRow("replaces without a name") << QByteArray("domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unit: second, requests_per_unit: 1, replaces: [{}]}\n")
                                             << QStringLiteral("rl.yaml:4: rate_limit.replaces: each entry needs a name");
    QTest::newRow("unlimited with a unit") << QByteArray("domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unlimited: true, unit: second}\n")
                                           << QStringLiteral("rl.yaml:4: rate_limit.unit: an unlimited limit has no unit");
    QTest::newRow("twice without limits") << QByteArray("domain: d\ndescriptors:\n  - key: a\n    value: v\n  - key: a\n    value: v\n")
                                          << QStringLiteral("rl.yaml:5: key: a descriptor with the same key and value");
    QTest::newRow("share_threshold without a wildcard") << QByteArray("domain: d\ndescriptors:\n  - key: a\n    value: v\n    share_threshold: true\n")
                                                        << QStringLiteral("rl.yaml:3: share_threshold: only a value with a wildcard");
    QTest::newRow("metadata not a map") << QByteArray("domain: d\ndescriptors:\n  - key: a\n    metadata: [1]\n")
                                        << QStringLiteral("rl.yaml:4: metadata: must be a map");
    QTest::newRow("user not on the path") << QByteArray("domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unit: second, requests_per_unit: 1}\n    tollgate: {user: b}\n")
                                          << QStringLiteral("rl.yaml:5: tollgate.user: 'b' is not a key of this descriptor's path");
    QTest::newRow("bad policy field") << QByteArray("domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unit: second, requests_per_unit: 1}\n    tollgate: {ban: forever-ish}\n")
                                      << QStringLiteral("rl.yaml:5: tollgate: ");
    QTest::newRow("no domain") << QByteArray("descriptors: []\n") << QStringLiteral("rl.yaml:1: domain: a domain is required");
    QTest::newRow("not yaml") << QByteArray("domain: [\n") << QStringLiteral("rl.yaml:2: not YAML");
}

void ServiceConfigTest::errorsNameFileLineAndField()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, expected);
    const auto config = parse(text.constData());
    QVERIFY(!config);
    QVERIFY2(config.error().message.startsWith(expected), qPrintable(config.error().message));
}

void ServiceConfigTest::matchingOrderAndSubjects()
{
    const auto config = parse(R"(
domain: d
descriptors:
  - key: path
    value: /login
    rate_limit: {unit: minute, requests_per_unit: 1}
  - key: path
    value: /api/*
    rate_limit: {unit: minute, requests_per_unit: 2}
  - key: path
    rate_limit: {unit: minute, requests_per_unit: 3}
  - key: remote_address
    descriptors:
      - key: path
        rate_limit: {unit: minute, requests_per_unit: 4}
)");
    QVERIFY(config);
    const DomainConfig& domain = *config->domain("d");
    const auto limitOf = [&](const RequestDescriptor& d) {
        const DescriptorMatch m = matchDescriptor(domain, d);
        return m.rule && m.rule->rateLimit ? m.rule->rateLimit->requestsPerUnit : -1;
    };
    QCOMPARE(limitOf(descriptor({{"path", "/login"}})), 1);    // exact first
    QCOMPARE(limitOf(descriptor({{"path", "/api/v1"}})), 2);   // then a prefix
    QCOMPARE(limitOf(descriptor({{"path", "/other"}})), 3);    // then any value
    QCOMPARE(limitOf(descriptor({{"remote_address", "1.2.3.4"}, {"path", "/x"}})), 4);
    QCOMPARE(limitOf(descriptor({{"remote_address", "1.2.3.4"}})), -1); // no limit on that node
    QCOMPARE(limitOf(descriptor({{"nothing", "x"}})), -1);
    // Subjects: the values matched by key alone or by prefix; "*" when every value is fixed.
    QCOMPARE(matchDescriptor(domain, descriptor({{"path", "/login"}})).user, QByteArray("*"));
    QCOMPARE(matchDescriptor(domain, descriptor({{"path", "/api/v1"}})).user, QByteArray("/api/v1"));
    QCOMPARE(matchDescriptor(domain, descriptor({{"remote_address", "1.2.3.4"}, {"path", "a|b"}})).user,
             QByteArray("1.2.3.4|a\\|b")); // '|' escaped: no two value pairs share a subject
    QCOMPARE(matchDescriptor(domain, descriptor({{"path", ""}})).user, QByteArray("\"\""));
}

void ServiceConfigTest::wildcardsAnywhere()
{
    const auto config = parse(R"(
domain: d
descriptors:
  - key: route
    value: /api/*/action
    rate_limit: {unit: minute, requests_per_unit: 1}
  - key: route
    value: foo*bar*baz
    rate_limit: {unit: minute, requests_per_unit: 2}
  - key: route
    value: shared/*
    share_threshold: true
    value_to_metric: true
    metadata: {team: search, limits: [1, "two", true]}
    rate_limit: {unit: minute, requests_per_unit: 3}
  - key: method
    value_to_metric: true
    rate_limit: {unit: minute, requests_per_unit: 4}
)");
    QVERIFY2(config, qPrintable(config ? QString() : config.error().message));
    const DomainConfig& domain = *config->domain("d");
    const auto limitOf = [&](const QByteArray& value) {
        const DescriptorMatch m = matchDescriptor(domain, descriptor({{"route", value}}));
        return m.rule && m.rule->rateLimit ? m.rule->rateLimit->requestsPerUnit : -1;
    };
    QCOMPARE(limitOf("/api/v1/action"), 1);
    QCOMPARE(limitOf("/api//action"), 1);       // a * may match nothing
    QCOMPARE(limitOf("/api/v1/other"), -1);     // the suffix must match
    QCOMPARE(limitOf("/api/action"), -1);       // prefix and suffix may not overlap
    QCOMPARE(limitOf("fooXbarYbaz"), 2);
    QCOMPARE(limitOf("foobarbaz"), 2);
    QCOMPARE(limitOf("foobazbar"), -1);         // the parts in order
    QCOMPARE(limitOf("shared/a"), 3);
    // share_threshold: the pattern is the subject, so every value shares one counter.
    QCOMPARE(matchDescriptor(domain, descriptor({{"route", "shared/a"}})).user, QByteArray("shared/*"));
    QCOMPARE(matchDescriptor(domain, descriptor({{"route", "/api/v1/action"}})).user, QByteArray("/api/v1/action"));
    // value_to_metric: the request's value in the metric's name, unless the threshold is shared.
    QCOMPARE(matchDescriptor(domain, descriptor({{"method", "GET"}})).metricPath, QByteArray("method_GET"));
    QCOMPARE(matchDescriptor(domain, descriptor({{"route", "shared/a"}})).metricPath, QByteArray("route_shared/*"));
    const DescriptorMatch shared = matchDescriptor(domain, descriptor({{"route", "shared/b"}}));
    QCOMPARE(shared.rule->metadata, QByteArray(R"({"limits":[1,"two",true],"team":"search"})"));
    // Noted by check-config: a * inside a value, which older releases took literally.
    const QString notes = QStringList(config->notes.begin(), config->notes.end()).join(QLatin1Char('\n'));
    QVERIFY2(notes.contains(QStringLiteral("rl.yaml:4: d.route_/api/*/action: a wildcard inside")), qPrintable(notes));
    QVERIFY2(!notes.contains(QStringLiteral("route_shared/*: a wildcard")), qPrintable(notes));
}

void ServiceConfigTest::longSubjectsAreHashed()
{
    const auto config = parse("domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: minute, requests_per_unit: 1}\n");
    QVERIFY(config);
    const QByteArray huge(1 << 20, 'x');
    const DescriptorMatch match = matchDescriptor(*config->domain("d"), descriptor({{"k", huge}}));
    QVERIFY(match.rule);
    QVERIFY(match.user.startsWith("sha256:"));
    QCOMPARE(match.user.size(), 7 + 64);
}

QTEST_GUILESS_MAIN(ServiceConfigTest)
#include "tst_ServiceConfig.moc"
