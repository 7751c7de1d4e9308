#include "core/redis/CommandBuilder.h"

#include <cstring>

namespace tollgate {

namespace {

// Decimal digits of `value` into the end of `buffer`; returns where they start.
char* formatDecimal(qint64 value, char* end)
{
    // Through unsigned arithmetic so the most negative value has a magnitude too.
    quint64 magnitude = value < 0 ? 0 - quint64(value) : quint64(value);
    char* p = end;
    do {
        *--p = char('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude != 0);
    if (value < 0)
        *--p = '-';
    return p;
}

// Room for `count` more bytes at the end of `out`, where they are to be written. One resize per
// argument: QByteArray::append is insert() in Qt 6.4 (an aliasing check and a generic move every
// call), and an argument took three of them: ~3,000 of the ~17,000 instructions of a hit.
char* grow(QByteArray& out, qsizetype count)
{
    const qsizetype at = out.size();
    out.resize(at + count);
    return out.data() + at;
}

// "<marker><length>\r\n" written just before `end`; returns where it starts.
char* formatHeader(char marker, qint64 length, char* end)
{
    end[-1] = '\n';
    end[-2] = '\r';
    char* start = formatDecimal(length, end - 2);
    *--start = marker;
    return start;
}

void appendHeader(QByteArray& out, char marker, qint64 length)
{
    char buffer[24];
    char* end = buffer + sizeof(buffer);
    const char* start = formatHeader(marker, length, end);
    std::memcpy(grow(out, end - start), start, size_t(end - start));
}

void appendBulkParts(QByteArray& out, std::initializer_list<QByteArrayView> parts)
{
    qsizetype length = 0;
    for (QByteArrayView part : parts)
        length += part.size();
    char buffer[24];
    char* end = buffer + sizeof(buffer);
    const char* start = formatHeader('$', length, end);
    const qsizetype header = end - start;
    char* to = grow(out, header + length + 2);
    std::memcpy(to, start, size_t(header));
    to += header;
    for (QByteArrayView part : parts) {
        if (!part.isEmpty()) // (an empty view may hold no pointer at all)
            std::memcpy(to, part.data(), size_t(part.size()));
        to += part.size();
    }
    to[0] = '\r';
    to[1] = '\n';
}

void appendBulk(QByteArray& out, QByteArrayView bytes)
{
    appendBulkParts(out, {bytes});
}

void appendNumber(QByteArray& out, qint64 value)
{
    char buffer[24];
    char* end = buffer + sizeof(buffer);
    const char* start = formatDecimal(value, end);
    appendBulk(out, QByteArrayView(start, end - start));
}

} // namespace

qsizetype bulkStringSize(qsizetype payload)
{
    char buffer[24];
    char* end = buffer + sizeof(buffer);
    return 1 + (end - formatDecimal(payload, end)) + 2 + payload + 2;
}

void RespFragment::add(QByteArrayView bytes)
{
    appendBulk(m_bytes, bytes);
    ++m_count;
}

void RespFragment::addParts(std::initializer_list<QByteArrayView> parts)
{
    appendBulkParts(m_bytes, parts);
    ++m_count;
}

void RespFragment::addNumber(qint64 value)
{
    appendNumber(m_bytes, value);
    ++m_count;
}

CommandBuilder::CommandBuilder(qsizetype argumentCount, qsizetype reserveBytes)
    : m_declared(argumentCount)
{
    m_bytes.reserve(reserveBytes > 0 ? reserveBytes + 16 : 64);
    appendHeader(m_bytes, '*', argumentCount);
}

CommandBuilder& CommandBuilder::add(QByteArrayView bytes)
{
    appendBulk(m_bytes, bytes);
    ++m_written;
    return *this;
}

CommandBuilder& CommandBuilder::addParts(std::initializer_list<QByteArrayView> parts)
{
    appendBulkParts(m_bytes, parts);
    ++m_written;
    return *this;
}

CommandBuilder& CommandBuilder::addNumber(qint64 value)
{
    appendNumber(m_bytes, value);
    ++m_written;
    return *this;
}

CommandBuilder& CommandBuilder::add(const RespFragment& fragment)
{
    const QByteArray& bytes = fragment.bytes();
    if (!bytes.isEmpty())
        std::memcpy(grow(m_bytes, bytes.size()), bytes.constData(), size_t(bytes.size()));
    m_written += fragment.count();
    return *this;
}

Result<EncodedCommand> CommandBuilder::finish() &&
{
    if (m_written != m_declared || m_declared == 0)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("command declared %1 arguments but has %2")
                         .arg(m_declared)
                         .arg(m_written)};
    EncodedCommand command;
    command.m_bytes = std::move(m_bytes);
    return command;
}

EncodedCommand EncodedCommand::fromArgs(const Command& args)
{
    qsizetype size = 0;
    for (const QByteArray& arg : args)
        size += bulkStringSize(arg.size());
    CommandBuilder builder(args.size(), size);
    for (const QByteArray& arg : args)
        builder.add(arg);
    auto built = std::move(builder).finish();
    if (!built)
        return {}; // no arguments: nothing to send
    EncodedCommand command = std::move(*built);
    if (!args.isEmpty()) {
        // (compared in place: an upper-cased copy of every command's name was a malloc each)
        const QByteArray& name = args.first();
        command.m_subscribes = name.compare("SUBSCRIBE", Qt::CaseInsensitive) == 0 ||
                               name.compare("PSUBSCRIBE", Qt::CaseInsensitive) == 0;
    }
    return command;
}

} // namespace tollgate

namespace tollgate {

EncodedCommand EncodedPipeline::command(qsizetype index) const
{
    const qsizetype from = m_starts[size_t(index)];
    const qsizetype to = index + 1 < count() ? m_starts[size_t(index + 1)] : m_bytes.size();
    EncodedCommand one;
    one.m_bytes = m_bytes.mid(from, to - from);
    return one;
}

PipelineBuilder::PipelineBuilder(qsizetype reserveBytes)
{
    m_pipeline.m_bytes.reserve(reserveBytes > 0 ? reserveBytes : 256);
}

void PipelineBuilder::closeCommand()
{
    if (m_error || count() == 0 || (m_written == m_declared && m_declared > 0))
        return;
    m_error = Error{ErrorKind::InvalidInput,
                    QStringLiteral("command %1 of the pipeline declared %2 arguments but has %3")
                        .arg(count() - 1)
                        .arg(m_declared)
                        .arg(m_written)};
}

PipelineBuilder& PipelineBuilder::command(qsizetype argumentCount)
{
    closeCommand();
    m_pipeline.m_starts.push_back(m_pipeline.m_bytes.size());
    appendHeader(m_pipeline.m_bytes, '*', argumentCount);
    m_declared = argumentCount;
    m_written = 0;
    return *this;
}

PipelineBuilder& PipelineBuilder::add(QByteArrayView bytes)
{
    // Its replies would be pushes, not one reply per command.
    if (m_written == 0 && !m_error &&
        (bytes.compare("SUBSCRIBE", Qt::CaseInsensitive) == 0 ||
         bytes.compare("PSUBSCRIBE", Qt::CaseInsensitive) == 0))
        m_error =
            Error{ErrorKind::InvalidInput,
                  QStringLiteral("a pipeline cannot subscribe (command %1)").arg(count() - 1)};
    appendBulk(m_pipeline.m_bytes, bytes);
    ++m_written;
    return *this;
}

PipelineBuilder& PipelineBuilder::addParts(std::initializer_list<QByteArrayView> parts)
{
    appendBulkParts(m_pipeline.m_bytes, parts);
    ++m_written;
    return *this;
}

PipelineBuilder& PipelineBuilder::addNumber(qint64 value)
{
    appendNumber(m_pipeline.m_bytes, value);
    ++m_written;
    return *this;
}

Result<EncodedPipeline> PipelineBuilder::finish() &&
{
    closeCommand();
    if (m_error)
        return *m_error;
    if (count() == 0)
        return Error{ErrorKind::InvalidInput, QStringLiteral("empty pipeline")};
    return std::move(m_pipeline);
}

} // namespace tollgate
