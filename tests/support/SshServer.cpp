#include "tests/support/SshServer.h"

#include "tests/support/RedisServer.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QThread>

#include <csignal>
#include <pwd.h>
#include <unistd.h>
#ifdef Q_OS_LINUX
#include <sys/prctl.h>
#endif

namespace tollgate::test {

namespace {

const int kReadyTimeoutMs = 10000;
const int kStopTimeoutMs = 5000;
const int kPortAttempts = 10;

bool writeFile(const QString& path, const QByteArray& text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text) == text.size();
}

// The processes `root` forked, and theirs: sshd's sessions call setsid(), so they are neither
// in its process group nor killed with it.
QList<pid_t> descendants(pid_t root)
{
    QList<pid_t> found{root};
    for (int i = 0; i < found.size(); ++i) {
        const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
        for (const QString& entry : entries) {
            bool numeric = false;
            const pid_t pid = entry.toInt(&numeric);
            if (!numeric || found.contains(pid))
                continue;
            QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
            if (!stat.open(QIODevice::ReadOnly))
                continue;
            const QByteArray line = stat.readAll();
            // "pid (comm) state ppid ...": comm may hold spaces, so read after the last ')'.
            const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
            if (fields.size() > 1 && fields[1].toInt() == found[i])
                found << pid;
        }
    }
    return found;
}

} // namespace

SshServer::SshServer() : m_dir(QDir::tempPath() + QStringLiteral("/tollgate-sshd-XXXXXX")) {}

SshServer::~SshServer()
{
    stop();
}

QString SshServer::sshdPath()
{
    const QString path = QStringLiteral("/usr/sbin/sshd");
    return QFileInfo(path).isExecutable() ? path : QString();
}

QString SshServer::userName()
{
    const passwd* entry = ::getpwuid(::getuid());
    return entry ? QString::fromLocal8Bit(entry->pw_name) : qEnvironmentVariable("USER");
}

bool SshServer::generateKey(const QString& path, QString* error, const QString& passphrase)
{
    QFile::remove(path);
    QFile::remove(path + QStringLiteral(".pub"));
    QProcess keygen;
    keygen.setProcessChannelMode(QProcess::MergedChannels);
    keygen.start(QStringLiteral("ssh-keygen"),
                 {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                  QStringLiteral("-N"), passphrase, QStringLiteral("-C"),
                  QStringLiteral("tollgate-test"), QStringLiteral("-f"), path});
    if (keygen.waitForFinished(kStopTimeoutMs) && keygen.exitCode() == 0)
        return true;
    *error = QStringLiteral("ssh-keygen failed (install openssh-client): ") +
             QString::fromUtf8(keygen.readAll()) + keygen.errorString();
    return false;
}

QString SshServer::knownHostsLine() const
{
    QFile key(m_dir.filePath(QStringLiteral("host_key.pub")));
    if (!key.open(QIODevice::ReadOnly))
        return {};
    const QList<QByteArray> parts = key.readAll().trimmed().split(' ');
    return QStringLiteral("[%1]:%2 %3 %4")
        .arg(host())
        .arg(m_port)
        .arg(QString::fromLatin1(parts.value(0)), QString::fromLatin1(parts.value(1)));
}

QByteArray SshServer::log() const
{
    QFile file(m_dir.filePath(QStringLiteral("sshd.log")));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool SshServer::writeConfig()
{
    const QString d = m_dir.path();
    const QByteArray config = QStringLiteral(
        "Port %1\nListenAddress 127.0.0.1\nHostKey %2/host_key\nPidFile %2/sshd.pid\n"
        "AuthorizedKeysFile %2/authorized_keys\nStrictModes no\nUsePAM no\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
        "PermitRootLogin prohibit-password\nAllowTcpForwarding yes\nAllowAgentForwarding no\n"
        "X11Forwarding no\nPrintMotd no\nLogLevel DEBUG1\n")
                                  .arg(m_port)
                                  .arg(d)
                                  .toUtf8();
    return writeFile(m_dir.filePath(QStringLiteral("sshd_config")), config);
}

bool SshServer::start()
{
    m_error.clear();
    if (sshdPath().isEmpty()) {
        m_error = QStringLiteral("/usr/sbin/sshd not found: run scripts/setup.sh (openssh-server)");
        return false;
    }
    if (!m_dir.isValid() || !generateKey(m_dir.filePath(QStringLiteral("host_key")), &m_error) ||
        !generateKey(userKey(), &m_error))
        return false;
    QFile pub(userKey() + QStringLiteral(".pub"));
    if (!pub.open(QIODevice::ReadOnly) ||
        !writeFile(m_dir.filePath(QStringLiteral("authorized_keys")), pub.readAll())) {
        m_error = QStringLiteral("cannot write authorized_keys");
        return false;
    }
    // As root, sshd's privilege separation needs its empty directory (made by the service
    // otherwise, which scripts/setup.sh leaves disabled).
    if (::getuid() == 0)
        QDir().mkpath(QStringLiteral("/run/sshd"));
    for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
        m_port = RedisServer::freePort();
        if (m_port == 0 || !writeConfig())
            continue;
        if (launch())
            return true;
        const bool taken = log().contains("Address already in use");
        stop();
        if (!taken)
            return false;
    }
    return false;
}

bool SshServer::restart()
{
    stop();
    m_error.clear();
    return m_port != 0 && launch();
}

bool SshServer::authorize(const QString& publicKeyFile)
{
    QFile key(publicKeyFile);
    QFile keys(m_dir.filePath(QStringLiteral("authorized_keys")));
    return key.open(QIODevice::ReadOnly) && keys.open(QIODevice::Append) &&
           keys.write(key.readAll()) > 0;
}

bool SshServer::launch()
{
    QFile::remove(m_dir.filePath(QStringLiteral("sshd.log")));
    m_process = std::make_unique<QProcess>();
    m_process->setProgram(sshdPath()); // sshd re-executes itself: an absolute path
    m_process->setArguments({QStringLiteral("-D"), QStringLiteral("-f"),
                             m_dir.filePath(QStringLiteral("sshd_config")), QStringLiteral("-E"),
                             m_dir.filePath(QStringLiteral("sshd.log"))});
    m_process->setStandardInputFile(QProcess::nullDevice());
    m_process->setStandardOutputFile(m_dir.filePath(QStringLiteral("sshd.out")));
    m_process->setStandardErrorFile(m_dir.filePath(QStringLiteral("sshd.out")));
#ifdef Q_OS_LINUX
    m_process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
#endif
    m_process->start();
    if (!m_process->waitForStarted(kStopTimeoutMs)) {
        m_error = QStringLiteral("cannot start sshd: ") + m_process->errorString();
        return false;
    }
    const QByteArray listening = "Server listening on 127.0.0.1 port " + QByteArray::number(m_port);
    const QDeadlineTimer deadline(kReadyTimeoutMs);
    while (!deadline.hasExpired()) {
        if (log().contains(listening))
            return true;
        if (m_process->waitForFinished(20) || m_process->state() == QProcess::NotRunning) {
            QFile out(m_dir.filePath(QStringLiteral("sshd.out")));
            out.open(QIODevice::ReadOnly);
            m_error = QStringLiteral("sshd exited during start-up: ") +
                      QString::fromUtf8(log().right(2000) + out.readAll());
            return false;
        }
    }
    m_error = QStringLiteral("sshd did not listen within 10 s");
    return false;
}

void SshServer::signalAll(int signal)
{
    if (!m_process || m_process->state() == QProcess::NotRunning)
        return;
    for (const pid_t pid : descendants(pid_t(m_process->processId())))
        ::kill(pid, signal);
}

void SshServer::stop(bool crash)
{
    if (!m_process)
        return;
    const QList<pid_t> all = m_process->state() == QProcess::NotRunning
                                 ? QList<pid_t>{}
                                 : descendants(pid_t(m_process->processId()));
    signalAll(crash ? SIGKILL : SIGTERM);
    if (!m_process->waitForFinished(kStopTimeoutMs)) {
        m_process->kill();
        m_process->waitForFinished(kStopTimeoutMs);
    }
    // The sessions are not our children: wait until /proc no longer has them.
    const QDeadlineTimer deadline(kStopTimeoutMs);
    for (const pid_t pid : all) {
        while (::kill(pid, 0) == 0 && !deadline.hasExpired())
            QThread::msleep(10);
    }
    m_process.reset();
}

SshClientConfig::SshClientConfig() : m_dir(QDir::tempPath() + QStringLiteral("/tollgate-ssh-client-XXXXXX")) {}

void SshClientConfig::addHost(const QString& alias, const SshServer& server,
                              const QStringList& extra, const QString& identity)
{
    QStringList lines{QStringLiteral("Host ") + alias,
                      QStringLiteral("  HostName ") + server.host(),
                      QStringLiteral("  Port ") + QString::number(server.port()),
                      QStringLiteral("  User ") + SshServer::userName(),
                      QStringLiteral("  IdentityFile ") +
                          (identity.isEmpty() ? server.userKey() : identity)};
    for (const QString& line : extra)
        lines << QStringLiteral("  ") + line;
    m_hosts << lines.join(QLatin1Char('\n'));
}

void SshClientConfig::trust(const QString& knownHostsLine)
{
    m_known << knownHostsLine;
}

bool SshClientConfig::write()
{
    // Last, as ssh takes the first value it reads: what every host gets unless it says otherwise.
    // StrictHostKeyChecking here is for ProxyJump hops (Tollgate's own -o covers the target).
    const QString defaults = QStringLiteral(
        "Host *\n  UserKnownHostsFile %1\n  GlobalKnownHostsFile /dev/null\n"
        "  StrictHostKeyChecking yes\n  IdentitiesOnly yes\n  IdentityAgent none\n"
        "  PasswordAuthentication no\n  KbdInteractiveAuthentication no\n")
                                 .arg(knownHostsFile());
    const QString config = m_hosts.join(QStringLiteral("\n\n")) + QStringLiteral("\n\n") + defaults;
    const QString known = m_known.isEmpty() ? QString() : m_known.join(QLatin1Char('\n')) + QLatin1Char('\n');
    return writeFile(configFile(), config.toUtf8()) && writeFile(knownHostsFile(), known.toUtf8());
}

} // namespace tollgate::test
