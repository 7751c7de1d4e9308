#pragma once

#include <QByteArray>
#include <QList>

class QTcpSocket;

// HTTP/1.1 written and read by hand, for what curl cannot show: requests sent at once on one
// connection, answers counted as they come.
namespace tollgate::test {

/// POST /v1/decide for `domain` with one descriptor {key: value}, as it goes on the wire.
QByteArray decideRequest(const QByteArray& value, const QByteArray& key = "remote_address",
                         const QByteArray& domain = "edge");

/// Every complete answer (head and body) the server sends, until it has sent `answers` of them,
/// closed the connection or `timeoutMs` passed.
QList<QByteArray> readAnswers(QTcpSocket& socket, int answers, int timeoutMs);

} // namespace tollgate::test
