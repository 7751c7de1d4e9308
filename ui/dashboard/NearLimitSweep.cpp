#include "ui/dashboard/NearLimitSweep.h"

#include "core/subjects/Usage.h"
#include "tollgate/Subjects.h"
#include "ui/common/Session.h"

#include <QElapsedTimer>
#include <algorithm>
#include <tuple>
#include <utility>

namespace tollgate::ui {

namespace {

// Small pages: each is paid for before the next, so the load comes in short, even steps
// instead of a page's few thousand commands at once, then a long wait.
constexpr int kScanCount = 200;

// The tier's order when rates tie: banned, deny, warn, ok.
int severity(Tier tier)
{
    switch (tier) {
    case Tier::Banned:
        return 0;
    case Tier::Deny:
        return 1;
    case Tier::Warn:
        return 2;
    case Tier::Ok:
        break;
    }
    return 3;
}

// Banned (also with no counter left: bans are keys of their own), denied or warned, or near
// the limit: the entry it shows as; none otherwise. Its rate comes from what was read, no
// extra command (hitsPerMinute).
std::optional<NearLimitEntry> entryOf(const Subject& s, const PolicyCatalog& policies)
{
    const auto policy = policies.valid.find(s.action);
    // A shadow policy allows a banned user's hits: its subjects are listed by their counters
    // alone, and one whose ban hides the counter not at all.
    const bool shadow = policy != policies.valid.end() && policy->second.shadow;
    const BanInfo* ban = shadow ? nullptr : s.activeBan();
    const bool stateShown = s.stateKnown && s.state.tier != Tier::Banned;
    if (!ban && !(stateShown && s.nearLimit()))
        return std::nullopt;
    NearLimitEntry entry{s.user, s.action, s.state};
    if (ban) {
        entry.state.tier = Tier::Banned;
        entry.bannedSinceMs = ban->createdMs;
    }
    // A shadow policy's "deny" is what enforcing it would do: the row says so.
    entry.state.shadow = shadow;
    if (s.stateKnown && policy != policies.valid.end())
        entry.perMinute = hitsPerMinute(policy->second.algorithm, policy->second.windows,
                                        s.state.count, s.state.limit, s.state.resetMs);
    return entry;
}

// One pass's running figures, on the client's worker thread only.
struct PassTally
{
    int max = 100;
    std::shared_ptr<const PolicyCatalog> policies; // from the pass' own policy listing
    qint64 total = 0;
    qint64 scanned = 0;
    std::vector<NearLimitEntry> entries;
    QElapsedTimer clock;
};

} // namespace

void trimNearLimit(std::vector<NearLimitEntry>& entries, int max)
{
    // The fastest first: a live abuser outranks a ban that has been sitting there for hours.
    const auto rank = [](const NearLimitEntry& e) {
        return std::make_tuple(-e.perMinute, severity(e.state.tier), e.state.remaining);
    };
    std::sort(entries.begin(), entries.end(),
              [&rank](const NearLimitEntry& a, const NearLimitEntry& b) {
                  if (rank(a) != rank(b))
                      return rank(a) < rank(b);
                  return std::tie(a.action, a.user) < std::tie(b.action, b.user);
              });
    if (int(entries.size()) > max)
        entries.resize(size_t(std::max(0, max)));
}

NearLimitSweep::NearLimitSweep(Session* session, QObject* parent)
    : QObject(parent), m_session(session),
      m_loop(new PassLoop([this](auto cancelled) { startPass(cancelled); }, this))
{
    m_loop->setRest(m_options.rest);
}

void NearLimitSweep::setOptions(const Options& options)
{
    m_options = options;
    m_loop->setRest(options.rest);
}

void NearLimitSweep::setActive(bool active)
{
    m_loop->setActive(active);
}

void NearLimitSweep::startPass(const std::shared_ptr<std::atomic<bool>>& cancelled)
{
    m_runningScanned = 0;
    auto tally = std::make_shared<PassTally>();
    tally->max = m_options.maxEntries;
    tally->policies = m_policies; // until the pass' own listing arrives
    tally->clock.start();
    const bool firstPass = !hasCompletePass();

    SubjectsOptions options;
    options.scanCount = kScanCount;
    options.readsInFlight = 1;
    options.commandsPerSecond = std::max(1, m_options.commandsPerSecond);
    const Context self(this);
    Subjects(m_session->client(), m_session->schema())
        .stream(
            options,
            [tally, cancelled, firstPass, self, this](std::vector<Subject>& batch,
                                                      const SubjectsProgress& progress) {
                for (const Subject& s : batch)
                    if (auto entry = entryOf(s, *tally->policies)) {
                        tally->entries.push_back(std::move(*entry));
                        ++tally->total;
                    }
                trimNearLimit(tally->entries, tally->max);
                tally->scanned = progress.scanned;
                // Until a pass completes, the first one shows what it found so far.
                self.post([this, cancelled, firstPass, scanned = progress.scanned,
                           partial = firstPass ? tally->entries : std::vector<NearLimitEntry>(),
                           total = tally->total] {
                    if (cancelled->load())
                        return;
                    m_runningScanned = scanned;
                    if (firstPass) {
                        m_entries = partial;
                        m_total = total;
                    }
                    Q_EMIT updated();
                });
                return !cancelled->load();
            },
            [tally, cancelled, self, this](Result<SubjectsProgress> done) {
                self.post([this, tally, cancelled, done] {
                    if (cancelled->load())
                        return;
                    m_loop->ended(done.ok());
                    if (!done) {
                        Q_EMIT failed(done.error());
                        return;
                    }
                    m_entries = std::move(tally->entries);
                    m_total = tally->total;
                    m_policies = tally->policies;
                    m_subjects = done->subjects;
                    m_durationMs = tally->clock.elapsed();
                    Q_EMIT updated();
                });
            },
            [tally](const PolicyListing& listing) {
                tally->policies =
                    std::make_shared<const PolicyCatalog>(PolicyCatalog::from(listing));
            });
}

void NearLimitSweep::readNamed(const QByteArray& user, const QByteArray& action)
{
    // An empty action: every action of the user (addressed through the policies), and every
    // entry of the user is replaced by what the read finds.
    auto take = [this, user, action](Result<std::vector<Subject>> subjects) {
        if (!subjects) {
            Q_EMIT failed(subjects.error());
            return;
        }
        std::vector<NearLimitEntry> fresh;
        for (const Subject& s : *subjects)
            if (auto entry = entryOf(s, *m_policies))
                fresh.push_back(std::move(*entry));
        upsert(user, action, std::move(fresh));
    };
    const Subjects subjects(m_session->client(), m_session->schema());
    if (action.isEmpty())
        subjects.user(user, false, this, take);
    else
        subjects.read({{user, action}}, false, this, take);
}

void NearLimitSweep::upsert(const QByteArray& user, const QByteArray& action,
                            std::vector<NearLimitEntry> fresh)
{
    m_entries.erase(std::remove_if(m_entries.begin(), m_entries.end(),
                                   [&](const NearLimitEntry& e) {
                                       return e.user == user &&
                                              (action.isEmpty() || e.action == action);
                                   }),
                    m_entries.end());
    std::move(fresh.begin(), fresh.end(), std::back_inserter(m_entries));
    trimNearLimit(m_entries, m_options.maxEntries);
    Q_EMIT updated();
}

} // namespace tollgate::ui
