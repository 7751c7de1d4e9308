#include "ui/keys/KeyTemplate.h"

namespace tollgate::ui {

namespace {

// Literal template text in a SCAN glob: the glob's special characters are backslash-escaped.
QByteArray globLiteral(const QString& text)
{
    QByteArray out;
    for (char c : text.toUtf8()) {
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\')
            out += '\\';
        out += c;
    }
    return out;
}

} // namespace

Result<KeyTemplate> KeyTemplate::parse(const QString& text)
{
    static const QRegularExpression placeholder(QStringLiteral("\\{([A-Za-z_][A-Za-z0-9_]*)\\}"));
    KeyTemplate parsed;
    QString regex = QStringLiteral("^");
    qsizetype at = 0;
    int count = 0;
    auto it = placeholder.globalMatch(text);
    while (it.hasNext()) {
        const QRegularExpressionMatch match = it.next();
        const QString literal = text.mid(at, match.capturedStart() - at);
        parsed.m_glob += globLiteral(literal) + '*';
        // Non-greedy, and ':' may appear in ids: the first fitting split wins, as a reader would.
        regex += QRegularExpression::escape(literal) +
                 QStringLiteral("(?<%1>.+?)").arg(match.captured(1));
        at = match.capturedEnd();
        ++count;
    }
    if (count == 0)
        return Error{
            ErrorKind::InvalidInput,
            QStringLiteral("a template needs placeholders, e.g. act:limit:{action}:{user}")};
    parsed.m_glob += globLiteral(text.mid(at));
    regex += QRegularExpression::escape(text.mid(at)) + QStringLiteral("$");
    parsed.m_regex = QRegularExpression(regex, QRegularExpression::DotMatchesEverythingOption);
    if (!parsed.m_regex.isValid())
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("a placeholder name appears twice in '%1'").arg(text)};
    return parsed;
}

QString KeyTemplate::field(const QByteArray& key, const QString& name) const
{
    const QRegularExpressionMatch match = m_regex.match(QString::fromUtf8(key));
    return match.hasMatch() ? match.captured(name) : QString();
}

} // namespace tollgate::ui
