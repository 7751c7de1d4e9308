#include "core/redis/RespLimits.h"

namespace tollgate {

namespace {

Error tooLarge(const QString& what, const QByteArray& line, qint64 limit)
{
    return {ErrorKind::Protocol, QStringLiteral("invalid reply from server: %1 '%2' exceeds the "
                                                "limit of %3")
                                     .arg(what, QString::fromLatin1(line.left(32)))
                                     .arg(limit)};
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
        m_line.append(bytes.constData() + at, end - at);
        if (m_line.size() > m_limits.maxLineBytes) {
            *accepted = lineStart;
            return tooLarge(QStringLiteral("a line starting"), m_line, m_limits.maxLineBytes);
        }
        if (newline < 0)
            return Unit{};
        at = newline + 1;
        if (m_line.endsWith('\r'))
            m_line.chop(1);
        const Status line = checkLine(m_line);
        m_line.clear();
        if (!line) {
            *accepted = lineStart;
            return line;
        }
    }
    return Unit{};
}

Status RespHeaderGuard::checkLine(const QByteArray& line)
{
    if (line.isEmpty() || (line[0] != '*' && line[0] != '$'))
        return Unit{}; // +status, -error, :integer: the line is the whole value
    bool ok = false;
    const qint64 n = line.mid(1).toLongLong(&ok);
    if (!ok)
        return Error{ErrorKind::Protocol,
                     QStringLiteral("invalid reply from server: bad header '%1'")
                         .arg(QString::fromLatin1(line.left(32)))};
    if (n < 0)
        return Unit{}; // nil array or bulk string
    if (line[0] == '*') {
        if (n > m_limits.maxElements)
            return tooLarge(QStringLiteral("an array of"), line, m_limits.maxElements);
        return Unit{};
    }
    if (n > m_limits.maxBulkBytes)
        return tooLarge(QStringLiteral("a bulk string of"), line, m_limits.maxBulkBytes);
    m_skip = n + 2; // the payload and its \r\n are data, never headers
    return Unit{};
}

} // namespace tollgate
