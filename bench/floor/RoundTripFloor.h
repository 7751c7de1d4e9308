#pragma once

#include <QByteArray>
#include <QString>

namespace tollgate::bench {

/// The fastest any client can go one command at a time on this machine: one connection, a loop
/// that sends the encoded command, waits in epoll_wait and reads the reply (three system calls
/// per command, nothing else but hiredis' reply reader, which redis-benchmark runs too). Its
/// ops/s next to redis-benchmark's at 1x1 says how much of redis-benchmark's lead is client
/// work at all (README, "2026-11-27: what 1x1 measures on this VM").
struct FloorOptions
{
    /// Also adds and removes an unrelated descriptor (a pipe) in the epoll set before each
    /// send. redis-benchmark's event loop makes five epoll_ctl calls per request, removing its
    /// socket and adding it back among them; this pair changes no data path, only the kernel's
    /// state around the wait.
    bool touchEpollSet = false;
};

struct FloorRun
{
    double opsPerSecond = 0;
    double cpuMicrosPerOp = 0; // this thread's user + system time (getrusage RUSAGE_THREAD)
    QString error;             // empty on success; then the figures are 0
};

/// Sends `encoded` (one complete RESP command) `requests` times to 127.0.0.1:port, each after
/// the reply of the one before. Blocks the calling thread for the whole run; a reply that takes
/// longer than 5 s ends it with an error.
FloorRun runRoundTripFloor(quint16 port, const QByteArray& encoded, qint64 requests,
                           FloorOptions how);

} // namespace tollgate::bench
