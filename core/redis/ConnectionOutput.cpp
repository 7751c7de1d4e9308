// What a Connection sends: one command, or a pipeline of many written in one piece (their
// replies settled into one BatchReplies instead of a callback each), and when it leaves.
#include "core/redis/Connection.h"

#include <QAbstractSocket>
#include <QLocalSocket>

namespace tollgate {

void Connection::write(const EncodedCommand& command, Done done, bool withDeadline)
{
    const qint64 deadline = withDeadline ? m_clock.elapsed() + m_options.commandTimeout.count() : 0;
    m_inFlight.push_back({std::move(done), deadline, nullptr, 0});
    noteBusy();
    if (deadline != 0)
        armDeadline(deadline + 1);
    appendOutput(command.bytes());
}

void Connection::flushOutput()
{
    if (!m_device || m_output.isEmpty())
        return;
    // A TcpStream hands it straight to the kernel; Qt's sockets are told to write it now
    // instead of on the next poll round.
    m_device->write(m_output);
    if (auto* socket = qobject_cast<QAbstractSocket*>(m_device.get()))
        socket->flush();
    else if (auto* local = qobject_cast<QLocalSocket*>(m_device.get()))
        local->flush();
    m_output.resize(0); // keeps the capacity for the next batch
}

void Connection::submit(const EncodedPipeline& pipeline,
                        const std::shared_ptr<BatchReplies>& replies)
{
    const qsizetype count = pipeline.count();
    if (m_state == ConnectionState::Connected && m_waiting.empty() &&
        qsizetype(m_inFlight.size()) + count <= m_options.maxInFlight) {
        // The fast path: one append, one in-flight entry per command, nothing allocated per
        // command (the entries share `replies`).
        const qint64 deadline = m_clock.elapsed() + m_options.commandTimeout.count();
        for (qsizetype i = 0; i < count; ++i)
            m_inFlight.push_back({nullptr, deadline, replies, size_t(i)});
        noteBusy();
        armDeadline(deadline + 1);
        appendOutput(pipeline.bytes());
        return;
    }
    // Connecting, past maxInFlight or down: command by command, as submit() does each.
    for (qsizetype i = 0; i < count; ++i)
        submit(pipeline.command(i),
               [replies, i](Result<Reply> reply) { replies->settle(size_t(i), std::move(reply)); });
}

void Connection::InFlight::fail(const Error& error)
{
    if (batch)
        std::exchange(batch, nullptr)->settle(index, error);
    else if (done)
        std::exchange(done, nullptr)(error);
}

} // namespace tollgate
