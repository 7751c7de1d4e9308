// The Debian packages as a user gets them, checked without touching the machine's installed
// packages: CPack builds them from this build tree, lintian finds no error, `dpkg-deb -x`
// unpacks them into a temporary root, and from there `--version`, `--help` (no display),
// `tollgatectl hit` against a private redis-server and the example consumer of examples/hit
// (built against the unpacked libtollgate-dev) all work. `cmake --install` into a prefix gives
// the same library.

#include "core/Version.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"

#include <QCoreApplication>
#include <QDirIterator>
#include <QProcess>
#include <QTemporaryDir>

using namespace tollgate;
using namespace tollgate::test;

namespace {

struct Run
{
    int code = -1;
    QByteArray out;
    QString describe;
};

// Runs a program to its end (10 min at most) with `env`, collecting stdout and stderr.
Run run(const QString& program, const QStringList& args,
        const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess process;
    process.setProcessEnvironment(env);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, args);
    Run result;
    if (!process.waitForStarted(10'000) || !process.waitForFinished(600'000)) {
        process.kill();
        process.waitForFinished();
        result.describe = program + QStringLiteral(" did not run to its end");
        return result;
    }
    result.out = process.readAll();
    result.code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    result.describe = QStringLiteral("%1 %2: exit %3\n%4")
                          .arg(program, args.join(QLatin1Char(' ')))
                          .arg(result.code)
                          .arg(QString::fromUtf8(result.out.right(4000)));
    return result;
}

#define RUN_OK(result) QVERIFY2((result).code == 0, qPrintable((result).describe))

} // namespace

class PackagesTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void packagesAreBuilt();
    void lintianFindsNoError();
    void unpackedProgramsAnswerWithoutDisplay();
    void unpackedCliHitsARealServer();
    void exampleBuildsAgainstUnpackedLibrary();
    void installIntoPrefix();

private:
    QString deb(const QString& package) const;
    QString buildExample(const QString& prefix, const QString& name);

    QString m_build = QDir::cleanPath(QCoreApplication::applicationDirPath() + QStringLiteral("/.."));
    QTemporaryDir m_tmp;
    RedisServer m_redis;
    QStringList m_debs;
    QString m_root; // the unpacked packages
};

void PackagesTest::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    for (const char* tool : {"cpack", "dpkg-deb", "lintian", "cmake"})
        QVERIFY2(!QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty(),
                 qPrintable(QStringLiteral("%1 is missing: run scripts/setup.sh").arg(QLatin1String(tool))));
    QVERIFY2(QFile::exists(m_build + QStringLiteral("/CPackConfig.cmake")),
             qPrintable(m_build + QStringLiteral(" is not a configured build tree")));
    TOLLGATE_REQUIRE(m_redis, start());
    m_root = m_tmp.filePath(QStringLiteral("root"));
}

QString PackagesTest::deb(const QString& package) const
{
    for (const QString& file : m_debs) {
        if (QFileInfo(file).fileName().startsWith(package + QLatin1Char('_')))
            return file;
    }
    return {};
}

void PackagesTest::packagesAreBuilt()
{
    const QString out = m_tmp.filePath(QStringLiteral("cpack"));
    RUN_OK(run(QStringLiteral("cpack"), {QStringLiteral("-G"), QStringLiteral("DEB"),
                                         QStringLiteral("-B"), out, QStringLiteral("--config"),
                                         m_build + QStringLiteral("/CPackConfig.cmake")}));
    QDirIterator found(out, {QStringLiteral("*.deb")}, QDir::Files);
    while (found.hasNext())
        m_debs << found.next();
    for (const QString& package : {QStringLiteral("tollgate"), QStringLiteral("tollgatectl"),
                                   QStringLiteral("libtollgate-dev")}) {
        const QString file = deb(package);
        QVERIFY2(!file.isEmpty(), qPrintable(package + QStringLiteral(" not built: ") +
                                             m_debs.join(QLatin1Char(' '))));
        const Run version = run(QStringLiteral("dpkg-deb"), {QStringLiteral("-f"), file,
                                                            QStringLiteral("Version")});
        QCOMPARE(version.out.trimmed(), QByteArray(kVersion));
        RUN_OK(run(QStringLiteral("dpkg-deb"), {QStringLiteral("-x"), file, m_root}));
    }
}

void PackagesTest::lintianFindsNoError()
{
    QVERIFY(!m_debs.isEmpty());
    const Run lintian =
        run(QStringLiteral("lintian"), QStringList{QStringLiteral("--fail-on"), QStringLiteral("error")} + m_debs);
    QVERIFY2(lintian.code == 0 && !lintian.out.contains("\nE: ") && !lintian.out.startsWith("E: "),
             qPrintable(lintian.describe));
}

void PackagesTest::unpackedProgramsAnswerWithoutDisplay()
{
    // No window system at all: no display, no offscreen platform.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(QString::fromLatin1(name));
    const QString console = m_root + QStringLiteral("/usr/bin/tollgate");
    const QString cli = m_root + QStringLiteral("/usr/bin/tollgatectl");
    const QByteArray expected = QByteArray(kVersion) + " (script contract " +
                                QByteArray::number(kScriptContract) + ')';
    for (const QString& program : {console, cli}) {
        const Run version = run(program, {QStringLiteral("--version")}, env);
        RUN_OK(version);
        QVERIFY2(version.out.contains(expected), qPrintable(version.describe));
    }
    const Run help = run(console, {QStringLiteral("--help")}, env);
    RUN_OK(help);
    QVERIFY2(help.out.contains("--demo") && help.out.contains("--url"), qPrintable(help.describe));
    QVERIFY(QFile::exists(m_root + QStringLiteral("/usr/share/man/man1/tollgate.1.gz")));
    QVERIFY(QFile::exists(m_root + QStringLiteral("/usr/share/man/man1/tollgatectl.1.gz")));
    QVERIFY(QFile::exists(m_root + QStringLiteral("/usr/share/applications/tollgate.desktop")));
    QVERIFY(QFile::exists(m_root + QStringLiteral("/usr/share/icons/hicolor/scalable/apps/tollgate.svg")));
    QVERIFY(QFile::exists(m_root + QStringLiteral("/usr/share/bash-completion/completions/tollgatectl")));
    QVERIFY(QFile::exists(m_root + QStringLiteral("/usr/share/zsh/vendor-completions/_tollgatectl")));
    QVERIFY(QFile::exists(m_root + QStringLiteral("/lib/systemd/system/tollgate-exporter.service")));
    QVERIFY(QFile::exists(m_root + QStringLiteral("/usr/share/tollgate/lua/hit.lua")));
}

void PackagesTest::unpackedCliHitsARealServer()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TOLLGATE_URL"), m_redis.url());
    const QString cli = m_root + QStringLiteral("/usr/bin/tollgatectl");
    RUN_OK(run(cli, {QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("like"),
                     QStringLiteral("--limit"), QStringLiteral("1"), QStringLiteral("--window"),
                     QStringLiteral("1m")}, env));
    const Run first = run(cli, {QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("ann"),
                                QStringLiteral("--json")}, env);
    RUN_OK(first);
    QVERIFY2(first.out.contains("\"allowed\":true"), qPrintable(first.describe));
    const Run second = run(cli, {QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("ann")}, env);
    QVERIFY2(second.code == 1, qPrintable(second.describe));
}

QString PackagesTest::buildExample(const QString& prefix, const QString& name)
{
    const QString binary = m_tmp.filePath(name);
    const Run configure = run(QStringLiteral("cmake"),
                              {QStringLiteral("-S"), sourcePath(QStringLiteral("examples/hit")),
                               QStringLiteral("-B"), binary, QStringLiteral("-G"), QStringLiteral("Ninja"),
                               QStringLiteral("-DCMAKE_PREFIX_PATH=") + prefix});
    if (configure.code != 0)
        return configure.describe;
    const Run build = run(QStringLiteral("cmake"), {QStringLiteral("--build"), binary});
    if (build.code != 0)
        return build.describe;
    // Three likes per 10 s: allowed, allowed, allowed, denied (exit 1).
    const QString program = binary + QStringLiteral("/tollgate-example-hit");
    for (int hit = 1; hit <= 4; ++hit) {
        const Run answer = run(program, {m_redis.url(), name});
        const QByteArray expected = hit <= 3 ? "allowed" : "denied";
        if (answer.code != (hit <= 3 ? 0 : 1) || !answer.out.startsWith(expected))
            return answer.describe;
    }
    return {};
}

void PackagesTest::exampleBuildsAgainstUnpackedLibrary()
{
    QVERIFY(QFile::exists(m_root + QStringLiteral("/usr/lib/x86_64-linux-gnu/cmake/Tollgate/TollgateConfig.cmake")) ||
            QFile::exists(m_root + QStringLiteral("/usr/lib/cmake/Tollgate/TollgateConfig.cmake")));
    const QString failure = buildExample(m_root + QStringLiteral("/usr"), QStringLiteral("from-deb"));
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
}

void PackagesTest::installIntoPrefix()
{
    const QString prefix = m_tmp.filePath(QStringLiteral("prefix"));
    RUN_OK(run(QStringLiteral("cmake"), {QStringLiteral("--install"), m_build, QStringLiteral("--prefix"),
                                         prefix, QStringLiteral("--component"), QStringLiteral("dev")}));
    const QString failure = buildExample(prefix, QStringLiteral("from-prefix"));
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
}

QTEST_GUILESS_MAIN(PackagesTest)
#include "tst_Packages.moc"
