#pragma once

#include <QByteArray>
#include <QString>

#include <atomic>
#include <thread>
#include <vector>

namespace tollgate::test {

// The two-command rate-limit counter the README warns about, as a load: threads, each with its
// own blocking connection to host:port (a server or a proxy), run INCR on a key and, when it
// answered 1, EXPIRE on it, over `keys` keys "<prefix>{u<n>}:naive" (a hash tag per user, as a
// Twemproxy pool with hash_tag "{}" wants). An error reply or a closed connection costs the
// pair, as it would an application; the thread reconnects and goes on.
class NaiveCounterLoad
{
public:
    NaiveCounterLoad(QString host, quint16 port, QByteArray prefix, int keys = 200,
                     int expireSeconds = 1);
    ~NaiveCounterLoad();
    NaiveCounterLoad(const NaiveCounterLoad&) = delete;
    NaiveCounterLoad& operator=(const NaiveCounterLoad&) = delete;

    void start(int threads = 4);
    void stop();

    // The SCAN pattern of the load's keys.
    QByteArray pattern() const { return m_prefix + "{u*}:naive"; }
    qint64 operations() const { return m_operations.load(); }
    qint64 errors() const { return m_errors.load(); }

private:
    void run(int thread, int threads);

    QString m_host;
    quint16 m_port;
    QByteArray m_prefix;
    int m_keys;
    int m_expireSeconds;
    std::atomic<bool> m_stop{false};
    std::atomic<qint64> m_operations{0};
    std::atomic<qint64> m_errors{0};
    std::vector<std::thread> m_threads;
};

} // namespace tollgate::test
