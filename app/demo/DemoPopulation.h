#pragma once

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"

#include <QObject>
#include <memory>

namespace tollgate {

/// `tollgate --demo --subjects N`: a production-sized keyspace in the demo's private server,
/// written before the console connects and the live traffic starts. Subject i is user
/// "member-<i>" on one action of the example policies: "upload" (a calendar day, 100) for
/// six in ten, "search" (the shadow policy: an hour and a day window) for the others; the
/// counters are plain pipelined SETs with the TTL the scripts would give them. One subject in
/// a hundred has its action banned, one user in a thousand is banned from everything (no counter,
/// the ban is its one row), one in a
/// thousand has twice the limits and one in a thousand is exempt: those go through ban.lua and
/// override_set.lua, audited like an operator's. The GUI thread only builds one batch at a time.
class DemoPopulation : public QObject
{
    Q_OBJECT
public:
    /// What seed(n) writes, so a caller (or a test) can say what to expect.
    struct Shape
    {
        qint64 subjects = 0;
        qint64 actionBans = 0;
        qint64 userBans = 0;
        qint64 limitOverrides = 0;
        qint64 exemptions = 0;
    };
    static Shape shapeOf(qint64 subjects);
    static QByteArray userOf(qint64 index);

    DemoPopulation(ConnectionOptions connection, KeySchema schema, QObject* parent = nullptr);
    ~DemoPopulation() override;

    /// Starts writing `subjects` subjects; finished() follows, once.
    void seed(qint64 subjects);

Q_SIGNALS:
    /// Every write went through, or the first error.
    void finished(const tollgate::Status& status);

private:
    void sendCounters();
    void sendModeration();
    void fail(const Error& error);
    void done();

    KeySchema m_schema;
    std::unique_ptr<Client> m_client;
    qint64 m_total = 0;
    qint64 m_next = 0;          // the next subject whose counters are to be sent
    qint64 m_nextModerated = 0; // the next subject whose ban or override is to be sent
    int m_inFlight = 0;
    bool m_over = false;
};

} // namespace tollgate
