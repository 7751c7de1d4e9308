// subjects: every user x action with its usage, streamed as SCAN batches come back.
#include "app/ctl/Command.h"
#include "app/ctl/Output.h"

#include "core/keys/IdText.h"
#include "tollgate/Subjects.h"

#include <QDateTime>
#include <cstdio>

namespace tollgate::ctl {

namespace {

struct Filters
{
    bool banned = false;
    bool near = false;

    bool accept(const Subject& s) const
    {
        if (banned && !s.banned())
            return false;
        return !near || s.nearLimit();
    }
};

QByteArray jsonLine(const Subject& s)
{
    JsonWriter line;
    line.beginObject()
        .field("user", s.user)
        .field("action", s.action)
        .field("has_policy", s.hasPolicy)
        .field("state_known", s.stateKnown)
        .field("banned", s.banned())
        .field("near_limit", s.nearLimit());
    if (!s.error.isEmpty())
        line.field("error", s.error);
    writeFields(line, s.state);
    for (const auto& [name, ban] : {std::pair{"ban", &s.ban}, std::pair{"user_ban", &s.userBan}}) {
        if (!*ban) {
            line.nullField(name);
            continue;
        }
        writeFields(line.key(name).beginObject(), **ban);
        line.endObject();
    }
    return line.endObject().take();
}

QString banText(const Subject& s)
{
    const BanInfo* ban = s.activeBan();
    if (!ban)
        return QString();
    const QString until =
        ban->untilMs == 0
            ? QStringLiteral("permanent")
            : QStringLiteral("until ") + QDateTime::fromMSecsSinceEpoch(ban->untilMs)
                                             .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    return until + QStringLiteral(" by ") + ban->actor +
           (ban->source == QLatin1String("auto") ? QStringLiteral(" (auto)") : QString()) +
           QStringLiteral(": ") + ban->reason;
}

// Fixed columns, so every line can be printed as soon as its batch arrives.
QByteArray textLine(const Subject& s)
{
    QString tier = QStringLiteral("-");
    QString usage = QStringLiteral("-");
    QString reset = QStringLiteral("-");
    if (!s.error.isEmpty()) {
        tier = QStringLiteral("error");
        usage = s.error;
    } else if (s.stateKnown) {
        tier = tierName(s.state.tier);
        usage = QStringLiteral("%1/%2").arg(s.state.count).arg(s.state.limit);
        reset = humanMs(s.state.resetMs);
    } else if (s.banned()) {
        tier = QStringLiteral("banned");
    }
    const QString action = s.action.isEmpty() ? QStringLiteral("*") : text(s.action);
    return QStringLiteral("%1  %2  %3  %4  %5  %6")
               .arg(text(s.user), -24)
               .arg(action, -12)
               .arg(tier, -6)
               .arg(usage, -11)
               .arg(reset, -7)
               .arg(banText(s))
               .trimmed()
               .toUtf8() +
           '\n';
}

class SubjectsCommand final : public Command
{
public:
    SubjectsCommand() : Command(0, 0)
    {
        parser.addOptions({
            QCommandLineOption(QStringLiteral("action"), QStringLiteral("Only this action."),
                               QStringLiteral("action")),
            QCommandLineOption(QStringLiteral("user-prefix"),
                               QStringLiteral("Only users whose id starts with this."),
                               QStringLiteral("prefix")),
            QCommandLineOption(QStringLiteral("max"),
                               QStringLiteral("Stop after this many subjects (default: all)."),
                               QStringLiteral("n")),
            QCommandLineOption(QStringLiteral("banned"), QStringLiteral("Only banned subjects.")),
            QCommandLineOption(
                QStringLiteral("near"),
                QStringLiteral("Only subjects warned, denied or within 10 % of the limit.")),
        });
    }

private:
    Status check() override
    {
        m_options.action = idFromText(value("action"));
        m_options.userPrefix = idFromText(value("user-prefix"));
        auto max = integerOption(parser, QStringLiteral("max"), 0);
        if (max && isSet("max") && *max < 1)
            return invalidInput(QStringLiteral("--max must be 1 or more"));
        if (!max)
            return max.error();
        m_options.maxSubjects = *max;
        return Unit{};
    }

    Result<int> execute() override
    {
        const Filters filters{isSet("banned"), isSet("near")};
        const bool json = this->json();
        if (!json)
            std::fputs(
                "USER                      ACTION        TIER    COUNT/LIMIT  RESET    BAN\n",
                stdout);
        const Subjects subjects(client(), schema());
        // Each batch is written (and flushed) as it arrives: constant memory at any size.
        auto result = waitFor<SubjectsProgress>([&](Callback<SubjectsProgress> done) {
            subjects.stream(
                m_options,
                [json, filters](std::vector<Subject>& batch, const SubjectsProgress&) {
                    QByteArray out;
                    for (const Subject& s : batch) {
                        if (filters.accept(s))
                            out += json ? jsonLine(s) : textLine(s);
                    }
                    std::fwrite(out.constData(), 1, size_t(out.size()), stdout);
                    std::fflush(stdout);
                    return !std::ferror(stdout);
                },
                done,
                [](const PolicyListing& listing) {
                    // Their rows carry the reason too; the listing itself goes on (one bad key
                    // never fails the command).
                    for (const InvalidPolicy& bad : listing.invalid)
                        std::fprintf(stderr, "tollgatectl: warning: %s\n", qPrintable(bad.reason));
                });
        });
        if (!result)
            return result.error();
        if (result->truncated)
            std::fprintf(stderr, "tollgatectl: note: stopped at %lld subjects (--max)\n",
                         static_cast<long long>(m_options.maxSubjects));
        if (std::ferror(stdout))
            return Error{ErrorKind::Io, QStringLiteral("could not write the output")};
        return ExitOk;
    }

    SubjectsOptions m_options;
};

} // namespace

int subjectsCommand(Cli& cli, const QStringList& args)
{
    return runCommand<SubjectsCommand>(cli, args);
}

} // namespace tollgate::ctl
