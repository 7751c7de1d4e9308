// `tollgatectl scripts --source`: a line of an assembled script, as Redis names it in an error
// ("user_script:179"), back to the source file and line it was copied from (the line map the
// build writes beside each script). The error is a real one: hit.lua run by an ACL user who may
// not run EXISTS fails on a real redis-server at the fast path's first read.

#include "core/scripts/ScriptLibrary.h"
#include "tests/support/CliRunner.h"
#include "tests/support/CoreFixture.h"

using namespace tollgate;
using namespace tollgate::test;

class ScriptSourceTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { TOLLGATE_REQUIRE(m_core, start()); }

    void realRedisErrorLeadsToItsSourceLine();
    void lineOfANamedScript();
    void unnamedLineListsEveryScriptThatLong();
    void badInputIsAUsageError();

private:
    CliRun source(const QString& where, bool json = false);
    // The 1-based line of lua/<file> holding `text` first; 0 when none does.
    static int sourceLineOf(const QString& file, const QByteArray& text);

    CoreFixture m_core;
};

CliRun ScriptSourceTest::source(const QString& where, bool json)
{
    QStringList args{QStringLiteral("scripts"), QStringLiteral("--source"), where};
    if (json)
        args.prepend(QStringLiteral("--json"));
    return runCli(tollgatectlPath(), m_core.server().url(), args);
}

int ScriptSourceTest::sourceLineOf(const QString& file, const QByteArray& text)
{
    QFile source(sourcePath(QStringLiteral("lua/") + file));
    if (!source.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> lines = source.readAll().split('\n');
    for (int i = 0; i < lines.size(); ++i)
        if (lines[i].contains(text))
            return i + 1;
    return 0;
}

void ScriptSourceTest::realRedisErrorLeadsToItsSourceLine()
{
    const ScriptInfo* hit = ScriptLibrary::instance().find(QStringLiteral("hit"));
    QVERIFY(hit);
    QVERIFY(m_core.inspect({"SCRIPT", "LOAD", hit->source}));
    QVERIFY(m_core.inspect({"ACL", "SETUSER", "noexists", "reset", "on", ">pw", "~*", "&*", "+@all",
                            "-exists"}));
    ConnectionOptions options = m_core.options();
    options.user = QStringLiteral("noexists");
    options.password = QStringLiteral("pw");
    const auto client = m_core.connect(options);
    QVERIFY(client);
    // the short form of a plain fixed-window policy: the fast path's EXISTS is its first read
    const auto failed = client->executeSync({"EVALSHA", hit->sha1, "4", "tg:{u}:ban", "tg:{u}:a:ban",
                                             "tg:{u}:overrides", "tg:{u}:a:fw:1000", "hit",
                                             "fixed_window", "1", "10", "1000"});
    QVERIFY(!failed);
    const QString message = failed.error().message;
    QVERIFY2(message.contains(QStringLiteral("@user_script:")) &&
                 message.contains(QString::fromLatin1(hit->sha1)),
             qPrintable(message));

    const int expected = sourceLineOf(QStringLiteral("hit/plain.lua"), "redis.call('EXISTS', user_ban");
    QVERIFY(expected > 0);
    const CliRun run = source(message, true);
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    const QJsonArray found = run.array();
    QCOMPARE(found.size(), 1);
    const QJsonObject at = found[0].toObject();
    QCOMPARE(at[QStringLiteral("script")].toString(), QStringLiteral("hit.lua"));
    QCOMPARE(at[QStringLiteral("source")].toString(), QStringLiteral("hit/plain.lua"));
    QCOMPARE(at[QStringLiteral("source_line")].toInt(), expected);
    QVERIFY(at[QStringLiteral("text")].toString().contains(QStringLiteral("redis.call('EXISTS'")));

    // the line Redis named is that line of the assembled script
    const int line = at[QStringLiteral("line")].toInt();
    QVERIFY(message.contains(QStringLiteral("@user_script:%1.").arg(line)));
    const CliRun text = source(QStringLiteral("hit:user_script:%1").arg(line));
    QVERIFY2(text.code == 0, qPrintable(text.describe()));
    QCOMPARE(QString::fromUtf8(text.out).section(QLatin1Char(' '), 0, 2),
             QStringLiteral("hit.lua:%1  hit/plain.lua:%2").arg(line).arg(expected));
}

void ScriptSourceTest::lineOfANamedScript()
{
    // hit.lua's first line is its own header; "hit" and "hit.lua" name the same script
    for (const QString& where : {QStringLiteral("hit:1"), QStringLiteral("hit.lua:1")}) {
        const CliRun run = source(where);
        QVERIFY2(run.code == 0, qPrintable(run.describe()));
        QVERIFY2(run.out.startsWith("hit.lua:1  hit.lua:1  --[[ hit.lua:"), run.out.constData());
    }
    // a line copied from an include names the include: the contract query is one line of its own
    const int query = sourceLineOf(QStringLiteral("can.lua"), "--@include \"includes/contract_query.lua\"");
    QVERIFY(query > 0);
    const CliRun run = source(QStringLiteral("can:%1").arg(query), true);
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(run.array()[0].toObject()[QStringLiteral("source")].toString(),
             QStringLiteral("includes/contract_query.lua"));
    QCOMPARE(run.array()[0].toObject()[QStringLiteral("source_line")].toInt(), 1);
}

void ScriptSourceTest::unnamedLineListsEveryScriptThatLong()
{
    const CliRun run = source(QStringLiteral("ERR something user_script:3."), true);
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(run.array().size(), ScriptLibrary::instance().scripts().size());
}

void ScriptSourceTest::badInputIsAUsageError()
{
    for (const QString& where : {QStringLiteral("hit"), QStringLiteral("nosuch:3"),
                                 QStringLiteral("hit:999999"), QStringLiteral("user_script:999999")}) {
        const CliRun run = source(where);
        QVERIFY2(run.code == 2, qPrintable(where + QStringLiteral(": ") + run.describe()));
        QVERIFY2(run.err.startsWith("tollgatectl: "), run.err.constData());
    }
}

QTEST_GUILESS_MAIN(ScriptSourceTest)
#include "tst_ScriptSource.moc"
