#include "tests/support/EpollThread.h"

#include "core/redis/EpollDispatcher.h"

#include <QByteArray>
#include <QDeadlineTimer>

#include <algorithm>
#include <sys/socket.h>
#include <unistd.h>

namespace tollgate::test {

qint64 readFrom(int fd, qint64 max)
{
    char buffer[4096];
    qint64 total = 0, n = 0;
    while (total < max && (n = ::read(fd, buffer, size_t(std::min<qint64>(4096, max - total)))) > 0)
        total += n;
    return total;
}

SocketPair::SocketPair()
{
    (void)::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fd);
}

SocketPair::~SocketPair()
{
    closeEnd(0), closeEnd(1);
}

void SocketPair::closeEnd(int end)
{
    (void)(fd[end] >= 0 && ::close(fd[end])), fd[end] = -1;
}

bool SocketPair::send(int bytes) const
{
    return ::write(fd[1], QByteArray(bytes, 'x').constData(), size_t(bytes)) == bytes;
}

EpollThread::EpollThread()
{
    auto* dispatcher = new EpollDispatcher;
    if (dispatcher->isValid()) {
        thread.setEventDispatcher(dispatcher);
        QObject::connect(
            dispatcher, &QAbstractEventDispatcher::awake, home, [this] { ++m_turns; },
            Qt::DirectConnection);
    } else {
        delete dispatcher; // then the thread runs Qt's loop, and isValid() says so
    }
    home->moveToThread(&thread);
    QObject::connect(&thread, &QThread::finished, home, &QObject::deleteLater);
    thread.start();
    // The way out when a quit() is lost: a byte on the kick pair ends the loop's wait.
    run([this] {
        watch(
            QSocketNotifier::Read, [this] { readFrom(m_kick.fd[0]); }, m_kick.fd[0]);
    });
}

EpollThread::~EpollThread()
{
    (void)(thread.isFinished() || quit());
}

bool EpollThread::isValid() const
{
    return qobject_cast<EpollDispatcher*>(dispatcher()) && pair.fd[1] >= 0;
}

QSocketNotifier* EpollThread::watch(QSocketNotifier::Type type, std::function<void()> slot, int fd)
{
    auto* notifier = new QSocketNotifier(fd >= 0 ? fd : pair.fd[0], type, home);
    QObject::connect(notifier, &QSocketNotifier::activated, std::move(slot));
    return notifier;
}

bool EpollThread::ends()
{
    return thread.wait(QDeadlineTimer(10000));
}

bool EpollThread::quit()
{
    thread.quit();
    return ends() || ((void)::write(m_kick.fd[1], "k", 1), thread.wait(), false);
}

QTimer* timerOn(QObject* parent, int interval, std::function<void()> slot, Qt::TimerType type,
                bool singleShot)
{
    auto* timer = new QTimer(parent);
    timer->setTimerType(type);
    timer->setSingleShot(singleShot);
    QObject::connect(timer, &QTimer::timeout, std::move(slot));
    timer->start(interval);
    return timer;
}

} // namespace tollgate::test
