// The HTTP endpoint's answers, written by JsonWriter without QJsonObject: what a JSON parser
// reads back from them, for odd ids (quotes, backslashes, control bytes, unicode, bytes that are
// not UTF-8, a megabyte), numbers beyond a double's exact range, and the members' order.
#include "core/json/JsonWriter.h"
#include "service/http/DecisionJson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::service;

namespace {

QJsonObject parsed(const QByteArray& text)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning("not JSON (%s): %s", qPrintable(error.errorString()), text.left(200).constData());
    return document.object();
}

Decision oneStatus(const QByteArray& action, const QByteArray& user)
{
    Decision decision;
    decision.overall = Code::OverLimit;
    DescriptorDecision status;
    status.code = Code::OverLimit;
    status.currentLimit = RateLimitSpec{LimitUnit::Minute, 100, QStringLiteral("per \"minute\"")};
    status.limitRemaining = 0;
    status.durationUntilResetMs = 1500;
    status.action = action;
    status.user = user;
    decision.statuses.push_back(status);
    DescriptorDecision unmatched; // no limit, no action: only code and limit_remaining
    unmatched.unmatched = true;
    decision.statuses.push_back(unmatched);
    return decision;
}

} // namespace

class DecisionJsonTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void oddIdsReadBackAsTheyWere_data();
    void oddIdsReadBackAsTheyWere();
    void bytesThatAreNotUtf8BecomeReplacementCharacters();
    void aByteOrderMarkInsideAnIdStays();
    void theDecisionHasEnvoysFields();
    void aHitKeepsLargeNumbersExact();
    void nestingAndCommas();
};

void DecisionJsonTest::oddIdsReadBackAsTheyWere_data()
{
    QTest::addColumn<QByteArray>("user");
    QTest::newRow("plain") << QByteArray("alice");
    QTest::newRow("quotes and backslashes") << QByteArray(R"(a"b\c\\"d)");
    QTest::newRow("control bytes") << QByteArray("a\nb\rc\td\x01\x1f"
                                                 "e",
                                                 11);
    QTest::newRow("nul") << QByteArray("a\0b", 3);
    QTest::newRow("unicode") << QString::fromUtf8("Zoë 日本 🚀 \u2028").toUtf8();
    QTest::newRow("redis syntax") << QByteArray("{user}:*:x y");
    QTest::newRow("a megabyte") << QByteArray(1 << 20, 'x');
}

void DecisionJsonTest::oddIdsReadBackAsTheyWere()
{
    QFETCH(QByteArray, user);
    const QByteArray text = decisionJson(oneStatus("edge.\"login\"\\x", user));
    QVERIFY(text.endsWith("}\n"));
    const QJsonObject root = parsed(text);
    const QJsonObject status = root.value(QStringLiteral("statuses")).toArray().at(0).toObject();
    QCOMPARE(status.value(QStringLiteral("user")).toString().toUtf8(), user);
    QCOMPARE(status.value(QStringLiteral("action")).toString(),
             QStringLiteral("edge.\"login\"\\x"));
}

void DecisionJsonTest::bytesThatAreNotUtf8BecomeReplacementCharacters()
{
    const QByteArray bad("caf\xe9 \xff\xfe!", 8);
    const QJsonObject status = parsed(decisionJson(oneStatus("a", bad)))
                                   .value(QStringLiteral("statuses"))
                                   .toArray()
                                   .at(0)
                                   .toObject();
    QCOMPARE(status.value(QStringLiteral("user")).toString(), QString::fromUtf8(bad));
    QVERIFY(status.value(QStringLiteral("user")).toString().contains(QChar(0xfffd)));
}

void DecisionJsonTest::aByteOrderMarkInsideAnIdStays()
{
    // Raw UTF-8 of U+FEFF inside the value, after a leading byte order mark that is skipped.
    const QByteArray body("\xEF\xBB\xBF{\"domain\":\"edge\",\"descriptors\":[{\"entries\":"
                          "[{\"key\":\"user\",\"value\":\"\xEF\xBB\xBF" "alice\xEF\xBB\xBF\"}]}]}");
    const auto request = decisionRequestFromJson(body);
    QVERIFY2(request.ok(), request.ok() ? "" : qPrintable(request.error().toString()));
    QCOMPARE(request->descriptors.at(0).entries.at(0).value, QByteArray("\xEF\xBB\xBF" "alice\xEF\xBB\xBF"));
    // Between tokens it is no JSON whitespace: refused, where Qt alone would have skipped it.
    QVERIFY(!decisionRequestFromJson("{\"domain\":\"edge\",\xEF\xBB\xBF\"descriptors\":[{\"entries\":"
                                     "[{\"key\":\"user\",\"value\":\"a\"}]}]}")
                 .ok());
}

void DecisionJsonTest::theDecisionHasEnvoysFields()
{
    const QByteArray text = decisionJson(oneStatus("edge.login", "bob"));
    // The order QJsonDocument wrote (sorted), so answers read the same as before.
    QCOMPARE(text,
             QByteArray(R"({"overall_code":"OVER_LIMIT","statuses":[{"action":"edge.login",)"
                        R"("code":"OVER_LIMIT","current_limit":{"name":"per \"minute\"",)"
                        R"("requests_per_unit":100,"unit":"MINUTE"},)"
                        R"("duration_until_reset":"1.500s","limit_remaining":0,"user":"bob"},)"
                        R"({"code":"OK","limit_remaining":0}]})"
                        "\n"));
}

void DecisionJsonTest::aHitKeepsLargeNumbersExact()
{
    HitResult hit;
    hit.allowed = true;
    hit.count = (1LL << 53) + 1; // a double would round it
    hit.limit = Policy::kMaxLimit;
    hit.remaining = -1;
    hit.retryAfterMs = -1;
    hit.message = QStringLiteral("slow \"down\"\n");
    hit.appliedOverride = AppliedOverride::Limit;
    const QByteArray text = hitJson(hit);
    QVERIFY2(text.contains("\"count\":9007199254740993,"), text.constData());
    const QJsonObject object = parsed(text);
    QCOMPARE(object.value(QStringLiteral("allowed")).toBool(), true);
    QCOMPARE(object.value(QStringLiteral("message")).toString(), hit.message);
    QCOMPARE(object.value(QStringLiteral("retry_after_ms")).toInteger(), -1);
    QCOMPARE(object.value(QStringLiteral("limit")).toInteger(), Policy::kMaxLimit);
    QVERIFY(object.contains(QStringLiteral("override")));
    QVERIFY(!object.contains(QStringLiteral("redis_error")));
    QCOMPARE(object.keys().size(), 12);
}

void DecisionJsonTest::nestingAndCommas()
{
    JsonWriter out;
    out.beginObject().key("a").beginArray();
    out.beginArray().endArray().beginObject().endObject().value(qint64(1)).value(true).value("x");
    out.endArray().key("b").beginObject().key("c").value(false).endObject().endObject();
    QCOMPARE(out.take(), QByteArray(R"({"a":[[],{},1,true,"x"],"b":{"c":false}})"
                                    "\n"));
}

QTEST_GUILESS_MAIN(DecisionJsonTest)
#include "tst_DecisionJson.moc"
