#include "core/sentinel/SentinelUrl.h"

#include <QStringList>
#include <QUrl>

namespace tollgate {

namespace {

const QString kScheme = QStringLiteral("redis+sentinel");
const QString kTlsScheme = QStringLiteral("rediss+sentinel");

QString decoded(const QString& text)
{
    return QUrl::fromPercentEncoding(text.toUtf8());
}

QString encoded(const QString& text)
{
    return QString::fromUtf8(QUrl::toPercentEncoding(text));
}

Error invalid(const QString& message)
{
    return {ErrorKind::InvalidInput, message};
}

// "host", "host:port", "[v6]" or "[v6]:port".
Result<NodeAddress> parseAddress(const QString& text)
{
    NodeAddress address;
    QString portText;
    if (text.startsWith(QLatin1Char('['))) {
        const qsizetype close = text.indexOf(QLatin1Char(']'));
        if (close < 0)
            return invalid(QStringLiteral("sentinel address without ']': '%1'").arg(text));
        address.host = text.mid(1, close - 1);
        const QString after = text.mid(close + 1);
        if (!after.isEmpty() && !after.startsWith(QLatin1Char(':')))
            return invalid(QStringLiteral("not a sentinel address: '%1'").arg(text));
        portText = after.mid(1);
    } else {
        const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
        address.host = colon < 0 ? text : text.left(colon);
        portText = colon < 0 ? QString() : text.mid(colon + 1);
    }
    if (address.host.isEmpty() ||
        address.host.contains(QLatin1Char(':')) != text.startsWith(QLatin1Char('[')))
        return invalid(QStringLiteral("not a sentinel address: '%1' (host:port)").arg(text));
    if (!portText.isEmpty() || text.endsWith(QLatin1Char(':'))) {
        bool ok = false;
        const int port = portText.toInt(&ok);
        if (!ok || port < 1 || port > 65535)
            return invalid(QStringLiteral("sentinel port out of range: '%1'").arg(text));
        address.port = quint16(port);
    }
    return address;
}

} // namespace

QString SentinelOptions::describe() const
{
    QStringList addresses;
    for (const NodeAddress& sentinel : sentinels)
        addresses << sentinel.text();
    return QStringLiteral("%1 via sentinels %2")
        .arg(masterName, addresses.join(QStringLiteral(", ")));
}

Result<std::vector<NodeAddress>> parseSentinelList(const QString& text)
{
    std::vector<NodeAddress> sentinels;
    for (const QString& part : text.split(QLatin1Char(','))) {
        auto address = parseAddress(part.trimmed());
        if (!address)
            return address.error();
        sentinels.push_back(*address);
    }
    return sentinels;
}

QString sentinelListText(const std::vector<NodeAddress>& sentinels)
{
    QStringList addresses;
    for (const NodeAddress& address : sentinels) {
        const QString host = address.host.contains(QLatin1Char(':'))
                                 ? QLatin1Char('[') + address.host + QLatin1Char(']')
                                 : address.host;
        addresses << host + QLatin1Char(':') + QString::number(address.port);
    }
    return addresses.join(QLatin1Char(','));
}

bool isSentinelUrl(const QString& url)
{
    const QString scheme = url.trimmed().section(QStringLiteral("://"), 0, 0).toLower();
    return url.contains(QStringLiteral("://")) && (scheme == kScheme || scheme == kTlsScheme);
}

Result<SentinelUrl> parseSentinelUrl(const QString& url)
{
    const QString text = url.trimmed();
    const qsizetype schemeEnd = text.indexOf(QStringLiteral("://"));
    SentinelUrl out;
    ConnectionOptions& options = out.options;
    options.tls.enabled = text.left(schemeEnd).toLower() == kTlsScheme;
    options.host.clear(); // named by the sentinels at connection time
    QString rest = text.mid(schemeEnd + 3);
    const qsizetype fragment = rest.indexOf(QLatin1Char('#'));
    if (fragment >= 0)
        rest.truncate(fragment);
    const qsizetype queryStart = rest.indexOf(QLatin1Char('?'));
    const QString query = queryStart < 0 ? QString() : rest.mid(queryStart + 1);
    if (queryStart >= 0)
        rest.truncate(queryStart);
    const qsizetype pathStart = rest.indexOf(QLatin1Char('/'));
    const QString authority = pathStart < 0 ? rest : rest.left(pathStart);
    const QString path = pathStart < 0 ? QString() : rest.mid(pathStart + 1);

    const qsizetype at = authority.lastIndexOf(QLatin1Char('@'));
    if (at >= 0) {
        const QString userInfo = authority.left(at);
        const qsizetype colon = userInfo.indexOf(QLatin1Char(':'));
        // As for redis://: "user:password@", ":password@", and the legacy "password@".
        if (colon < 0) {
            options.password = decoded(userInfo);
        } else {
            options.user = decoded(userInfo.left(colon));
            options.password = decoded(userInfo.mid(colon + 1));
        }
    }
    auto sentinels = parseSentinelList(authority.mid(at + 1));
    if (!sentinels)
        return sentinels.error();
    options.sentinel.sentinels = std::move(*sentinels);

    const QStringList segments = path.split(QLatin1Char('/'));
    options.sentinel.masterName = decoded(segments.value(0));
    if (options.sentinel.masterName.isEmpty())
        return invalid(QStringLiteral("Sentinel URL without a master name: %1 (expected "
                                      "redis+sentinel://host:port[,host:port]/<master-name>[/db])")
                           .arg(url));
    if (segments.size() > 2 || (segments.size() == 2 && segments[1].isEmpty()))
        return invalid(
            QStringLiteral("Sentinel URL path must be /<master-name>[/db]: %1").arg(url));

    for (const auto& [key, value] : QUrlQuery(query).queryItems(QUrl::FullyDecoded)) {
        if (key == QLatin1String("sentinel_user"))
            options.sentinel.user = value;
        else if (key == QLatin1String("sentinel_password"))
            options.sentinel.password = value;
        else if (key == QLatin1String("replica"))
            options.sentinel.replica =
                value != QLatin1String("0") && value != QLatin1String("false");
        else
            out.common.addQueryItem(key, value);
    }
    if (segments.size() == 2)
        out.common.addQueryItem(QStringLiteral("db"), segments[1]);
    return out;
}

QString sentinelUrl(const ConnectionOptions& options, QUrlQuery common, bool withPassword)
{
    const SentinelOptions& sentinel = options.sentinel;
    QString url = (options.tls.enabled ? kTlsScheme : kScheme) + QStringLiteral("://");
    if (!options.user.isEmpty() || (withPassword && !options.password.isEmpty())) {
        url += encoded(options.user) + QLatin1Char(':');
        if (withPassword)
            url += encoded(options.password);
        url += QLatin1Char('@');
    }
    url += sentinelListText(sentinel.sentinels) + QLatin1Char('/') + encoded(sentinel.masterName);
    if (options.database != 0)
        url += QLatin1Char('/') + QString::number(options.database);
    if (!sentinel.user.isEmpty())
        common.addQueryItem(QStringLiteral("sentinel_user"), sentinel.user);
    if (withPassword && !sentinel.password.isEmpty())
        common.addQueryItem(QStringLiteral("sentinel_password"), encoded(sentinel.password));
    if (sentinel.replica)
        common.addQueryItem(QStringLiteral("replica"), QStringLiteral("1"));
    if (!common.isEmpty())
        url += QLatin1Char('?') + common.toString(QUrl::FullyEncoded);
    return url;
}

} // namespace tollgate
