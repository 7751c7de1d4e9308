#pragma once

#include "core/redis/Result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <initializer_list>

namespace tollgate {

using Command = QList<QByteArray>;

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

/// Bytes a bulk string of `payload` bytes takes on the wire: `$<len>\r\n<payload>\r\n`.
qsizetype bulkStringSize(qsizetype payload);

} // namespace tollgate
