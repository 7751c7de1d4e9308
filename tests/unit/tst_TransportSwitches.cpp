// core/redis/Transport: TOLLGATE_EVENT_LOOP and TOLLGATE_TCP_STREAM, what each value gives, the
// warning for a value it refuses, and that the environment is read once, by the I/O threads too.

#include "core/redis/IoThreads.h"
#include "core/redis/Transport.h"

#include <QRegularExpression>
#include <QtTest>

using namespace tollgate;

class TransportSwitchesTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void eventLoopValues_data();
    void eventLoopValues();
    void tcpStreamValues_data();
    void tcpStreamValues();
    void environmentIsReadOnceAndWarnsOnce();
};

namespace {

// The project's own part where it is built, Qt's otherwise.
EventLoop ownLoop()
{
    return linuxIoBuilt() ? EventLoop::Epoll : EventLoop::Qt;
}

TcpStreamKind ownStream()
{
    return linuxIoBuilt() ? TcpStreamKind::Raw : TcpStreamKind::Qt;
}

} // namespace

void TransportSwitchesTest::eventLoopValues_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<bool>("qt");
    QTest::addColumn<QString>("warning");
    const QString ownOnly = linuxIoBuilt()
                                ? QString()
                                : QStringLiteral("TOLLGATE_EVENT_LOOP=epoll: Linux only, not in "
                                                 "this build; using qt");
    const QString fallback = eventLoopName(ownLoop());
    QTest::newRow("unset") << QByteArray() << !linuxIoBuilt() << QString();
    QTest::newRow("epoll") << QByteArray("epoll") << !linuxIoBuilt() << ownOnly;
    QTest::newRow("qt") << QByteArray("qt") << true << QString();
    QTest::newRow("Qt") << QByteArray("Qt") << true << QString();
    QTest::newRow("glib") << QByteArray("glib") << !linuxIoBuilt()
                          << QStringLiteral(
                                 "TOLLGATE_EVENT_LOOP=glib: not one of epoll, qt; using ")
                                 .append(fallback);
    QTest::newRow("1")
        << QByteArray("1") << !linuxIoBuilt()
        << QStringLiteral("TOLLGATE_EVENT_LOOP=1: not one of epoll, qt; using ").append(fallback);
}

void TransportSwitchesTest::eventLoopValues()
{
    QFETCH(QByteArray, value);
    QFETCH(bool, qt);
    QFETCH(QString, warning);
    QString warned;
    QCOMPARE(parseEventLoop(value, &warned), qt ? EventLoop::Qt : EventLoop::Epoll);
    QCOMPARE(warned, warning);
}

void TransportSwitchesTest::tcpStreamValues_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<bool>("qt");
    QTest::addColumn<QString>("warning");
    const QString ownOnly = linuxIoBuilt()
                                ? QString()
                                : QStringLiteral("TOLLGATE_TCP_STREAM=raw: Linux only, not in "
                                                 "this build; using qt");
    QTest::newRow("unset") << QByteArray() << !linuxIoBuilt() << QString();
    QTest::newRow("raw") << QByteArray("raw") << !linuxIoBuilt() << ownOnly;
    QTest::newRow("RAW") << QByteArray("RAW") << !linuxIoBuilt() << ownOnly;
    QTest::newRow("qt") << QByteArray("qt") << true << QString();
    QTest::newRow("epoll") << QByteArray("epoll") << !linuxIoBuilt()
                           << QStringLiteral(
                                  "TOLLGATE_TCP_STREAM=epoll: not one of raw, qt; using ")
                                  .append(tcpStreamName(ownStream()));
}

void TransportSwitchesTest::tcpStreamValues()
{
    QFETCH(QByteArray, value);
    QFETCH(bool, qt);
    QFETCH(QString, warning);
    QString warned;
    QCOMPARE(parseTcpStream(value, &warned), qt ? TcpStreamKind::Qt : TcpStreamKind::Raw);
    QCOMPARE(warned, warning);
}

void TransportSwitchesTest::environmentIsReadOnceAndWarnsOnce()
{
    // Nothing in this process has read them yet: set here, they are what the first read sees.
    qputenv("TOLLGATE_EVENT_LOOP", "kqueue");
    qputenv("TOLLGATE_TCP_STREAM", "qt");
    QTest::ignoreMessage(
        QtWarningMsg, qPrintable(QStringLiteral("TOLLGATE_EVENT_LOOP=kqueue: not one of epoll, qt; "
                                                "using %1")
                                     .arg(eventLoopName(ownLoop()))));
    const TransportSwitches& first = TransportSwitches::fromEnvironment();
    QCOMPARE(first.eventLoop, ownLoop());
    QCOMPARE(first.tcpStream, TcpStreamKind::Qt);

    // Changed later, they change nothing and warn no more.
    QTest::failOnWarning(QRegularExpression(QStringLiteral("TOLLGATE_")));
    qputenv("TOLLGATE_EVENT_LOOP", "qt");
    qputenv("TOLLGATE_TCP_STREAM", "bogus");
    const TransportSwitches& again = TransportSwitches::fromEnvironment();
    QCOMPARE(&again, &first);
    QCOMPARE(again.eventLoop, ownLoop());
    QCOMPARE(again.tcpStream, TcpStreamKind::Qt);

    // The I/O threads follow the switch as it was read.
    QThread* thread = IoThreads::acquire();
    QCOMPARE(IoThreads::eventLoopOf(thread), ownLoop());
    IoThreads::release(thread);
}

QTEST_GUILESS_MAIN(TransportSwitchesTest)
#include "tst_TransportSwitches.moc"
