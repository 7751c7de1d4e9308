#pragma once

#include "tollgate/Reply.h"
#include "tollgate/Result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <initializer_list>
#include <optional>
#include <vector>

namespace tollgate {

/// Bulk strings already encoded as RESP (`$<len>\r\n<bytes>\r\n` each), to be spliced into
/// many commands: the policy-constant arguments of a prepared hit. Only RespFragment's own
/// methods write into it, so it always holds whole bulk strings and knows how many.
class RespFragment
{
public:
    void add(QByteArrayView bytes);
    /// One bulk string made of several parts (a key built from a prefix and a suffix).
    void addParts(std::initializer_list<QByteArrayView> parts);
    void addNumber(qint64 value);

    const QByteArray& bytes() const { return m_bytes; }
    qsizetype count() const { return m_count; }

private:
    QByteArray m_bytes;
    qsizetype m_count = 0;
};

/// One complete command in RESP, ready for the socket. Built only by CommandBuilder (or from
/// plain arguments), so a Client never sends bytes that are not a well-formed command.
class EncodedCommand
{
public:
    EncodedCommand() = default;
    static EncodedCommand fromArgs(const Command& args);

    const QByteArray& bytes() const { return m_bytes; }
    bool isEmpty() const { return m_bytes.isEmpty(); }
    /// SUBSCRIBE / PSUBSCRIBE: the connection switches to reading pushes.
    bool subscribes() const { return m_subscribes; }

private:
    friend class CommandBuilder;
    friend class EncodedPipeline;
    QByteArray m_bytes;
    bool m_subscribes = false;
};

/// Writes one command as a RESP array of bulk strings straight into one buffer: lengths are
/// written digit by digit (no sprintf, unlike hiredis' redisFormatCommandArgv) and any byte,
/// \0 and \r\n included, travels as is. The argument count is declared up front and checked
/// by finish(), so a miscounted command never reaches the wire.
class CommandBuilder
{
public:
    /// `reserveBytes` is a size hint for the whole command.
    explicit CommandBuilder(qsizetype argumentCount, qsizetype reserveBytes = 0);

    CommandBuilder& add(QByteArrayView bytes);
    CommandBuilder& addParts(std::initializer_list<QByteArrayView> parts);
    CommandBuilder& addNumber(qint64 value);
    CommandBuilder& add(const RespFragment& fragment);

    /// InvalidInput when the arguments written differ from the count declared.
    Result<EncodedCommand> finish() &&;

private:
    QByteArray m_bytes;
    qsizetype m_declared = 0;
    qsizetype m_written = 0;
};

/// Many commands in RESP, back to back in one buffer, ready for the socket in one piece. Built
/// only by PipelineBuilder, so every command in it is well-formed; none subscribes.
class EncodedPipeline
{
public:
    const QByteArray& bytes() const { return m_bytes; }
    qsizetype count() const { return qsizetype(m_starts.size()); }
    bool isEmpty() const { return m_starts.empty(); }
    /// The command at `index` on its own (a cluster routes each to the node of its key).
    EncodedCommand command(qsizetype index) const;

private:
    friend class PipelineBuilder;
    QByteArray m_bytes;
    std::vector<qsizetype> m_starts; // where each command begins in m_bytes
};

/// Writes many commands straight into one buffer, as CommandBuilder writes one: no list of
/// arguments, no buffer per command. Each command declares its argument count up front and
/// finish() checks every one.
class PipelineBuilder
{
public:
    /// `reserveBytes` is a size hint for the whole pipeline.
    explicit PipelineBuilder(qsizetype reserveBytes = 0);

    /// Starts the next command, of `argumentCount` arguments.
    PipelineBuilder& command(qsizetype argumentCount);
    PipelineBuilder& add(QByteArrayView bytes);
    PipelineBuilder& addParts(std::initializer_list<QByteArrayView> parts);
    PipelineBuilder& addNumber(qint64 value);

    qsizetype count() const { return qsizetype(m_pipeline.m_starts.size()); }

    /// InvalidInput when a command's arguments differ from the count it declared, when one
    /// declares none, or when one subscribes (its replies would be pushes).
    Result<EncodedPipeline> finish() &&;

private:
    void closeCommand();

    EncodedPipeline m_pipeline;
    qsizetype m_declared = 0;
    qsizetype m_written = 0;
    std::optional<Error> m_error; // the first miscounted command
};

/// Bytes a bulk string of `payload` bytes takes on the wire: `$<len>\r\n<payload>\r\n`.
qsizetype bulkStringSize(qsizetype payload);

} // namespace tollgate
