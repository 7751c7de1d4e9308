#include "ui/dashboard/BanCounter.h"

#include "ui/common/Session.h"

#include <QElapsedTimer>
#include <set>

namespace tollgate::ui {

BanCounter::BanCounter(Session* session, QObject* parent)
    : QObject(parent), m_session(session),
      m_loop(new PassLoop([this](auto cancelled) { startPass(cancelled); }, this))
{
    m_loop->setRest(m_options.rest);
}

void BanCounter::setOptions(const Options& options)
{
    m_options = options;
    m_loop->setRest(options.rest);
}

void BanCounter::setActive(bool active)
{
    m_loop->setActive(active);
}

void BanCounter::startPass(const std::shared_ptr<std::atomic<bool>>& cancelled)
{
    auto clock = std::make_shared<QElapsedTimer>();
    clock->start();
    BanCensus(m_session->client(), m_session->schema())
        .run(m_options.pause, cancelled, this,
             [this, cancelled, clock](Result<BanCensusResult> result) {
                 if (cancelled->load())
                     return; // stopped: a partial pass counts nothing
                 m_loop->ended(result.ok());
                 if (!result) {
                     Q_EMIT failed(result.error());
                     return;
                 }
                 m_bans.replace(result->bans);
                 m_banKeys = qint64(result->bans.size());
                 m_durationMs = clock->elapsed();
                 Q_EMIT updated();
             });
}

void BanCounter::reread(const QByteArray& user, const QByteArray& action,
                        const std::vector<QByteArray>& actions)
{
    std::vector<SubjectKey> bans{{user, action}};
    if (action.isEmpty()) { // every ban of the user: the user-wide one and one per action
        std::set<QByteArray> every(actions.begin(), actions.end());
        for (const QByteArray& known : m_bans.actions())
            every.insert(known); // an action that lost its policy may still have bans
        every.erase(QByteArray());
        for (const QByteArray& known : every)
            bans.push_back({user, known});
    }
    BanCensus(m_session->client(), m_session->schema())
        .read(bans, this, [this](Result<std::vector<BanEnd>> ends) {
            if (!ends) {
                Q_EMIT failed(ends.error());
                return;
            }
            for (const BanEnd& end : *ends)
                m_bans.apply(end);
            Q_EMIT updated();
        });
}

} // namespace tollgate::ui
