#include "core/http/ListenAddress.h"

namespace tollgate {

Result<std::pair<QHostAddress, quint16>> parseListenAddress(const QString& text)
{
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    bool ok = false;
    const uint port = colon < 0 ? 0 : text.mid(colon + 1).toUInt(&ok);
    QString host = colon < 0 ? QString() : text.left(colon);
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    const QHostAddress address = host.isEmpty() ? QHostAddress(QHostAddress::Any)
                                 : host == QLatin1String("localhost")
                                     ? QHostAddress(QHostAddress::LocalHost)
                                     : QHostAddress(host);
    if (!ok || port > 65535 || address.isNull())
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("'%1' is not host:port with a numeric address, e.g. "
                                    "127.0.0.1:9464")
                         .arg(text)};
    return std::make_pair(address, static_cast<quint16>(port));
}

} // namespace tollgate
