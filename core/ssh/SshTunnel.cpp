#include "core/ssh/SshTunnel.h"

#include "core/ssh/SshFailure.h"
#include "core/ssh/SshSession.h"

#include <QMutex>
#include <QSemaphore>
#include <vector>

namespace tollgate {

std::shared_ptr<SshTunnel> SshTunnel::shared(const SshOptions& options)
{
    static QMutex mutex;
    static std::vector<std::pair<SshOptions, std::weak_ptr<SshTunnel>>> live;
    const QMutexLocker lock(&mutex);
    std::shared_ptr<SshTunnel> found;
    for (auto entry = live.begin(); entry != live.end();) {
        std::shared_ptr<SshTunnel> tunnel = entry->second.lock();
        if (!tunnel) {
            entry = live.erase(entry);
            continue;
        }
        if (entry->first == options)
            found = tunnel;
        ++entry;
    }
    if (!found) {
        found = std::make_shared<SshTunnel>(options);
        live.emplace_back(options, found);
    }
    return found;
}

SshTunnel::SshTunnel(SshOptions options)
    : m_options(std::move(options)), m_session(new SshSession(m_options))
{
    m_thread.setObjectName(QStringLiteral("tollgate-ssh"));
    m_session->moveToThread(&m_thread);
    m_thread.start();
}

SshTunnel::~SshTunnel()
{
    m_session->requestStop();
    SshSession* session = m_session;
    QMetaObject::invokeMethod(
        m_session, [session] { session->stop(); }, Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
    delete m_session; // its thread has ended; stop() left nothing bound to it
}

void SshTunnel::forward(const QString& host, quint16 port, Done done)
{
    SshSession* session = m_session;
    QMetaObject::invokeMethod(
        m_session,
        [session, host, port, done = std::move(done)] { done(session->forward(host, port)); },
        Qt::QueuedConnection);
}

Result<QString> SshTunnel::forwardSync(const QString& host, quint16 port)
{
    QSemaphore answered;
    Result<QString> result = Error{ErrorKind::Closed, QStringLiteral("SSH tunnel closed")};
    forward(host, port, [&](Result<QString> path) {
        result = std::move(path);
        answered.release();
    });
    answered.acquire();
    return result;
}

qint64 SshTunnel::processId() const
{
    return m_session->processId();
}

} // namespace tollgate

namespace tollgate {

QString SshTunnel::lastForwardFailure() const
{
    return forwardFailure(m_session->readLog());
}

} // namespace tollgate
