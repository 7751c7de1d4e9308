#include "ui/policies/PolicyPreview.h"

#include "core/client/Scan.h"
#include "tollgate/Subjects.h"
#include "ui/common/Session.h"

#include <QMap>
#include <QSet>
#include <chrono>
#include <memory>

namespace tollgate::ui {

struct PolicyPreview::Tally
{
    Policy policy;
    QString action;
    int banned = 0; // subjects with a ban of the action: denied whatever the limits
    int subjects = 0;
    int denied = 0;
    int pending = 0;
    int errors = 0;
    bool truncated = false;
};

PolicyPreview::PolicyPreview(Session* session, QObject* parent)
    : QObject(parent), m_session(session)
{
}

void PolicyPreview::compute(const Policy& policy)
{
    const quint64 generation = ++*m_generation;
    m_busy = true;
    ScanOptions scan;
    scan.pattern = Subjects(m_session->client(), m_session->schema()).pattern(policy.action);
    scan.count = 500;
    scan.maxKeys = kMaxKeys;
    scan.pause = std::chrono::milliseconds(5); // gentle: the preview is never urgent
    // Like collectKeys(), but a newer compute() stops this scan at its next batch instead of
    // letting it run on: typing in the editor must not stack up scans.
    auto found = std::make_shared<QList<QByteArray>>();
    const auto latest = m_generation;
    const Context self(this);
    Callback<QList<QByteArray>> scanned = [this, policy,
                                           generation](Result<QList<QByteArray>> keys) {
        if (generation != *m_generation)
            return;
        if (!keys) {
            m_busy = false;
            Q_EMIT finished(tr("Preview unavailable: %1").arg(keys.error().message));
            Q_EMIT counted(policy, -1, -1);
            return;
        }
        // user -> its fixed-window counter keys (window ms -> key)
        QMap<QByteArray, QMap<qint64, QByteArray>> users;
        QSet<QByteArray> banned;
        auto tally = std::make_shared<Tally>();
        tally->policy = policy;
        tally->action = QString::fromUtf8(policy.action);
        tally->truncated = keys->size() >= kMaxKeys;
        for (const QByteArray& key : *keys) {
            const auto parsed = m_session->schema().parse(key);
            const bool ban = parsed.kind == KeySchema::Parsed::Kind::ActionBan;
            if ((parsed.kind != KeySchema::Parsed::Kind::State && !ban) ||
                parsed.action != policy.action)
                continue;
            if (!users.contains(parsed.user) && users.size() >= kMaxSubjects) {
                tally->truncated = true;
                continue;
            }
            auto& windows = users[parsed.user];
            // An auto-ban outlives its counter: the user is at (over) the limit with no
            // state key left, and is denied whatever the edited limits say.
            if (ban)
                banned.insert(parsed.user);
            else if (parsed.algorithm == Algorithm::FixedWindow)
                windows.insert(parsed.windowMs, key);
        }
        tally->subjects = int(users.size());
        tally->banned = int(banned.size());
        for (const QByteArray& user : std::as_const(banned))
            users.remove(user); // counted as denied; no need to read their counters
        tally->denied = tally->banned;
        if (users.isEmpty()) {
            report(*tally);
            return;
        }
        const bool fixed = policy.algorithm == Algorithm::FixedWindow;
        auto limitFor = [policy](qint64 windowMs) {
            for (const WindowLimit& w : policy.windows)
                if (w.windowMs == windowMs)
                    return w.limit;
            return policy.windows.front().limit; // window changed: the first limit applies
        };
        for (auto user = users.cbegin(); user != users.cend(); ++user) {
            ++tally->pending;
            if (!fixed) {
                m_session->limiter().peek(policy, user.key(), 0, this,
                                          [this, tally, generation](Result<HitResult> result) {
                                              if (generation != *m_generation)
                                                  return;
                                              if (!result)
                                                  ++tally->errors;
                                              else if (result->tier == Tier::Deny ||
                                                       result->tier == Tier::Banned)
                                                  ++tally->denied;
                                              if (--tally->pending == 0)
                                                  report(*tally);
                                          });
                continue;
            }
            // Fixed window: the counters as they are, against the edited limits (pipelined
            // GETs).
            auto userDenied = std::make_shared<bool>(false);
            auto userPending = std::make_shared<int>(int(user.value().size()));
            if (*userPending == 0) {
                if (--tally->pending == 0)
                    report(*tally);
                continue;
            }
            for (auto window = user.value().cbegin(); window != user.value().cend(); ++window) {
                const qint64 limit = limitFor(window.key());
                m_session->client()->execute({QByteArrayLiteral("GET"), window.value()}, this,
                                             [this, tally, generation, limit, cost = policy.cost,
                                              userDenied, userPending](Result<Reply> reply) {
                                                 if (generation != *m_generation)
                                                     return;
                                                 if (!reply)
                                                     ++tally->errors;
                                                 else if (reply->toInteger().value_or(0) + cost >
                                                          limit)
                                                     *userDenied = true;
                                                 if (--*userPending > 0)
                                                     return;
                                                 if (*userDenied)
                                                     ++tally->denied;
                                                 if (--tally->pending == 0)
                                                     report(*tally);
                                             });
            }
        }
    };
    scanKeys(
        m_session->client(), scan,
        [found, latest, generation](const QList<QByteArray>& batch) {
            if (*latest != generation)
                return false;
            *found << batch;
            return true;
        },
        [found, latest, generation, self, scanned](Result<qint64> total) {
            if (*latest != generation)
                return; // superseded: nobody waits for this result
            deliver(self, scanned,
                    total ? Result<QList<QByteArray>>(*found)
                          : Result<QList<QByteArray>>(total.error()));
        });
}

void PolicyPreview::report(const Tally& tally)
{
    QString text;
    if (tally.subjects == 0 && tally.errors == 0)
        text = tr("Preview: \"%1\" has no current subjects.").arg(tally.action);
    else if (tally.policy.shadow)
        text = tr("Preview: a shadow policy denies nobody; enforced, these limits would deny %1 "
                  "of the %2 current subjects of \"%3\" now.")
                   .arg(tally.denied)
                   .arg(tally.subjects)
                   .arg(tally.action);
    else
        text = tr("Preview: with these limits %1 of the %2 current subjects of \"%3\" would be "
                  "denied now.")
                   .arg(tally.denied)
                   .arg(tally.subjects)
                   .arg(tally.action);
    if (tally.banned > 0)
        text += tr(" %1 of them banned from it already.").arg(tally.banned);
    if (tally.truncated)
        text += tr(" (first %1 subjects only)").arg(tally.subjects);
    if (tally.errors > 0)
        text += tr(" %1 could not be read.").arg(tally.errors);
    m_busy = false;
    Q_EMIT finished(text);
    Q_EMIT counted(tally.policy, tally.denied, tally.subjects);
}

} // namespace tollgate::ui
