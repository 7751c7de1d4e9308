#pragma once

#include "core/subjects/BanCensus.h"
#include "tollgate/Result.h"

#include "ui/dashboard/PassLoop.h"

#include <QDateTime>
#include <QObject>
#include <atomic>
#include <chrono>
#include <memory>

namespace tollgate::ui {

class Session;

/// The dashboard's bans in force per action, exact without reading any subject: a paced
/// BanCensus pass (the ban keys and their ends) one after another while active, bans named by
/// events re-read at once, and each ban leaving the count at its end on the server's clock.
/// What it cannot see until its next pass: a ban made by a client that publishes no event.
class BanCounter : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        std::chrono::milliseconds pause{50};    // between SCAN calls: 20 a second at most
        std::chrono::milliseconds rest{10'000}; // between two passes
    };

    explicit BanCounter(Session* session, QObject* parent = nullptr);
    void setOptions(const Options& options);
    const Options& options() const { return m_options; }

    /// Starts (a pass now unless one finished within `rest`) or stops counting.
    void setActive(bool active);
    /// A pass now, or right after the running one.
    void countSoon() { m_loop->soon(); }
    /// An event named this ban (empty action: the user's every ban, `actions` being the
    /// actions with a policy): its end is read again.
    void reread(const QByteArray& user, const QByteArray& action,
                const std::vector<QByteArray>& actions);

    bool hasPass() const { return lastFinished().isValid(); }
    /// Bans of `action` in force at `serverNowMs`; the empty action: user-wide bans.
    qint64 count(const QByteArray& action, qint64 serverNowMs)
    {
        return m_bans.count(action, serverNowMs);
    }
    /// Every action with a ban known, user-wide ("") included.
    std::vector<QByteArray> actions() const { return m_bans.actions(); }
    QDateTime lastFinished() const { return m_loop->lastFinished(); }
    qint64 lastDurationMs() const { return m_durationMs; }
    qint64 lastBanKeys() const { return m_banKeys; }

Q_SIGNALS:
    void updated();
    void failed(const tollgate::Error& error);

private:
    void startPass(const std::shared_ptr<std::atomic<bool>>& cancelled);

    Session* m_session;
    Options m_options;
    PassLoop* m_loop;
    ActiveBans m_bans;
    qint64 m_durationMs = 0;
    qint64 m_banKeys = 0;
};

} // namespace tollgate::ui
