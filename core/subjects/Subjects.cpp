#include "tollgate/Subjects.h"

#include "core/client/Scan.h"
#include "core/subjects/FingerprintSet.h"
#include "core/subjects/SubjectReader.h"

#include <QDeadlineTimer>
#include <QTimer>
#include <algorithm>
#include <map>

namespace tollgate {

namespace {

using Kind = KeySchema::Parsed::Kind;

// One stream() pass. Touched only on the client's worker thread (every callback runs there,
// one at a time), so it needs no lock.
struct StreamRun
{
    Client* client = nullptr;
    KeySchema schema;
    SubjectsOptions options;
    ScanOptions scan; // pattern and COUNT of every SCAN call
    Subjects::BatchHandler onBatch;
    Callback<SubjectsProgress> done;
    std::shared_ptr<const PolicyCatalog> policies;

    FingerprintSet seen;
    SubjectsProgress progress;
    qint64 admitted = 0;
    QByteArray cursor = QByteArrayLiteral("0");
    bool scanFinished = false;
    bool scanOut = false;
    bool stopped = false;
    bool finished = false;
    int readsOut = 0;
    // With options.commandsPerSecond: the steady ms until which what was sent is paid for.
    // The next SCAN (a cluster's next batch) waits for it.
    qint64 paidUntil = 0;
    quint64 nextSeq = 0;
    quint64 nextEmit = 0;
    struct ReadyBatch
    {
        std::vector<Subject> subjects;
        qint64 fresh = 0; // not read before in this pass
    };
    std::map<quint64, ReadyBatch> ready; // completed out of order (NOSCRIPT retries)
    std::optional<Error> error;

    // The action as the last key of it had it: every row of an action then shares one copy
    // instead of holding one of its own (there are few actions and a million rows).
    mutable QByteArray lastAction;
    const QByteArray& shared(const QByteArray& action) const
    {
        if (action != lastAction)
            lastAction = action;
        return lastAction;
    }

    // With options.mayRepeat and no action filter: what this pass's keys said so far about
    // ban keys and overrides hashes (few: about 1 % of subjects), so reads need no EXISTS.
    bool notesFlags = false;
    FingerprintSet actionBans;       // (user, action) with an action ban key
    FingerprintSet userFlags;        // (user, "") with a user-wide ban or overrides
    std::vector<QByteArray> actions; // every action admitted so far, for a user's late flag

    // The subject a key belongs to, if it is one we list.
    std::optional<SubjectKey> subjectOf(const KeySchema::Parsed& parsed) const
    {
        if (!options.userPrefix.isEmpty() && !parsed.user.startsWith(options.userPrefix))
            return std::nullopt;
        const bool wanted = options.action.isEmpty() || parsed.action == options.action;
        if ((parsed.kind == Kind::State || parsed.kind == Kind::ActionBan) && wanted)
            return SubjectKey{parsed.user, shared(parsed.action)};
        if (parsed.kind == Kind::UserBan && options.action.isEmpty())
            return SubjectKey{parsed.user, QByteArray()};
        return std::nullopt;
    }
};

void maybeFinish(const std::shared_ptr<StreamRun>& run)
{
    if (run->finished || !(run->scanFinished || run->stopped) || run->readsOut > 0 || run->scanOut)
        return;
    run->finished = true;
    if (run->error)
        run->done(*run->error);
    else
        run->done(run->progress);
}

using ReadyBatch = StreamRun::ReadyBatch;

void emitReady(const std::shared_ptr<StreamRun>& run)
{
    for (auto it = run->ready.find(run->nextEmit); it != run->ready.end();
         it = run->ready.find(run->nextEmit)) {
        ReadyBatch batch = std::move(it->second);
        run->ready.erase(it);
        ++run->nextEmit;
        run->progress.subjects += batch.fresh;
        if (!run->stopped && !run->onBatch(batch.subjects, run->progress))
            run->stopped = true;
    }
}

void scanNext(const std::shared_ptr<StreamRun>& run, int reserved = 0);

qint64 steadyNowMs()
{
    return QDeadlineTimer::current().deadline();
}

// A paced run's commands are charged once they are known (a read's, with its ban round and
// peeks, when it is answered); what comes next waits until they are paid at the budget's rate.
void charge(const std::shared_ptr<StreamRun>& run, quint64 commands)
{
    if (run->options.commandsPerSecond <= 0)
        return;
    run->paidUntil = std::max(run->paidUntil, steadyNowMs()) +
                     qint64(commands * 1000 / quint64(run->options.commandsPerSecond));
}

// Runs `then` once the budget has paid for what was sent (at once when unpaced). On the
// worker thread, which has an event loop: a timer there is fine.
void whenPaid(const std::shared_ptr<StreamRun>& run, std::function<void()> then)
{
    const qint64 wait = run->paidUntil - steadyNowMs();
    if (wait <= 0)
        then();
    else
        QTimer::singleShot(std::chrono::milliseconds(wait), std::move(then));
}

// What one page of keys gives to read: the subjects not seen before, and with
// StreamRun::notesFlags those seen before whose ban key or overrides turned up only now.
struct Admission
{
    std::vector<SubjectKey> subjects; // the re-reads first
    std::vector<bool> mayHaveBans;    // one per subject, with notesFlags
    size_t rereads = 0;
};

// A ban key or an overrides hash: noted, and a subject read without it is read again.
void noteFlag(const std::shared_ptr<StreamRun>& run, const KeySchema::Parsed& key,
              Admission& into)
{
    auto reread = [&](const QByteArray& action) {
        if (!run->seen.contains(FingerprintSet::fingerprint(key.user, action)))
            return;
        // Flags are noted before the page's new subjects are taken: all there is is re-reads.
        const SubjectKey subject{key.user, action};
        if (std::find(into.subjects.begin(), into.subjects.end(), subject) == into.subjects.end()) {
            into.subjects.push_back(subject);
            ++into.rereads;
        }
    };
    if (key.kind == Kind::ActionBan) {
        if (run->actionBans.insert(key.user, key.action))
            reread(key.action);
    } else if (key.kind == Kind::UserBan || key.kind == Kind::Overrides) {
        if (run->userFlags.insert(key.user, QByteArray()))
            for (const QByteArray& action : run->actions)
                reread(action);
    }
}

bool mayHaveBans(const StreamRun& run, const SubjectKey& subject)
{
    return run.userFlags.contains(FingerprintSet::fingerprint(subject.first, QByteArray())) ||
           run.actionBans.contains(FingerprintSet::fingerprint(subject.first, subject.second));
}

// The subjects of `keys` not seen before, up to maxSubjects (then the run is truncated). The
// fingerprints of the whole page are looked up in memory at once (FingerprintSet::prefetch),
// then taken one by one in key order; a page's flags are noted before its subjects are taken.
Admission admit(const std::shared_ptr<StreamRun>& run, const QList<QByteArray>& keys)
{
    struct Candidate
    {
        qsizetype key = 0; // its index in `keys`
        SubjectKey subject;
        quint64 fingerprint = 0;
    };
    Admission admission;
    std::vector<Candidate> candidates;
    candidates.reserve(size_t(keys.size()));
    for (qsizetype k = 0; k < keys.size(); ++k) {
        const KeySchema::Parsed parsed = run->schema.parse(keys[k]);
        if (run->notesFlags)
            noteFlag(run, parsed, admission);
        auto subject = run->subjectOf(parsed);
        if (!subject)
            continue;
        const quint64 h = FingerprintSet::fingerprint(subject->first, subject->second);
        run->seen.prefetch(h);
        candidates.push_back({k, std::move(*subject), h});
    }
    auto finish = [&] {
        if (run->notesFlags)
            for (const SubjectKey& subject : admission.subjects)
                admission.mayHaveBans.push_back(mayHaveBans(*run, subject));
        return std::move(admission);
    };
    for (Candidate& c : candidates) {
        if (!run->seen.insertHash(c.fingerprint))
            continue;
        if (run->options.maxSubjects > 0 && run->admitted >= run->options.maxSubjects) {
            run->progress.truncated = true;
            run->progress.scanned += c.key + 1; // the keys up to this one were looked at
            return finish();
        }
        ++run->admitted;
        const QByteArray& action = c.subject.second;
        if (run->notesFlags && !action.isEmpty() &&
            (run->actions.empty() || run->actions.back() != action) &&
            std::find(run->actions.begin(), run->actions.end(), action) == run->actions.end())
            run->actions.push_back(action);
        admission.subjects.push_back(std::move(c.subject));
    }
    run->progress.scanned += keys.size();
    return finish();
}

// Reads the usage of what `admitted` names (one pipeline); its batch is emitted in scan
// order. `release` (a cluster scan's) runs once the read is answered and paid for, or once
// the SCAN is paid for when nothing is read.
void readSubjects(const std::shared_ptr<StreamRun>& run, const Admission& admitted,
                  ScanRelease release = [] {})
{
    if (admitted.subjects.empty() || run->stopped) {
        whenPaid(run, std::move(release));
        return;
    }
    const quint64 seq = run->nextSeq++;
    const qint64 fresh = qint64(admitted.subjects.size() - admitted.rereads);
    ++run->readsOut;
    run->progress.readsPeak = std::max(run->progress.readsPeak, run->readsOut);
    SubjectReader(run->client, run->schema, run->policies)
        .readCounted(
            admitted.subjects, SubjectReader::Mode::Raw,
            [run, seq, fresh, release](std::vector<Subject> subjects, quint64 commands) {
                run->ready[seq] = {std::move(subjects), fresh};
                emitReady(run);
                charge(run, commands + 1); // and its SCAN
                // The read's slot is free once it is paid for: a paced run has one, so that
                // is when the next SCAN (or cluster batch) goes out.
                whenPaid(run, [run, release] {
                    --run->readsOut;
                    release();
                    scanNext(run);
                    maybeFinish(run);
                });
            },
            run->notesFlags ? &admitted.mayHaveBans : nullptr);
}

void onScanReply(const std::shared_ptr<StreamRun>& run, Result<Reply> reply)
{
    run->scanOut = false;
    const Result<ScanPage> page = scanPage(reply);
    if (!page) {
        run->error = page.error();
        run->stopped = true;
        maybeFinish(run);
        return;
    }
    run->cursor = page->cursor;
    const Admission fresh = admit(run, page->keys);
    if (run->cursor == "0" || run->progress.truncated)
        run->scanFinished = true;
    // The next SCAN goes out before this batch's reads: the server answers it while the
    // client is still building the reads, and works through them while the client handles the
    // SCAN reply, so neither side waits for the other (readsInFlight bounds how far ahead).
    if (fresh.subjects.empty())
        charge(run, 1); // a page of nothing new still cost its SCAN
    scanNext(run, fresh.subjects.empty() ? 0 : 1);
    readSubjects(run, fresh);
    maybeFinish(run);
}

// On a cluster every primary is scanned at once (ClusterScan through scanKeysPaced): each
// batch is released once its read is answered, so at most readsInFlight reads are out, as on
// one server.
void scanCluster(const std::shared_ptr<StreamRun>& run)
{
    run->scanOut = true; // for the whole scan: scanNext() leaves it alone
    ScanOptions scan = run->scan;
    scanKeysPaced(
        run->client, scan, std::max(1, run->options.readsInFlight),
        [run](const QList<QByteArray>& keys, ScanRelease release) {
            const Admission fresh = admit(run, keys);
            if (fresh.subjects.empty())
                charge(run, 1); // its SCAN
            readSubjects(run, fresh, std::move(release));
            return !run->stopped && !run->progress.truncated;
        },
        [run](Result<qint64> scanned) {
            run->scanOut = false;
            run->scanFinished = true;
            if (!scanned) {
                run->error = scanned.error();
                run->stopped = true;
            }
            maybeFinish(run);
        });
}

// `reserved`: read batches about to be sent that count against readsInFlight already.
void scanNext(const std::shared_ptr<StreamRun>& run, int reserved)
{
    if (run->stopped || run->scanFinished || run->scanOut ||
        run->readsOut + reserved >= std::max(1, run->options.readsInFlight))
        return;
    run->scanOut = true;
    if (run->paidUntil > steadyNowMs()) { // an empty page's SCAN is not paid for yet
        whenPaid(run, [run] {
            run->scanOut = false;
            scanNext(run);
            maybeFinish(run);
        });
        return;
    }
    run->client->execute(scanCommand(run->scan, run->cursor), nullptr,
                         [run](Result<Reply> reply) { onScanReply(run, std::move(reply)); });
}

// Policies first (one SMEMBERS and one pipeline), then `then` with the catalog.
void withPolicies(Client* client, const KeySchema& schema,
                  std::function<void(Result<PolicyListing>)> then)
{
    PolicyStore(client, schema).listAll(nullptr, std::move(then));
}

// The catalog, then `then`; a failure to list the policies goes to `done` instead.
using Catalog = std::shared_ptr<const PolicyCatalog>;
void withCatalog(Client* client, const KeySchema& schema, Context context,
                 Callback<std::vector<Subject>> done, std::function<void(Catalog)> then)
{
    withPolicies(client, schema, [context, done, then](Result<PolicyListing> listing) {
        if (!listing)
            deliver(context, done, Result<std::vector<Subject>>(listing.error()));
        else
            then(std::make_shared<const PolicyCatalog>(PolicyCatalog::from(*listing)));
    });
}

} // namespace

Subjects::Subjects(Client* client, KeySchema schema) : m_client(client), m_schema(std::move(schema))
{
}

QByteArray Subjects::pattern(const SubjectsOptions& options) const
{
    // Escaped ids hold no glob characters, ':' or '}', and escaping works byte by byte, so
    // the escaped prefix is a prefix of every matching escaped id.
    QByteArray pattern = m_schema.prefix() + ":{" + KeySchema::escape(options.userPrefix) + '*';
    if (!options.action.isEmpty())
        pattern += "}:" + KeySchema::escape(options.action) + ":*";
    return pattern;
}

QByteArray Subjects::pattern(const QByteArray& action) const
{
    SubjectsOptions options;
    options.action = action;
    return pattern(options);
}

void Subjects::stream(const SubjectsOptions& options, BatchHandler onBatch,
                      Callback<SubjectsProgress> done,
                      std::function<void(const PolicyListing&)> onPolicies) const
{
    Status valid = Status(Unit{});
    if (!options.action.isEmpty())
        valid = KeySchema::validateId(options.action, QStringLiteral("action"));
    if (valid && options.userPrefix.size() > KeySchema::kMaxIdBytes)
        valid = KeySchema::validateId(options.userPrefix, QStringLiteral("user prefix"));
    if (rejected(valid, nullptr, done))
        return;
    auto run = std::make_shared<StreamRun>();
    run->client = m_client;
    run->schema = m_schema;
    run->options = options;
    run->scan.pattern = pattern(options);
    run->scan.count = std::max(1, options.scanCount);
    run->notesFlags = options.mayRepeat && options.action.isEmpty();
    run->onBatch = std::move(onBatch);
    run->done = std::move(done);
    withPolicies(m_client, m_schema, [run, onPolicies](Result<PolicyListing> listing) {
        if (!listing) {
            run->finished = true;
            run->done(listing.error());
            return;
        }
        if (onPolicies)
            onPolicies(*listing);
        run->policies = std::make_shared<const PolicyCatalog>(PolicyCatalog::from(*listing));
        if (run->client->isCluster() || run->client->isTwemproxy())
            scanCluster(run); // every node's or backend's SCAN (scanKeysPaced)
        else
            scanNext(run);
    });
}

void Subjects::list(const SubjectsOptions& options, Context context,
                    Callback<SubjectList> done) const
{
    auto list = std::make_shared<SubjectList>();
    stream(
        options,
        [list](std::vector<Subject>& batch, const SubjectsProgress&) {
            std::move(batch.begin(), batch.end(), std::back_inserter(list->subjects));
            return true;
        },
        [list, context, done](Result<SubjectsProgress> progress) {
            if (!progress) {
                deliver(context, done, Result<SubjectList>(progress.error()));
                return;
            }
            list->scanned = progress->scanned;
            list->truncated = progress->truncated;
            auto& all = list->subjects;
            std::stable_sort(all.begin(), all.end(),
                             [](const Subject& a, const Subject& b) { return a.key() < b.key(); });
            // With mayRepeat a subject may come more than once: its last reading counts.
            const auto kept = std::unique(all.rbegin(), all.rend(), [](const auto& a, const auto& b) {
                return a.key() == b.key();
            });
            all.erase(all.begin(), kept.base());
            deliver(context, done, Result<SubjectList>(std::move(*list)));
        },
        [list](const PolicyListing& listing) { list->invalidPolicies = listing.invalid; });
}

void Subjects::user(const QByteArray& user, bool peek, Context context,
                    Callback<std::vector<Subject>> done) const
{
    const Status valid = KeySchema::validateId(user, QStringLiteral("user id"));
    if (rejected(valid, context, done))
        return;
    Client* client = m_client;
    const KeySchema schema = m_schema;
    withCatalog(client, schema, context, done, [=](Catalog catalog) {
        std::vector<SubjectKey> keys{{user, QByteArray()}};
        for (const auto& [action, policy] : catalog->valid)
            keys.push_back({user, action});
        for (const auto& [action, reason] : catalog->invalid)
            keys.push_back({user, action});
        const auto mode = peek ? SubjectReader::Mode::Peek : SubjectReader::Mode::Raw;
        SubjectReader(client, schema, catalog)
            .read(keys, mode, [context, done](std::vector<Subject> subjects) {
                std::vector<Subject> present;
                for (Subject& s : subjects) {
                    const bool used = s.stateKnown && s.state.count > 0;
                    if (s.action.isEmpty() ? s.userBan.has_value()
                                           : (used || s.ban || !s.error.isEmpty()))
                        present.push_back(std::move(s));
                }
                deliver(context, done, Result<std::vector<Subject>>(std::move(present)));
            });
    });
}

void Subjects::read(const std::vector<SubjectKey>& keys, bool peek, Context context,
                    Callback<std::vector<Subject>> done) const
{
    if (keys.empty()) {
        deliver(context, done, Result<std::vector<Subject>>(std::vector<Subject>()));
        return;
    }
    Client* client = m_client;
    const KeySchema schema = m_schema;
    withCatalog(client, schema, context, done, [=](Catalog catalog) {
        const auto mode = peek ? SubjectReader::Mode::Peek : SubjectReader::Mode::Raw;
        SubjectReader(client, schema, catalog)
            .read(keys, mode, [context, done](std::vector<Subject> s) {
                deliver(context, done, Result<std::vector<Subject>>(std::move(s)));
            });
    });
}

void Subjects::foreignActions(const QByteArray& user, qint64 budget, Context context,
                              Callback<std::vector<Subject>> done) const
{
    const Status valid = KeySchema::validateId(user, QStringLiteral("user id"));
    if (rejected(valid, context, done))
        return;
    Client* client = m_client;
    const KeySchema schema = m_schema;
    auto actions = std::make_shared<std::vector<QByteArray>>();
    ScanOptions scan;
    scan.pattern = schema.userPattern(user);
    scan.count = 1000;
    scan.maxCalls = std::max<qint64>(1, budget / scan.count);
    scanKeys(
        client, scan,
        [schema, actions](const QList<QByteArray>& keys) {
            for (const QByteArray& key : keys) {
                const KeySchema::Parsed parsed = schema.parse(key);
                if ((parsed.kind == Kind::State || parsed.kind == Kind::ActionBan) &&
                    std::find(actions->begin(), actions->end(), parsed.action) == actions->end())
                    actions->push_back(parsed.action);
            }
            return true;
        },
        [=](Result<qint64> scanned) {
            if (!scanned) {
                deliver(context, done, Result<std::vector<Subject>>(scanned.error()));
                return;
            }
            withCatalog(client, schema, context, done, [=](Catalog catalog) {
                std::vector<SubjectKey> keys;
                for (const QByteArray& action : *actions) {
                    if (!catalog->valid.count(action) && !catalog->invalid.count(action))
                        keys.push_back({user, action});
                }
                SubjectReader(client, schema, catalog)
                    .read(keys, SubjectReader::Mode::Raw, [context, done](std::vector<Subject> s) {
                        deliver(context, done, Result<std::vector<Subject>>(std::move(s)));
                    });
            });
        });
}

} // namespace tollgate
