#pragma once

// What a console benchmark reads about the processes it measures: the server's commands per
// second and CPU, this process's CPU by thread and its peak memory. Linux (/proc, getrusage).
#include "tollgate/Client.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QObject>
#include <QTimer>
#include <map>
#include <sys/resource.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace tollgate::bench {

inline qint64 peakRssMb()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong() / 1024;
    return -1;
}

// CPU seconds the server has used so far (INFO cpu: user + system).
inline double serverCpuSeconds(Client& client)
{
    auto info = client.executeSync({"INFO", "cpu"});
    double seconds = 0;
    if (info)
        for (const QByteArray& line : info->toBytes().split('\n'))
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:"))
                seconds += line.mid(line.indexOf(':') + 1).trimmed().toDouble();
    return seconds;
}

// CPU seconds used by this process (who == RUSAGE_SELF) or its waited-for children.
inline double cpuSeconds(int who)
{
    rusage usage{};
    getrusage(who, &usage);
    auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// CPU seconds each thread of a process (0: this one) has used, added up by thread name (GUI
// thread, redis-io-N, the pool): where its share of a load goes.
inline std::map<QByteArray, double> cpuSecondsByThread(qint64 pid = 0)
{
    std::map<QByteArray, double> byName;
    const double tick = double(sysconf(_SC_CLK_TCK));
    const QString tasks = pid > 0 ? QStringLiteral("/proc/%1/task").arg(pid)
                                  : QStringLiteral("/proc/self/task");
    for (const QString& tid : QDir(tasks).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile stat(tasks + QStringLiteral("/%1/stat").arg(tid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        // "<tid> (<comm>) <state> ...": utime and stime are fields 14 and 15, counted from 1.
        const qsizetype open = line.indexOf('('), close = line.lastIndexOf(')');
        if (open < 0 || close < open)
            continue;
        QByteArray name = line.mid(open + 1, close - open - 1);
        if (name.startsWith("redis-io-"))
            name = "redis-io";
        const QList<QByteArray> fields = line.mid(close + 2).split(' ');
        if (fields.size() > 12)
            byName[name] += (fields[11].toDouble() + fields[12].toDouble()) / tick;
    }
    return byName;
}

// Context switches of every thread of process `pid` so far, voluntary (it waited) and not
// (it was preempted): each is a wake-up, which costs a virtual machine far more than a call.
inline qint64 contextSwitches(qint64 pid)
{
    qint64 switches = 0;
    const QString tasks = QStringLiteral("/proc/%1/task").arg(pid);
    for (const QString& tid : QDir(tasks).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile status(tasks + QStringLiteral("/%1/status").arg(tid));
        if (!status.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray& line : status.readAll().split('\n'))
            if (line.startsWith("voluntary_ctxt_switches:") ||
                line.startsWith("nonvoluntary_ctxt_switches:"))
                switches += line.mid(line.indexOf(':') + 1).trimmed().toLongLong();
    }
    return switches;
}

// Commands the server ran per second (INFO commandstats, scripts' inner commands included),
// sampled once a second without the GUI thread ever waiting for the answer.
class ServerRate : public QObject
{
public:
    explicit ServerRate(Client* probe) : m_probe(probe)
    {
        m_timer.setInterval(1000);
        QObject::connect(&m_timer, &QTimer::timeout, this, [this] { sample(); });
    }
    void start()
    {
        m_samples.clear();
        m_clock.start();
        m_timer.start();
        sample();
    }
    void stop() { m_timer.stop(); }
    // Commands per second over the whole time, less the probe's own INFO calls.
    qint64 average() const
    {
        if (m_samples.size() < 2)
            return 0;
        const auto& [t0, c0] = m_samples.front();
        const auto& [t1, c1] = m_samples.back();
        const qint64 own = qint64(m_samples.size()) - 1;
        return (c1 - c0 - own) * 1000 / qMax<qint64>(1, t1 - t0);
    }
    // The busiest second.
    qint64 peak() const
    {
        qint64 most = 0;
        for (size_t i = 1; i < m_samples.size(); ++i)
            most = qMax(most, (m_samples[i].second - m_samples[i - 1].second - 1) * 1000 /
                                  qMax<qint64>(1, m_samples[i].first - m_samples[i - 1].first));
        return most;
    }

private:
    void sample()
    {
        const qint64 at = m_clock.elapsed();
        m_probe->execute({"INFO", "commandstats"}, this, [this, at](Result<Reply> info) {
            if (!info)
                return;
            qint64 calls = 0;
            for (const QByteArray& line : info->toBytes().split('\n')) {
                const int from = line.indexOf("calls=");
                if (from >= 0)
                    calls += line.mid(from + 6, line.indexOf(',', from) - from - 6).toLongLong();
            }
            m_samples.emplace_back(at, calls);
        });
    }

    Client* m_probe;
    QTimer m_timer;
    QElapsedTimer m_clock;
    std::vector<std::pair<qint64, qint64>> m_samples; // (ms since start, calls so far)
};

} // namespace tollgate::bench
