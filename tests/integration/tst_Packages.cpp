// The Debian packages as a user gets them, checked without touching the machine's installed
// packages: CPack builds them from this build tree, lintian finds no error, `dpkg-deb -x`
// unpacks them into a temporary root, and from there `--version`, `--help` (no display),
// `tollgatectl hit` against a private redis-server and the example consumer of examples/hit
// (built against the unpacked libtollgate-dev) all work. `cmake --install` into a prefix gives
// the same library. tollgated's package holds exactly its files and conffiles, its unit passes
// `systemd-analyze verify`, and the unpacked daemon checks and serves the packaged example
// configuration with the unit's command line.

#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Version.h"

#include <QCoreApplication>
#include <QDirIterator>
#include <QProcess>
#include <QRegularExpression>
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

// What the build made: tollgated and its package are left out without gRPC
// (TOLLGATE_BUILD_SERVICE, tests/CMakeLists.txt).
#ifdef TOLLGATE_PACKAGES_SERVICE
constexpr bool kServiceBuilt = true;
#else
constexpr bool kServiceBuilt = false;
#endif

#define REQUIRE_SERVICE()                                                                          \
    do {                                                                                           \
        if (!kServiceBuilt)                                                                        \
            QSKIP("tollgated is not built (TOLLGATE_BUILD_SERVICE=OFF)");                          \
    } while (false)

const QString kServiceConfig = QStringLiteral("/etc/tollgate/ratelimit.yaml");

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
    void installedLibraryHoldsNoDemo();
    void installedApiIsTheFacade();
    void servicePackageHoldsItsFiles();
    void serviceUnitVerifies();
    void unpackedServiceChecksItsConfiguration();
    void unpackedServiceServesThePackagedConfiguration();

private:
    QString deb(const QString& package) const;
    QByteArray debInfo(const QString& package, const QStringList& args) const;
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
    QStringList packages{QStringLiteral("tollgate"), QStringLiteral("tollgatectl"),
                         QStringLiteral("libtollgate-dev")};
    if (kServiceBuilt)
        packages << QStringLiteral("tollgated");
    for (const QString& package : packages) {
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

void PackagesTest::installedLibraryHoldsNoDemo()
{
    // The demo (app/demo) and what the executables share (app/common) are theirs, not the
    // library's: neither their code nor their headers are installed for other programs.
    const QString prefix = m_tmp.filePath(QStringLiteral("prefix"));
    QDirIterator libraries(prefix, {QStringLiteral("libtollgate_core.a")}, QDir::Files,
                           QDirIterator::Subdirectories);
    QVERIFY2(libraries.hasNext(), qPrintable(prefix + QStringLiteral(" holds no libtollgate_core.a")));
    const Run symbols = run(QStringLiteral("nm"), {QStringLiteral("-C"), libraries.next()});
    RUN_OK(symbols);
    QVERIFY(symbols.out.contains("tollgate::Limiter::"));
    for (const char* demo : {"tollgate::Demo", "tollgate::ClusterJoin", "tollgate::RawCommand",
                             "tollgate::QuitOnSignal", "quitOnSignal"})
        QVERIFY2(!symbols.out.contains(demo), demo);
    QDirIterator headers(prefix + QStringLiteral("/include"), QDir::Dirs | QDir::NoDotAndDotDot,
                         QDirIterator::Subdirectories);
    while (headers.hasNext()) {
        const QString folder = headers.next();
        QVERIFY2(!folder.endsWith(QLatin1String("/demo")) && !folder.endsWith(QLatin1String("/common")),
                 qPrintable(folder));
    }
}

void PackagesTest::installedApiIsTheFacade()
{
    // <tollgate/...> is the API and all that is installed: every header of include/tollgate and
    // the generated Version.h, at most 20, no folder of core/ beside them, and none of them
    // includes anything of the library's but another of them. The examples include nothing
    // else of the library's.
    const QString prefix = m_tmp.filePath(QStringLiteral("prefix"));
    const QString installed = prefix + QStringLiteral("/include/tollgate");
    const QStringList headers{QStringLiteral("*.h")};
    QStringList facade = QDir(sourcePath(QStringLiteral("include/tollgate"))).entryList(headers);
    QVERIFY(facade.contains(QStringLiteral("tollgate.h")));
    facade << QStringLiteral("Version.h");
    facade.sort(Qt::CaseInsensitive); // as QDir lists them
    QCOMPARE(QDir(installed).entryList(headers), facade);
    QVERIFY2(facade.size() <= 20, qPrintable(facade.join(QLatin1Char(' '))));
    QCOMPARE(QDir(installed).entryList(QDir::Dirs | QDir::NoDotAndDotDot), QStringList());
    QDirIterator everything(prefix + QStringLiteral("/include"), QDir::Files,
                            QDirIterator::Subdirectories);
    int files = 0;
    static const QRegularExpression quoted(QStringLiteral("^\\s*#\\s*include\\s*\"([^\"]+)\""));
    while (everything.hasNext()) {
        QFile header(everything.next());
        QVERIFY2(header.fileName().startsWith(installed + QLatin1Char('/')),
                 qPrintable(header.fileName()));
        QVERIFY(header.open(QIODevice::ReadOnly));
        ++files;
        for (const QString& line : QString::fromUtf8(header.readAll()).split(QLatin1Char('\n'))) {
            const QRegularExpressionMatch include = quoted.match(line);
            if (!include.hasMatch())
                continue;
            const QString target = include.captured(1); // "tollgate/Result.h"
            QVERIFY2(target.startsWith(QLatin1String("tollgate/")) &&
                         facade.contains(target.mid(9)),
                     qPrintable(header.fileName() + QStringLiteral(": ") + line));
        }
    }
    QCOMPARE(files, facade.size());

    QDirIterator sources(sourcePath(QStringLiteral("examples")), {QStringLiteral("*.cpp"), QStringLiteral("*.h")},
                         QDir::Files, QDirIterator::Subdirectories);
    static const QRegularExpression ours(
        QStringLiteral("^\\s*#\\s*include\\s*(\"|<(core|app|ui|service)/)"));
    int examples = 0;
    while (sources.hasNext()) {
        QFile source(sources.next());
        QVERIFY(source.open(QIODevice::ReadOnly));
        ++examples;
        for (const QString& line : QString::fromUtf8(source.readAll()).split(QLatin1Char('\n')))
            QVERIFY2(!ours.match(line).hasMatch(), qPrintable(source.fileName() + QStringLiteral(": ") + line));
    }
    QVERIFY(examples > 0);
}

QByteArray PackagesTest::debInfo(const QString& package, const QStringList& args) const
{
    const Run info =
        run(QStringLiteral("dpkg-deb"), args.mid(0, 1) + QStringList{deb(package)} + args.mid(1));
    return info.code == 0 ? info.out : QByteArray("dpkg-deb failed: ") + info.describe.toUtf8();
}

void PackagesTest::servicePackageHoldsItsFiles()
{
    REQUIRE_SERVICE();
    QVERIFY(!deb(QStringLiteral("tollgated")).isEmpty());
    // Every file, no more: `dpkg-deb -c` lines end in the path ("./usr/bin/tollgated").
    QStringList files;
    const QByteArray listing = debInfo(QStringLiteral("tollgated"), {QStringLiteral("-c")});
    for (const QByteArray& line : listing.split('\n')) {
        if (line.startsWith('-'))
            files << QString::fromUtf8(line.mid(line.lastIndexOf(' ') + 1));
    }
    files.sort();
    const QStringList expected{QStringLiteral("./etc/default/tollgated"),
                               QStringLiteral("./etc/tollgate/ratelimit.yaml"),
                               QStringLiteral("./lib/systemd/system/tollgated.service"),
                               QStringLiteral("./usr/bin/tollgated"),
                               QStringLiteral("./usr/share/doc/tollgated/changelog.gz"),
                               QStringLiteral("./usr/share/doc/tollgated/copyright"),
                               QStringLiteral("./usr/share/man/man8/tollgated.8.gz")};
    QCOMPARE(files, expected);

    const QByteArray conffiles = debInfo(QStringLiteral("tollgated"),
                                         {QStringLiteral("--info"), QStringLiteral("conffiles")});
    QCOMPARE(conffiles, QByteArray("/etc/default/tollgated\n/etc/tollgate/ratelimit.yaml\n"));
    const auto field = [this](const char* name) {
        return debInfo(QStringLiteral("tollgated"),
                       {QStringLiteral("-f"), QString::fromLatin1(name)})
            .trimmed();
    };
    QCOMPARE(field("Section"), QByteArray("net"));
    QCOMPARE(field("Recommends"), QByteArray("redis-server"));
    const QByteArray depends = field("Depends");
    QVERIFY2(depends.contains("procps") && depends.contains("libgrpc++"), depends.constData());
    // The unit is made known to systemd but neither enabled nor started at installation.
    const QByteArray postinst = debInfo(QStringLiteral("tollgated"),
                                        {QStringLiteral("--info"), QStringLiteral("postinst")});
    QVERIFY2(postinst.contains("daemon-reload") && postinst.contains("try-restart") &&
                 !postinst.contains("deb-systemd-helper enable") &&
                 !postinst.contains("deb-systemd-invoke start"),
             postinst.constData());
}

void PackagesTest::serviceUnitVerifies()
{
    REQUIRE_SERVICE();
    const QString analyze = QStandardPaths::findExecutable(QStringLiteral("systemd-analyze"));
    if (analyze.isEmpty())
        QSKIP("systemd-analyze (package systemd) is not installed: the unit is not verified");
    // A root of its own: the package's unit, binary and man page, plus what the unit's default
    // dependencies and ExecReload need from the machine (sysinit.target, /bin/kill).
    const QString root = m_tmp.filePath(QStringLiteral("unit-root"));
    const QString unit = QStringLiteral("/lib/systemd/system/tollgated.service");
    const QString man = QStringLiteral("/usr/share/man/man8/tollgated.8.gz");
    const std::pair<QString, QString> copies[] = {
        {m_root + unit, root + unit},
        {m_root + QStringLiteral("/usr/bin/tollgated"),
         root + QStringLiteral("/usr/bin/tollgated")},
        {m_root + man, root + man},
        {QStringLiteral("/lib/systemd/system/sysinit.target"),
         root + QStringLiteral("/lib/systemd/system/sysinit.target")},
        {QStringLiteral("/bin/kill"), root + QStringLiteral("/bin/kill")}};
    for (const auto& [from, to] : copies) {
        QVERIFY(QDir().mkpath(QFileInfo(to).absolutePath()));
        QVERIFY2(QFile::copy(from, to), qPrintable(from + QStringLiteral(" -> ") + to));
    }
    // Documentation=man:tollgated(8) is looked up with man(1), in the root's pages.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("MANPATH"), root + QStringLiteral("/usr/share/man"));
    const bool haveMan = !QStandardPaths::findExecutable(QStringLiteral("man")).isEmpty();
    const Run verify = run(analyze,
                           {QStringLiteral("verify"), QStringLiteral("--root=") + root,
                            haveMan ? QStringLiteral("--man=yes") : QStringLiteral("--man=no"),
                            QStringLiteral("tollgated.service")},
                           env);
    // Unknown keys and bad values are only reported, with exit 0: any output is a finding.
    QVERIFY2(verify.code == 0 && verify.out.trimmed().isEmpty(), qPrintable(verify.describe));
}

void PackagesTest::unpackedServiceChecksItsConfiguration()
{
    REQUIRE_SERVICE();
    const QString daemon = m_root + QStringLiteral("/usr/bin/tollgated");
    const Run version = run(daemon, {QStringLiteral("--version")});
    RUN_OK(version);
    QVERIFY2(version.out.contains(kVersion), qPrintable(version.describe));
    const Run check = run(daemon, {QStringLiteral("check-config"), m_root + kServiceConfig});
    RUN_OK(check);
    for (const char* expected : {"policy edge.remote_address: fixed_window 20 per 1s, 600 per 1m",
                                 "policy edge.generic_key_login.user_id: fixed_window 5 per 1m",
                                 "ban 15m", "ok: 1 domain(s), 2 policies"})
        QVERIFY2(check.out.contains(expected), qPrintable(check.describe));
}

void PackagesTest::unpackedServiceServesThePackagedConfiguration()
{
    REQUIRE_SERVICE();
    // The unit's command line on the package's own files, on free ports, against the private
    // server; SIGTERM (systemctl stop) ends it with exit 0.
    QProcess daemon;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TOLLGATE_URL"), m_redis.url());
    daemon.setProcessEnvironment(env);
    daemon.setProcessChannelMode(QProcess::MergedChannels);
    daemon.start(m_root + QStringLiteral("/usr/bin/tollgated"),
                 {QStringLiteral("--config"), m_root + kServiceConfig, QStringLiteral("--grpc"),
                  QStringLiteral("127.0.0.1:0"), QStringLiteral("--http"),
                  QStringLiteral("127.0.0.1:0"), QStringLiteral("--prefix"),
                  QStringLiteral("pkg")});
    QVERIFY(daemon.waitForStarted(10'000));
    QByteArray log;
    const auto logged = [&](const char* text) {
        log += daemon.readAll();
        return log.contains(text);
    };
    QTRY_VERIFY2_WITH_TIMEOUT(logged("policies: 2 to write") || daemon.state() != QProcess::Running,
                              log.constData(), 20'000);
    QVERIFY2(daemon.state() == QProcess::Running, log.constData());

    // The plan is logged before its writes: the login policy is stored a moment later.
    Run stored;
    const auto loginPolicyStored = [&] {
        stored = run(m_root + QStringLiteral("/usr/bin/tollgatectl"),
                     {QStringLiteral("--prefix"), QStringLiteral("pkg"), QStringLiteral("policy"),
                      QStringLiteral("get"), QStringLiteral("edge.generic_key_login.user_id")},
                     env);
        return stored.code == 0;
    };
    QTRY_VERIFY2_WITH_TIMEOUT(loginPolicyStored(), qPrintable(stored.describe), 10'000);
    QVERIFY2(stored.out.contains("15m"), qPrintable(stored.describe));

    daemon.terminate(); // SIGTERM
    QVERIFY(daemon.waitForFinished(10'000));
    log += daemon.readAll();
    QVERIFY2(daemon.exitStatus() == QProcess::NormalExit && daemon.exitCode() == 0,
             log.constData());
}

QTEST_GUILESS_MAIN(PackagesTest)
#include "tst_Packages.moc"
