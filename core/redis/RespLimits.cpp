#include "core/redis/RespLimits.h"

#include <optional>

namespace tollgate {

namespace {

Error tooLarge(const QString& what, QByteArrayView line, qint64 limit)
{
    return {ErrorKind::Protocol, QStringLiteral("invalid reply from server: %1 '%2' exceeds the "
                                                "limit of %3")
                                     .arg(what, QString::fromLatin1(line.first(std::min<qsizetype>(32, line.size()))))
                                     .arg(limit)};
}

// The n of a "*<n>" or "$<n>" header: an optional '-' and 1 to 18 digits, else nullopt.
std::optional<qint64> headerCount(QByteArrayView digits)
{
    const bool negative = digits.startsWith('-');
    if (negative)
        digits = digits.sliced(1);
    if (digits.isEmpty() || digits.size() > 18)
        return std::nullopt;
    qint64 n = 0;
    for (const char c : digits) {
        if (c < '0' || c > '9')
            return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return negative ? -n : n;
}

} // namespace

void RespHeaderGuard::reset()
{
    m_line.clear();
    m_skip = 0;
}

Status RespHeaderGuard::check(const QByteArray& bytes, qsizetype* accepted)
{
    qsizetype at = 0;
    const qsizetype size = bytes.size();
    *accepted = size;
    while (at < size) {
        if (m_skip > 0) {
            const qint64 step = std::min<qint64>(m_skip, size - at);
            m_skip -= step;
            at += step;
            continue;
        }
        const qsizetype lineStart = m_line.isEmpty() ? at : 0;
        const qsizetype newline = bytes.indexOf('\n', at);
        const qsizetype end = newline < 0 ? size : newline;
        // A line that lies whole in these bytes (nearly all) is checked where it is; only one
        // split across reads is gathered in m_line.
        QByteArrayView line(bytes.constData() + at, end - at);
        if (!m_line.isEmpty() || newline < 0) {
            m_line.append(line);
            line = m_line;
        }
        if (line.size() > m_limits.maxLineBytes) {
            *accepted = lineStart;
            return tooLarge(QStringLiteral("a line starting"), line, m_limits.maxLineBytes);
        }
        if (newline < 0)
            return Unit{};
        at = newline + 1;
        if (line.endsWith('\r'))
            line.chop(1);
        const Status checked = checkLine(line);
        // Emptied only when used: resize() on a null QByteArray allocates (a malloc and a free
        // per line, ~1,000 instructions of a hit's reply).
        if (!m_line.isEmpty())
            m_line.resize(0); // keeps its capacity for the next split line
        if (!checked) {
            *accepted = lineStart;
            return checked;
        }
    }
    return Unit{};
}

Status RespHeaderGuard::checkLine(QByteArrayView line)
{
    if (line.isEmpty() || (line[0] != '*' && line[0] != '$'))
        return Unit{}; // +status, -error, :integer: the line is the whole value
    const std::optional<qint64> n = headerCount(line.sliced(1));
    if (!n)
        return Error{ErrorKind::Protocol,
                     QStringLiteral("invalid reply from server: bad header '%1'")
                         .arg(QString::fromLatin1(line.first(std::min<qsizetype>(32, line.size()))))};
    if (*n < 0)
        return Unit{}; // nil array or bulk string
    if (line[0] == '*') {
        if (*n > m_limits.maxElements)
            return tooLarge(QStringLiteral("an array of"), line, m_limits.maxElements);
        return Unit{};
    }
    if (*n > m_limits.maxBulkBytes)
        return tooLarge(QStringLiteral("a bulk string of"), line, m_limits.maxBulkBytes);
    m_skip = *n + 2; // the payload and its \r\n are data, never headers
    return Unit{};
}

} // namespace tollgate
