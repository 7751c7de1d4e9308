#include "core/ssh/SshSession.h"

#include "core/ssh/SshFailure.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>

#include <cerrno>
#include <csignal>
#ifdef Q_OS_LINUX
#include <sys/prctl.h>
#endif

namespace tollgate {

namespace {

const QString kSsh = QStringLiteral("ssh");
constexpr int kMuxTimeoutMs = 10'000;
constexpr int kStopTimeoutMs = 3'000;
// sun_path holds 108 bytes; the longest name we put there is "<dir>/r<n>.sock".
constexpr qsizetype kMaxDirLength = 90;

// What a process killed before it could clean up (SIGKILL, a crash) left behind: the
// directories named after a process that no longer exists. ssh itself died with it
// (PR_SET_PDEATHSIG); its sockets and log are removed here.
void removeOrphans(const QDir& base)
{
    const QStringList ours = base.entryList({QStringLiteral("tollgate-ssh-*-*")}, QDir::Dirs);
    for (const QString& name : ours) {
        bool numeric = false;
        const qint64 pid = name.section(QLatin1Char('-'), 2, 2).toLongLong(&numeric);
        if (numeric && pid > 0 && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH)
            QDir(base.filePath(name)).removeRecursively();
    }
}

std::unique_ptr<QTemporaryDir> privateDirectory()
{
    QString base = QDir::tempPath();
    if (base.size() > kMaxDirLength - 30)
        base = QStringLiteral("/tmp");
    removeOrphans(QDir(base));
    // mkdtemp: mode 0700, so no other user of the machine can reach the sockets inside.
    return std::make_unique<QTemporaryDir>(
        QStringLiteral("%1/tollgate-ssh-%2-XXXXXX").arg(base).arg(QCoreApplication::applicationPid()));
}

QString forwardSpec(const QString& socket, const QString& host, quint16 port)
{
    const QString target =
        host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host;
    return socket + QLatin1Char(':') + target + QLatin1Char(':') + QString::number(port);
}

} // namespace

SshSession::SshSession(SshOptions options)
    : m_options(std::move(options)), m_dir(privateDirectory()),
      m_logPath(m_dir->filePath(QStringLiteral("ssh.log")))
{
}

SshSession::~SshSession()
{
    stop();
}

QString SshSession::controlPath() const
{
    return m_dir->filePath(QStringLiteral("control"));
}

QByteArray SshSession::readLog() const
{
    QFile log(m_logPath);
    return log.open(QIODevice::ReadOnly) ? log.readAll() : QByteArray();
}

void SshSession::requestStop()
{
    m_stopping.store(true);
    if (const qint64 pid = m_pid.load())
        ::kill(pid_t(pid), SIGTERM); // a start waiting for the server or a password ends now
}

bool SshSession::running()
{
    if (!m_master)
        return false;
    // Reaps an exit that happened since the last look (no event loop runs on this thread).
    if (m_master->state() == QProcess::NotRunning || m_master->waitForFinished(0)) {
        m_pid.store(0);
        return false;
    }
    return true;
}

Status SshSession::start()
{
    if (!m_dir || !m_dir->isValid())
        return Error{ErrorKind::Io,
                     QStringLiteral("cannot create a private directory for the SSH tunnel%1")
                         .arg(m_dir ? QStringLiteral(": ") + m_dir->errorString() : QString())};
    m_forwards.clear();
    QFile::remove(controlPath());
    m_master = std::make_unique<QProcess>();
    m_master->setProgram(kSsh);
    QStringList args{QStringLiteral("-N"), QStringLiteral("-M"), QStringLiteral("-S"),
                     controlPath()};
    for (const char* option :
         {"ControlPersist=no", "ExitOnForwardFailure=yes", "ClearAllForwardings=yes",
          "StreamLocalBindUnlink=yes", "RequestTTY=no", "PermitLocalCommand=no",
          "ServerAliveInterval=10", "ServerAliveCountMax=3", "ConnectTimeout=15"})
        args << QStringLiteral("-o") << QString::fromLatin1(option);
    m_master->setArguments(args + m_options.serverArguments());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!m_options.askPassProgram.isEmpty()) {
        env.insert(QStringLiteral("SSH_ASKPASS"), m_options.askPassProgram);
        env.insert(QStringLiteral("SSH_ASKPASS_REQUIRE"), QStringLiteral("force"));
        env.insert(QStringLiteral("TOLLGATE_SSH_ASKPASS"), QStringLiteral("1"));
    }
    m_master->setProcessEnvironment(env);
    m_master->setStandardInputFile(QProcess::nullDevice());
    m_master->setStandardOutputFile(QProcess::nullDevice());
    m_master->setStandardErrorFile(m_logPath);
#ifdef Q_OS_LINUX
    // Gone with us even when we are killed: no SSH session outlives its Redis client.
    m_master->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
#endif
    m_master->start();
    if (!m_master->waitForStarted())
        return Error{ErrorKind::Io, QStringLiteral("cannot run ssh (%1): install the OpenSSH "
                                                   "client (Debian: openssh-client)")
                                        .arg(m_master->errorString())};
    m_pid.store(m_master->processId());
    // The control socket appears once the session is authenticated (ssh links it into place
    // only after it listens): that is the sign it is ready.
    const QDeadlineTimer deadline(kStartTimeout);
    while (!QFileInfo::exists(controlPath())) {
        if (m_master->waitForFinished(25) || m_master->state() == QProcess::NotRunning) {
            m_pid.store(0);
            if (m_stopping.load())
                return Error{ErrorKind::Closed, QStringLiteral("SSH tunnel closed")};
            return classifySshFailure(m_options.destination, readLog());
        }
        if (deadline.hasExpired()) {
            endMaster();
            return Error{ErrorKind::Timeout,
                         QStringLiteral("ssh %1: no session within %2 s")
                             .arg(m_options.destination)
                             .arg(kStartTimeout.count())};
        }
    }
    return Unit{};
}

Result<QString> SshSession::forward(const QString& host, quint16 port)
{
    if (m_stopping.load())
        return Error{ErrorKind::Closed, QStringLiteral("SSH tunnel closed")};
    if (m_refused)
        return *m_refused;
    if (!running()) {
        const Status started = start();
        if (!started) {
            if (started.error().kind == ErrorKind::Auth)
                m_refused = started.error();
            return started.error();
        }
    }
    const QString key = host + QLatin1Char(':') + QString::number(port);
    if (const auto known = m_forwards.find(key); known != m_forwards.end())
        return known->second;

    const QString socket = m_dir->filePath(QStringLiteral("r%1.sock").arg(++m_sockets));
    QProcess mux;
    mux.setProgram(kSsh);
    mux.setArguments(QStringList{QStringLiteral("-S"), controlPath(), QStringLiteral("-o"),
                                 QStringLiteral("ControlMaster=no"), QStringLiteral("-O"),
                                 QStringLiteral("forward"), QStringLiteral("-L"),
                                 forwardSpec(socket, host, port)} +
                     m_options.serverArguments());
    mux.setStandardInputFile(QProcess::nullDevice());
    mux.start();
    if (!mux.waitForFinished(kMuxTimeoutMs) || mux.exitStatus() != QProcess::NormalExit ||
        mux.exitCode() != 0 || !QFileInfo::exists(socket)) {
        mux.kill();
        mux.waitForFinished(kStopTimeoutMs);
        const QString why = QString::fromUtf8(mux.readAllStandardError()).trimmed();
        return Error{ErrorKind::Io, QStringLiteral("ssh %1: cannot forward to %2: %3")
                                        .arg(m_options.destination, key,
                                             why.isEmpty() ? QStringLiteral("the session ended")
                                                           : why)};
    }
    m_forwards.emplace(key, socket);
    return socket;
}

void SshSession::stop()
{
    endMaster();
    m_forwards.clear();
    m_dir.reset(); // the control socket, the forwards' sockets and the log go with it
}

void SshSession::endMaster()
{
    if (m_master && m_master->state() != QProcess::NotRunning) {
        m_master->terminate();
        if (!m_master->waitForFinished(kStopTimeoutMs)) {
            m_master->kill();
            m_master->waitForFinished(kStopTimeoutMs);
        }
    }
    m_master.reset();
    m_pid.store(0);
}

} // namespace tollgate
