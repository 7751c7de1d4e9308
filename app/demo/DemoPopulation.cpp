#include "app/demo/DemoPopulation.h"

#include "tollgate/Moderation.h"
#include "tollgate/Overrides.h"

#include <QDateTime>

namespace tollgate {

namespace {

constexpr qint64 kHour = 3'600'000;
constexpr qint64 kDay = 24 * kHour;
constexpr qint64 kBatchSubjects = 5000; // one pipeline: a few ms to build on the GUI thread
constexpr int kBatchesInFlight = 2;
constexpr int kScriptsInFlight = 256;
constexpr qint64 kMaxSearchPerMinute = 3; // a person's pace, far below the live abusers'

// Which subjects get what (index modulo, residue): see the class comment.
constexpr qint64 kUploadBan[] = {200, 4};
constexpr qint64 kSearchBan[] = {200, 107};
constexpr qint64 kUserBan[] = {1000, 3};
constexpr qint64 kLimitOverride[] = {1000, 5}; // an upload subject
constexpr qint64 kExemption[] = {1000, 9};     // a search subject

bool is(qint64 index, const qint64 (&rule)[2])
{
    return index % rule[0] == rule[1];
}

qint64 countOf(qint64 subjects, const qint64 (&rule)[2])
{
    return subjects / rule[0] + (subjects % rule[0] > rule[1] ? 1 : 0);
}

bool uploads(qint64 index)
{
    return index % 10 < 6;
}

// A well-spread pseudo-random number per subject, the same on every run.
quint64 mix(qint64 index)
{
    quint64 x = quint64(index) + 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

qint64 msUntilLocalMidnight()
{
    const QDateTime now = QDateTime::currentDateTime();
    return qMax<qint64>(1000, now.msecsTo(QDateTime(now.date().addDays(1), QTime(0, 0))));
}

const QString kActors[] = {QStringLiteral("support-lena"), QStringLiteral("ops-marco"),
                           QStringLiteral("trust-safety")};
const QString kBanReasons[] = {QStringLiteral("over the limit again after a warning"),
                               QStringLiteral("automated requests from a data centre range"),
                               QStringLiteral("reported by three users for spam")};

} // namespace

DemoPopulation::Shape DemoPopulation::shapeOf(qint64 subjects)
{
    Shape shape;
    shape.subjects = subjects;
    shape.actionBans = countOf(subjects, kUploadBan) + countOf(subjects, kSearchBan);
    shape.userBans = countOf(subjects, kUserBan);
    shape.limitOverrides = countOf(subjects, kLimitOverride);
    shape.exemptions = countOf(subjects, kExemption);
    return shape;
}

QByteArray DemoPopulation::userOf(qint64 index)
{
    return QByteArrayLiteral("member-") + QByteArray::number(index).rightJustified(7, '0');
}

DemoPopulation::DemoPopulation(ConnectionOptions connection, KeySchema schema, QObject* parent)
    : QObject(parent), m_schema(std::move(schema))
{
    connection.clientName = QStringLiteral("tollgate-demo-population");
    m_client = std::make_unique<Client>(std::move(connection));
}

DemoPopulation::~DemoPopulation() = default;

void DemoPopulation::seed(qint64 subjects)
{
    m_total = qMax<qint64>(0, subjects);
    m_client->open();
    sendCounters();
}

void DemoPopulation::sendCounters()
{
    const qint64 untilMidnight = msUntilLocalMidnight();
    while (!m_over && m_inFlight < kBatchesInFlight && m_next < m_total) {
        std::vector<Command> commands;
        commands.reserve(size_t(kBatchSubjects) * 2);
        const qint64 end = qMin(m_total, m_next + kBatchSubjects);
        for (; m_next < end; ++m_next) {
            // A user banned from everything has not been counted since: the ban is its row.
            if (is(m_next, kUserBan))
                continue;
            const QByteArray user = userOf(m_next);
            const quint64 r = mix(m_next);
            if (uploads(m_next)) {
                // Most users upload a few files a day, a few come close to the 100.
                const qint64 c = qint64(r % 10'000);
                commands.push_back({"SET",
                                    m_schema.stateKey(user, "upload", Algorithm::FixedWindow, kDay),
                                    QByteArray::number(1 + c * c / 1'010'000), "PX",
                                    QByteArray::number(untilMidnight)});
                continue;
            }
            // The shadow policy counts past its limit (100 an hour) without denying. A window's
            // count and age make its rate (the near-limit list ranks by it): people search at
            // most kMaxSearchPerMinute, so a window holding c hits began c / that rate ago or
            // earlier, and the live abusers' minutes outrank these hours.
            const qint64 hourCount = 1 + qint64((r >> 16) % 140);
            const qint64 youngest = qMin(kHour - 1000, hourCount * 60'000 / kMaxSearchPerMinute);
            const qint64 hourAge = youngest + qint64((r >> 24) % quint64(kHour - youngest));
            commands.push_back(
                {"SET", m_schema.stateKey(user, "search", Algorithm::FixedWindow, kHour),
                 QByteArray::number(hourCount), "PX", QByteArray::number(kHour - hourAge)});
            const qint64 dayAge = hourAge + qint64((r >> 40) % quint64(kDay - kHour));
            commands.push_back({"SET",
                                m_schema.stateKey(user, "search", Algorithm::FixedWindow, kDay),
                                QByteArray::number(hourCount + qint64((r >> 32) % 600)), "PX",
                                QByteArray::number(kDay - dayAge)});
        }
        ++m_inFlight;
        m_client->executeBatch(std::move(commands), this,
                               [this](const std::vector<Result<Reply>>& replies) {
                                   --m_inFlight;
                                   for (const Result<Reply>& reply : replies)
                                       if (!reply)
                                           return fail(reply.error());
                                   if (m_next < m_total)
                                       sendCounters();
                                   else if (m_inFlight == 0)
                                       sendModeration();
                               });
    }
    if (m_total == 0)
        done();
}

void DemoPopulation::sendModeration()
{
    const Moderation moderation(m_client.get(), m_schema);
    const OverrideStore overrides(m_client.get(), m_schema);
    auto finishOne = [this](const std::optional<Error>& error) {
        --m_inFlight;
        if (error)
            return fail(*error);
        sendModeration();
    };
    for (; !m_over && m_inFlight < kScriptsInFlight && m_nextModerated < m_total;
         ++m_nextModerated) {
        const qint64 i = m_nextModerated;
        const QByteArray action = uploads(i) ? QByteArrayLiteral("upload") : "search";
        const QString& actor = kActors[i % 3];
        if (is(i, kUploadBan) || is(i, kSearchBan) || is(i, kUserBan)) {
            BanRequest ban;
            ban.user = userOf(i);
            ban.action = is(i, kUserBan) ? QByteArray() : action;
            ban.actor = actor;
            ban.reason = kBanReasons[(i / 7) % 3];
            ban.durationMs = is(i, kUserBan) ? 7 * kDay : kHour + qint64(mix(i) % (23 * kHour));
            ++m_inFlight;
            moderation.ban(ban, this, [finishOne](const Result<BanInfo>& r) {
                finishOne(r ? std::nullopt : std::optional<Error>(r.error()));
            });
        }
        if (is(i, kLimitOverride) || is(i, kExemption)) {
            OverrideRequest request;
            request.user = userOf(i);
            request.action = action;
            request.actor = actor;
            if (is(i, kExemption)) {
                request.kind = OverrideKind::Unlimited;
                request.durationMs = 2 * kHour;
                request.reason = QStringLiteral("bulk import of a partner's catalogue");
            } else {
                request.windows = {{200, kDay}}; // twice the example policy
                request.durationMs = 14 * kDay;
                request.reason = QStringLiteral("paid plan: twice the daily uploads");
            }
            ++m_inFlight;
            overrides.set(request, this, [finishOne](const Result<Override>& r) {
                finishOne(r ? std::nullopt : std::optional<Error>(r.error()));
            });
        }
    }
    if (!m_over && m_inFlight == 0 && m_nextModerated >= m_total)
        done();
}

void DemoPopulation::fail(const Error& error)
{
    if (std::exchange(m_over, true))
        return;
    Q_EMIT finished(Status(error));
}

void DemoPopulation::done()
{
    if (std::exchange(m_over, true))
        return;
    Q_EMIT finished(Status(Unit{}));
}

} // namespace tollgate
