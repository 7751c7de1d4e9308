#pragma once

// Pauses a test's redis-server the way a stalled server looks to a client: SIGSTOP keeps its
// sockets open and answers nothing until SIGCONT. Resumed at the latest when it goes out of
// scope, so a failing check never leaves the server stopped for the next test.
#include "tests/support/RedisServer.h"

#include <csignal>
#include <sys/types.h>

namespace tollgate::test {

class PausedRedis
{
public:
    explicit PausedRedis(const RedisServer& server) : m_pid(pid_t(server.processId()))
    {
        if (m_pid > 0)
            ::kill(m_pid, SIGSTOP);
    }
    ~PausedRedis() { resume(); }
    PausedRedis(const PausedRedis&) = delete;
    PausedRedis& operator=(const PausedRedis&) = delete;

    void resume()
    {
        if (m_pid > 0)
            ::kill(m_pid, SIGCONT);
        m_pid = 0;
    }

private:
    pid_t m_pid;
};

} // namespace tollgate::test
