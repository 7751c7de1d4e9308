#include "ui/subjects/SubjectsLoader.h"

#include "tollgate/Subjects.h"

namespace tollgate::ui {

namespace {
constexpr int kNamedFlushMs = 500;
// Subjects read per flush: about 1,000 commands a second at most, the rest of the 5,000/s
// budget being the sweep's and the rows on screen's. An event storm waits for the sweep, and
// past kNamedPendingMax the subjects named are left to it.
constexpr int kNamedMax = 200;
constexpr int kNamedPendingMax = 20'000;
constexpr int kSweepScanCount = 200;
} // namespace

SubjectsLoader::SubjectsLoader(Session* session, QObject* parent)
    : QObject(parent), m_session(session)
{
    m_sweep.setSingleShot(true);
    connect(&m_sweep, &QTimer::timeout, this, [this] { startPass(true); });
    m_named.setSingleShot(true);
    m_named.setInterval(kNamedFlushMs);
    connect(&m_named, &QTimer::timeout, this, &SubjectsLoader::flushNamed);
    connect(session, &Session::eventReceived, this,
            [this](const QByteArray& event, const QByteArray& user, const QByteArray& action) {
                if (event == "policy")
                    m_session->policies().listAll(this, [this](Result<PolicyListing> listing) {
                        if (listing)
                            Q_EMIT policiesLoaded(*listing);
                    });
                else if (!user.isEmpty())
                    onNamed(user, action);
            });
    // A first pass that timed out while Redis stalled starts over once it answers: the sweep
    // would refresh rows, but the page would wait for its first complete list forever.
    connect(session, &Session::responsivenessChanged, this, [this](bool responsive) {
        if (!responsive || !m_firstPassFailed)
            return;
        stop();
        m_firstPassFailed = false;
        startPass(false);
    });
    connect(session, &Session::keyspaceChanged, this,
            [this](const QByteArray& key, const QByteArray&) {
                const KeySchema::Parsed parsed = m_session->schema().parse(key);
                using Kind = KeySchema::Parsed::Kind;
                if (parsed.kind == Kind::State || parsed.kind == Kind::ActionBan)
                    onNamed(parsed.user, parsed.action);
                else if (parsed.kind == Kind::UserBan)
                    onNamed(parsed.user, QByteArray());
            });
}

SubjectsLoader::~SubjectsLoader()
{
    stop();
}

void SubjectsLoader::stop()
{
    if (m_cancelled)
        m_cancelled->store(true);
    m_passRunning = false;
    m_sweep.stop();
}

void SubjectsLoader::setSweeping(bool on)
{
    m_sweeping = on;
    if (!on) {
        m_sweep.stop();
        if (m_passRunning && m_sweepRunning)
            stop();
    } else if (m_firstPassDone && !m_passRunning && !m_sweep.isActive()) {
        m_sweep.start(m_options.sweepRest);
    }
}

void SubjectsLoader::start()
{
    stop();
    m_firstPassDone = false;
    m_firstPassFailed = false;
    startPass(false);
}

void SubjectsLoader::startPass(bool paced)
{
    if (m_passRunning || (paced && !m_sweeping))
        return;
    m_passRunning = true;
    m_sweepRunning = paced;
    m_cancelled = std::make_shared<std::atomic<bool>>(false);
    Q_EMIT passStarted();
    auto cancelled = m_cancelled;
    SubjectsOptions options;
    // A paced sweep reads small pages: each is paid for before the next, so the load comes in
    // short, even steps instead of a page's few thousand commands at once, then a long wait.
    options.scanCount = paced ? qMin(m_options.scanCount, kSweepScanCount) : m_options.scanCount;
    options.readsInFlight = paced ? 1 : m_options.readsInFlight;
    if (paced) // by the commands each batch really sent: they depend on the policies
        options.commandsPerSecond = qMax(1, m_options.steadyCommandsPerSecond);
    // The first pass reads its subjects without looking for their bans one by one, and reads
    // again the few whose ban key turns up later in the pass (seconds; the rows on screen are
    // re-read meanwhile). A sweep keeps looking: its pass takes minutes, and a ban shown since
    // the first pass must not seem lifted until the sweep reaches its key.
    options.mayRepeat = !paced;
    // DBSIZE gives "how far" a meaning; SCAN itself knows no total.
    m_session->client()->execute({QByteArrayLiteral("DBSIZE")}, this, [this](Result<Reply> size) {
        if (!size)
            return;
        m_totalKeys = size->integer;
        Q_EMIT progress(0, 0, m_totalKeys, false); // lets the page make room before rows come
    });
    const Context self(this);
    Subjects(m_session->client(), m_session->schema())
        .stream(
            options,
            [self, cancelled, this](std::vector<Subject>& batch, const SubjectsProgress& p) {
                if (cancelled->load())
                    return false;
                self.post([this, cancelled, rows = std::move(batch), p] {
                    if (cancelled->load())
                        return;
                    Q_EMIT this->batch(rows, true);
                    Q_EMIT progress(p.scanned, p.subjects, m_totalKeys, false);
                });
                return true;
            },
            [self, cancelled, paced, this](Result<SubjectsProgress> done) {
                self.post([this, cancelled, paced, done] {
                    if (cancelled->load())
                        return;
                    m_passRunning = false;
                    if (!done) {
                        m_firstPassFailed = !paced;
                        Q_EMIT failed(done.error());
                    } else {
                        if (!paced)
                            m_firstPassDone = true;
                        Q_EMIT progress(done->scanned, done->subjects, m_totalKeys, true);
                    }
                    if (m_sweeping)
                        m_sweep.start(m_options.sweepRest);
                });
            },
            [self, this](const PolicyListing& listing) {
                self.post([this, listing] { Q_EMIT policiesLoaded(listing); });
            });
}

void SubjectsLoader::read(const std::vector<SubjectKey>& keys, bool peek)
{
    Subjects(m_session->client(), m_session->schema())
        .read(keys, peek, this, [this](Result<std::vector<Subject>> subjects) {
            if (subjects)
                Q_EMIT batch(*subjects, false);
            else
                Q_EMIT failed(subjects.error());
        });
}

void SubjectsLoader::refreshVisible(const std::vector<SubjectKey>& keys)
{
    read(keys, true);
}

void SubjectsLoader::findUser(const QByteArray& user)
{
    Subjects(m_session->client(), m_session->schema())
        .user(user, false, this, [this](Result<std::vector<Subject>> subjects) {
            if (subjects)
                Q_EMIT batch(*subjects, false);
        });
}

void SubjectsLoader::findPrefix(const QByteArray& prefix)
{
    SubjectsOptions options;
    options.userPrefix = prefix;
    options.maxSubjects = m_options.prefixSearchMax;
    options.readsInFlight = 1;
    const Context self(this);
    Subjects(m_session->client(), m_session->schema())
        .stream(
            options,
            [self, this](std::vector<Subject>& found, const SubjectsProgress&) {
                self.post([this, rows = std::move(found)] { Q_EMIT batch(rows, false); });
                return true;
            },
            [](const Result<SubjectsProgress>&) {});
}

void SubjectsLoader::onNamed(const QByteArray& user, const QByteArray& action)
{
    if (m_namedKeys.size() < kNamedPendingMax)
        m_namedKeys.insert({user, action});
    if (!m_named.isActive())
        m_named.start();
}

void SubjectsLoader::flushNamed()
{
    std::vector<SubjectKey> keys;
    for (auto it = m_namedKeys.begin(); it != m_namedKeys.end() && int(keys.size()) < kNamedMax;) {
        keys.push_back(*it);
        it = m_namedKeys.erase(it);
    }
    read(keys, false);
    if (!m_namedKeys.isEmpty())
        m_named.start();
}

} // namespace tollgate::ui
