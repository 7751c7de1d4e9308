#include "tollgate/KeySchema.h"

#include "core/keys/IdText.h"

#include <QList>

namespace tollgate {

namespace {

// ASCII bytes that stay raw in keys; bytes >= 0x80 are decided by utf8SequenceLength().
bool isPlain(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    switch (c) {
    case '-':
    case '_':
    case '.':
    case '@':
    case '+':
    case '=':
    case '!':
    case '~':
    case ',':
    case ';':
    case '#':
    case '&':
    case '$':
    case '(':
    case ')':
    case '\'':
    case '/':
    case '<':
    case '>':
    case '|':
    case '^':
    case '`':
    case '"':
        return true;
    default:
        return false; // ':', '{', '}', '*', '?', '[', ']', '\\', '%', space, controls
    }
}

// How many leading bytes of `bytes` are plain ASCII, which escape() keeps as they are.
qsizetype plainPrefix(QByteArrayView bytes)
{
    qsizetype plain = 0;
    while (plain < bytes.size() && static_cast<unsigned char>(bytes[plain]) < 0x80 &&
           isPlain(static_cast<unsigned char>(bytes[plain])))
        ++plain;
    return plain;
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1; // escape() writes upper case only; anything else is not ours
}

} // namespace

KeySchema::KeySchema(QByteArray prefix) : m_prefix(std::move(prefix)) {}

QByteArray KeySchema::escape(const QByteArray& id)
{
    static const char digits[] = "0123456789ABCDEF";
    // Most ids need nothing escaped: those are shared as they are (every hit escapes its id).
    const qsizetype plain = plainPrefix(id);
    if (plain == id.size())
        return id;
    QByteArray out;
    out.reserve(id.size() + 16);
    out.append(id.constData(), plain);
    for (qsizetype i = plain; i < id.size(); ++i) {
        const auto c = static_cast<unsigned char>(id[i]);
        if (c < 0x80 && isPlain(c)) {
            out += id[i];
        } else if (const int length = c >= 0x80 ? utf8SequenceLength(id, i) : 0) {
            // Well-formed UTF-8 stays readable in raw key listings; any other byte >= 0x80 is
            // escaped, so 0xFF, 0xFE and U+FFFD are three ids with three keys.
            out += id.mid(i, length);
            i += length - 1;
        } else {
            out += '%';
            out += digits[c >> 4];
            out += digits[c & 0xF];
        }
    }
    return out;
}

std::optional<QByteArray> KeySchema::unescape(QByteArrayView escaped)
{
    // Most keys hold plain ids: those are their own unescaped form (one copy, no check).
    const qsizetype plain = plainPrefix(escaped);
    if (plain == escaped.size())
        return escaped.toByteArray();
    QByteArray out;
    out.reserve(escaped.size());
    out.append(escaped.first(plain));
    for (qsizetype i = plain; i < escaped.size(); ++i) {
        const char c = escaped[i];
        if (c != '%') {
            // Raw bytes >= 0x80 must form UTF-8: the canonical check below refuses the rest.
            const auto byte = static_cast<unsigned char>(c);
            if (byte < 0x80 && !isPlain(byte))
                return std::nullopt;
            out += c;
            continue;
        }
        if (i + 2 >= escaped.size())
            return std::nullopt;
        const int high = hexValue(escaped[i + 1]);
        const int low = hexValue(escaped[i + 2]);
        if (high < 0 || low < 0)
            return std::nullopt;
        out += static_cast<char>(high * 16 + low);
        i += 2;
    }
    // Only what escape() writes: "%41" for "A" would alias another user's keys.
    if (QByteArrayView(escape(out)) != escaped)
        return std::nullopt;
    return out;
}

Status KeySchema::validateId(const QByteArray& id, const QString& what)
{
    if (id.isEmpty())
        return Error{ErrorKind::InvalidInput, what + QStringLiteral(" must not be empty")};
    if (id.size() > kMaxIdBytes)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("%1 is %2 bytes long; at most %3 bytes are allowed")
                         .arg(what)
                         .arg(id.size())
                         .arg(kMaxIdBytes)};
    return Unit{};
}

Status KeySchema::validatePrefix(const QByteArray& prefix)
{
    if (prefix.isEmpty() || prefix.size() > 64)
        return Error{ErrorKind::InvalidInput, QStringLiteral("key prefix must be 1 to 64 bytes")};
    // The scripts only need a prefix without '{'. Clients also find keys with SCAN MATCH
    // "<prefix>:{*" (so no glob characters, no '%', the escape byte of ids), and a ':' would let
    // prefixes alias: "a:policy:audit" is prefix "a:policy"'s audit stream and prefix "a"'s
    // policy hash of the action "audit".
    for (char c : prefix) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte <= 0x20 || byte >= 0x7F || QByteArrayView("*?[]\\{}%:").contains(c))
            return Error{ErrorKind::InvalidInput,
                         QStringLiteral("key prefix '%1' may hold only printable ASCII other than "
                                        ": * ? [ ] \\ { } % (a ':' would let two prefixes alias)")
                             .arg(QString::fromUtf8(prefix))};
    }
    return Unit{};
}

QByteArray KeySchema::userBase(const QByteArray& user) const
{
    return m_prefix + ":{" + escape(user) + '}';
}

QByteArray KeySchema::stateSuffix(const QByteArray& action, Algorithm algorithm, qint64 windowMs)
{
    return ':' + escape(action) + ':' + algorithmCode(algorithm) + ':' +
           QByteArray::number(windowMs);
}

QByteArray KeySchema::actionBanSuffix(const QByteArray& action)
{
    return ':' + escape(action) + ":ban";
}

QByteArray KeySchema::stateKey(const QByteArray& user, const QByteArray& action,
                               Algorithm algorithm, qint64 windowMs) const
{
    return userBase(user) + stateSuffix(action, algorithm, windowMs);
}

QByteArray KeySchema::actionBanKey(const QByteArray& user, const QByteArray& action) const
{
    return userBase(user) + actionBanSuffix(action);
}

QByteArray KeySchema::userBanKey(const QByteArray& user) const
{
    return userBase(user) + kUserBanSuffix;
}

QByteArray KeySchema::userAuditKey(const QByteArray& user) const
{
    return userBase(user) + ":audit";
}

QByteArray KeySchema::overridesKey(const QByteArray& user) const
{
    return userBase(user) + kOverridesSuffix;
}

QByteArray KeySchema::overrideIndexKey(bool cluster) const
{
    return policyBase(cluster) + "overrides";
}

QByteArray KeySchema::policyBase(bool cluster) const
{
    // ':' is always escaped in ids, so no user's hash tag can be "{:}".
    return cluster ? QByteArray(m_prefix + ":{:}:") : QByteArray(m_prefix + ':');
}

QByteArray KeySchema::policyKey(const QByteArray& action, bool cluster) const
{
    return policyBase(cluster) + "policy:" + escape(action);
}

QByteArray KeySchema::policyHistoryKey(const QByteArray& action, bool cluster) const
{
    return policyKey(action, cluster) + ":history"; // an escaped id holds no ':'
}

QByteArray KeySchema::policyIndexKey(bool cluster) const
{
    return policyBase(cluster) + "policies";
}

QByteArray KeySchema::policyAuditKey(bool cluster) const
{
    return policyBase(cluster) + "audit";
}

QByteArray KeySchema::statsKey(const QByteArray& action) const
{
    return m_prefix + ":stats:" + escape(action);
}

QByteArray KeySchema::auditKey() const
{
    return m_prefix + ":audit";
}

QByteArray KeySchema::eventsChannel() const
{
    return m_prefix + ":events";
}

QByteArray KeySchema::servicesKey() const
{
    return policyBase(true) + "services";
}

QByteArray KeySchema::servicesSeenKey() const
{
    return servicesKey() + ":seen";
}

QByteArray KeySchema::userPattern(const QByteArray& user) const
{
    return userBase(user) + ":*";
}

QByteArray KeySchema::actionPattern(const QByteArray& user, const QByteArray& action) const
{
    return userBase(user) + ':' + escape(action) + ":*";
}

QByteArray KeySchema::allUsersPattern() const
{
    return m_prefix + ":{*";
}

QByteArray KeySchema::allAuditStreamsPattern() const
{
    return m_prefix + ":{*}:audit";
}

QByteArray KeySchema::allOverridesPattern() const
{
    return m_prefix + ":{*}:overrides";
}

QByteArray KeySchema::policyPattern(bool cluster) const
{
    return policyBase(cluster) + "policy:*";
}

KeySchema::Parsed KeySchema::parse(const QByteArray& key) const
{
    // Views all the way: a listing parses every key of the keyspace, so only the ids found
    // are copied out.
    Parsed parsed;
    const QByteArrayView whole(key);
    if (whole.size() <= m_prefix.size() || !whole.startsWith(m_prefix) ||
        whole[m_prefix.size()] != ':')
        return parsed;
    const QByteArrayView rest = whole.sliced(m_prefix.size() + 1);
    if (parseShared(rest, &parsed))
        return parsed;
    // The cluster's policy keys: never a user (':' is no escaped id), never a bad key.
    if (rest.startsWith("{:}:")) {
        parseShared(rest.sliced(4), &parsed);
        return parsed;
    }
    if (rest.startsWith("stats:")) {
        auto action = unescape(rest.sliced(6));
        if (action && !action->isEmpty()) {
            parsed.kind = Parsed::Kind::Stats;
            parsed.action = *action;
        }
        return parsed;
    }
    if (!rest.startsWith('{'))
        return parsed;
    const qsizetype close = rest.indexOf('}');
    if (close < 0 || close + 1 >= rest.size() || rest[close + 1] != ':')
        return parsed;
    auto user = unescape(rest.sliced(1, close - 1));
    if (!user || user->isEmpty())
        return parsed;
    // What follows "{<user>}:", cut at ':' into at most three parts (a fourth is no key of ours).
    QByteArrayView parts[3];
    qsizetype count = 0;
    for (QByteArrayView tail = rest.sliced(close + 2);; ++count) {
        if (count == 3)
            return parsed;
        const qsizetype colon = tail.indexOf(':');
        if (colon < 0) {
            parts[count++] = tail;
            break;
        }
        parts[count] = tail.first(colon);
        tail = tail.sliced(colon + 1);
    }
    Parsed result;
    result.user = *user;
    if (count == 1 && (parts[0] == "ban" || parts[0] == "audit" || parts[0] == "overrides")) {
        result.kind = parts[0] == "ban"     ? Parsed::Kind::UserBan
                      : parts[0] == "audit" ? Parsed::Kind::UserAudit
                                            : Parsed::Kind::Overrides;
        return result;
    }
    auto action = unescape(parts[0]);
    if (!action || action->isEmpty())
        return parsed;
    result.action = *action;
    if (count == 2 && parts[1] == "ban") {
        result.kind = Parsed::Kind::ActionBan;
        return result;
    }
    if (count == 3) {
        auto algorithm = algorithmFromCode(parts[1]);
        bool ok = false;
        const qint64 window = parts[2].toLongLong(&ok);
        if (algorithm && ok && window > 0) {
            result.kind = Parsed::Kind::State;
            result.algorithm = *algorithm;
            result.windowMs = window;
            return result;
        }
    }
    return parsed;
}

bool KeySchema::parseShared(QByteArrayView rest, Parsed* parsed) const
{
    if (rest == "audit") {
        parsed->kind = Parsed::Kind::Audit;
        return true;
    }
    if (rest == "policies") {
        parsed->kind = Parsed::Kind::PolicyIndex;
        return true;
    }
    if (rest == "overrides") {
        parsed->kind = Parsed::Kind::OverrideIndex;
        return true;
    }
    if (!rest.startsWith("policy:"))
        return false;
    QByteArrayView escaped = rest.sliced(7);
    const bool history = escaped.endsWith(":history");
    if (history)
        escaped.chop(8);
    auto action = unescape(escaped);
    if (action && !action->isEmpty()) {
        parsed->kind = history ? Parsed::Kind::PolicyHistory : Parsed::Kind::Policy;
        parsed->action = *action;
    }
    return true;
}

} // namespace tollgate
