// A client in another language, written from lua/README.md alone
// (tests/python/second_client.py, standard library only), against tollgatectl on one server:
// it reads the stored policy, addresses every id the CLI addresses (invalid UTF-8 included: the
// CLI keeps argv's bytes) and gets TG_INVALID for the ids the contract refuses.

#include "tests/support/CoreFixture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QtTest>

using namespace tollgate;
using tollgate::test::CoreFixture;
using tollgate::test::makePolicy;

class SecondLanguageTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void sameIdsSameKeys();

private:
    CoreFixture m_core;
    QString m_python;
    QString m_ctl;
};

void SecondLanguageTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
    m_python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (m_python.isEmpty())
        QFAIL("python3 not found: scripts/setup.sh installs it");
    m_ctl = qEnvironmentVariable("TOLLGATECTL", QCoreApplication::applicationDirPath() +
                                                    QStringLiteral("/../app/tollgatectl"));
    QVERIFY2(QFileInfo(m_ctl).isExecutable(), qPrintable(m_ctl));
}

void SecondLanguageTest::sameIdsSameKeys()
{
    QVERIFY(m_core.save(makePolicy("like", 10, 60'000)));
    QProcess python;
    python.start(m_python,
                 {tollgate::test::sourcePath(QStringLiteral("tests/python/second_client.py")),
                  QString::number(m_core.server().port()), m_ctl,
                  tollgate::test::luaScriptDir()});
    QVERIFY(python.waitForFinished(60'000));
    const QByteArray err = python.readAllStandardError();
    QVERIFY2(python.exitCode() == 0, err.constData());
    const QJsonObject result = QJsonDocument::fromJson(python.readAllStandardOutput()).object();

    // Each id: the Python hit counts 1, tollgatectl's hit on the same key 2. A shared key would
    // count on (3, 4, ...), a key the CLI could not address would leave it at 1.
    const QJsonArray counts = result[QStringLiteral("counts")].toArray();
    QCOMPARE(counts.size(), 7);
    for (const QJsonValue& row : counts) {
        const QJsonArray pair = row.toArray();
        QVERIFY2(pair[0].toInt() == 1 && pair[1].toInt() == 2 && pair[2].toInt() == 0,
                 QJsonDocument(counts).toJson(QJsonDocument::Compact).constData());
    }
    // Then refund.lua from Python gives one unit back (1 left) and tollgatectl refund the
    // other (0 left), on the same key.
    const QJsonArray refunds = result[QStringLiteral("refunds")].toArray();
    QCOMPARE(refunds.size(), 7);
    for (const QJsonValue& row : refunds)
        QVERIFY2(row.toArray() == (QJsonArray{1, 1, 0, 0}),
                 QJsonDocument(refunds).toJson(QJsonDocument::Compact).constData());
    const QJsonArray keys = result[QStringLiteral("keys")].toArray();
    QCOMPARE(keys[0].toString(), QStringLiteral("%FF"));
    QCOMPARE(keys[1].toString(), QStringLiteral("%FE"));
    QCOMPARE(keys[2].toString(), QStringLiteral("\uFFFD"));
    QCOMPARE(keys[3].toString(), QStringLiteral("%C0%AF"));
    QCOMPARE(m_core.bytes(
                 {"GET", m_core.schema().stateKey("\xff", "like", Algorithm::FixedWindow, 60'000)}),
             QByteArray("0"));
    QCOMPARE(m_core.integer({"EXISTS", "tg:{%FF}:like:fw:60000", "tg:{%FE}:like:fw:60000"}), 2);

    // An override of 3 per 2 minutes (the policy: 10 per minute), followed from Python through
    // the TG_OVERRIDE redirect: Python, Python, tollgatectl, Python count 1, 2, 3, then denied.
    const QJsonArray overridden = result[QStringLiteral("override")].toArray();
    const QJsonArray expected{QJsonArray{true, 1, 3, QStringLiteral("limit")},
                              QJsonArray{true, 2, 3, QStringLiteral("limit")},
                              QJsonArray{true, 3, 3, QStringLiteral("limit")},
                              QJsonArray{false, 3, 3, QStringLiteral("limit")}};
    QVERIFY2(overridden == expected, QJsonDocument(overridden).toJson(QJsonDocument::Compact).constData());

    // The empty id and one of 1025 bytes are refused by the script itself.
    const QJsonArray invalid = result[QStringLiteral("invalid")].toArray();
    QCOMPARE(invalid.size(), 2);
    for (const QJsonValue& reply : invalid)
        QVERIFY2(reply.toString().startsWith(QStringLiteral("TG_INVALID")),
                 qPrintable(reply.toString()));
}

QTEST_GUILESS_MAIN(SecondLanguageTest)
#include "tst_SecondLanguage.moc"
