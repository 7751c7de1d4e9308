// policy export | policy apply: policies as YAML or JSON files.
#include "app/ctl/Command.h"
#include "app/ctl/Output.h"
#include "app/ctl/PolicyFile.h"
#include "core/policies/PolicyPlan.h"

#include "core/keys/IdText.h"

#include <QFile>
#include <cstdio>

namespace tollgate::ctl {

namespace {

using Kind = PolicyPlanStep::Kind;

Result<PolicyListing> listPolicies(Client* client, const Cli& cli)
{
    const PolicyStore store(client, cli.schema());
    return waitFor<PolicyListing>(
        [&](Callback<PolicyListing> done) { store.listAll(nullptr, done); });
}

Result<QByteArray> readFile(const QString& path)
{
    QFile file;
    const bool opened = path == QLatin1String("-")
                            ? file.open(stdin, QIODevice::ReadOnly)
                            : (file.setFileName(path), file.open(QIODevice::ReadOnly));
    if (!opened)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("cannot read %1: %2").arg(path, file.errorString())};
    return file.readAll();
}

// Whether `id` is well-formed UTF-8: a byte outside it has no spelling in a text file (idToText
// gives it a lone low surrogate), and an id that names another action is worse than no file.
bool isUtf8Text(const QByteArray& id)
{
    const QString text = idToText(id);
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text[i].isHighSurrogate() && i + 1 < text.size() && text[i + 1].isLowSurrogate())
            ++i; // a pair: a character outside the BMP
        else if (text[i].isSurrogate())
            return false;
    }
    return true;
}

// The file's policies, each checked as `policy set` checks one; errors name the entry.
Result<std::vector<Policy>> policiesOfFile(const QByteArray& text)
{
    auto entries = parsePolicyFile(text);
    if (!entries)
        return entries.error();
    std::vector<Policy> policies;
    for (size_t i = 0; i < entries->size(); ++i) {
        const PolicyFileEntry& entry = (*entries)[i];
        auto policy = policyFromText(entry.action, entry.fields);
        if (!policy)
            return Error{ErrorKind::InvalidInput,
                         QStringLiteral("policies[%1] (%2): %3")
                             .arg(i)
                             .arg(idToDisplayText(entry.action), policy.error().message)};
        policies.push_back(*policy);
    }
    return policies;
}

QString changesText(const std::vector<PolicyFieldChange>& changes)
{
    QStringList parts;
    for (const PolicyFieldChange& c : changes)
        parts << QStringLiteral("%1 '%2' -> '%3'")
                     .arg(QString::fromLatin1(c.name), c.before, c.after);
    return parts.join(QStringLiteral(", "));
}

// "+ create x: ..." in a plan, "+ created x: ..." once written.
QString stepText(const PolicyPlanStep& step, bool written)
{
    const QString action = text(step.policy.action);
    const auto verb = [written](const char* present, const char* past) {
        return QString::fromLatin1(written ? past : present);
    };
    switch (step.kind) {
    case Kind::Create:
        return QStringLiteral("+ %1 %2: %3 %4")
            .arg(verb("create", "created"), action,
                 QString::fromLatin1(algorithmName(step.policy.algorithm)),
                 step.policy.windowsText());
    case Kind::Change:
        return QStringLiteral("~ %1 %2 (revision %3): %4")
            .arg(verb("change", "changed"), action)
            .arg(step.revision)
            .arg(changesText(step.changes));
    case Kind::Delete:
        break;
    }
    return QStringLiteral("- %1 %2 (revision %3)")
        .arg(verb("delete", "deleted"), action)
        .arg(step.revision);
}

QJsonObject stepJson(const PolicyPlanStep& step)
{
    QJsonObject object{{QStringLiteral("action"), text(step.policy.action)},
                       {QStringLiteral("revision"), step.revision}};
    if (step.kind == Kind::Change)
        object.insert(QStringLiteral("fields"), toJson(step.changes));
    return object;
}

QJsonObject planJson(const PolicyPlan& plan)
{
    QJsonArray create, change, remove, notInFile;
    for (const PolicyPlanStep& step : plan.steps)
        (step.kind == Kind::Create   ? create
         : step.kind == Kind::Change ? change
                                     : remove)
            .append(stepJson(step));
    for (const QByteArray& action : plan.notInFile)
        notInFile.append(text(action));
    return {{QStringLiteral("create"), create},
            {QStringLiteral("change"), change},
            {QStringLiteral("delete"), remove},
            {QStringLiteral("unchanged"), plan.unchanged},
            {QStringLiteral("not_in_file"), notInFile}};
}

void printPlanSummary(const PolicyPlan& plan)
{
    qint64 counts[3] = {0, 0, 0};
    for (const PolicyPlanStep& step : plan.steps)
        ++counts[int(step.kind)];
    QString line = QStringLiteral("plan: %1 to create, %2 to change, %3 to delete, %4 unchanged")
                       .arg(counts[0])
                       .arg(counts[1])
                       .arg(counts[2])
                       .arg(plan.unchanged);
    if (!plan.notInFile.empty()) {
        QStringList actions;
        for (const QByteArray& action : plan.notInFile)
            actions << text(action);
        line += QStringLiteral("; kept, not in the file (--prune deletes them): ") +
                actions.join(QStringLiteral(", "));
    }
    printLine(line);
}

// Writes one step, compare-and-set against the revision the plan read.
Status writeStep(const PolicyStore& store, const PolicyPlanStep& step, const Cli& cli,
                 const QString& reason)
{
    if (step.kind == Kind::Delete)
        return waitFor<Unit>([&](Callback<Unit> done) {
            store.remove(step.policy.action, step.revision, cli.actor, reason, nullptr, done);
        });
    Policy policy = step.policy;
    policy.revision = step.revision;
    auto saved = waitFor<qint64>(
        [&](Callback<qint64> done) { store.save(policy, cli.actor, reason, nullptr, done); });
    return saved ? Status(Unit{}) : Status(saved.error());
}

class ExportCommand final : public Command
{
public:
    ExportCommand() : Command(0, 0) {}

private:
    Result<int> execute() override
    {
        auto listing = listPolicies(client(), cli());
        if (!listing)
            return listing.error();
        if (!listing->invalid.empty()) {
            const InvalidPolicy& bad = listing->invalid.front();
            return Error{ErrorKind::WrongType,
                         QStringLiteral("the stored policy %1 is not valid (%2): nothing exported; "
                                        "fix or delete it first")
                             .arg(idToDisplayText(bad.action), bad.reason)};
        }
        std::vector<PolicyFileEntry> entries;
        for (const Policy& policy : listing->policies) {
            if (!isUtf8Text(policy.action))
                return Error{ErrorKind::WrongType,
                             QStringLiteral("the action %1 is not UTF-8 text and cannot be "
                                            "written to a file: nothing exported")
                                 .arg(idToDisplayText(policy.action))};
            entries.push_back({policy.action, policyToText(policy)});
        }
        const QByteArray out = json() ? policiesToJson(entries) : policiesToYaml(entries);
        std::fwrite(out.constData(), 1, size_t(out.size()), stdout);
        return ExitOk;
    }
};

class ApplyCommand final : public Command
{
public:
    ApplyCommand() : Command(1, 1)
    {
        parser.addPositionalArgument(
            QStringLiteral("file"), QStringLiteral("YAML or JSON policies ('-': standard input)."));
        parser.addOptions({
            {QStringLiteral("plan"),
             QStringLiteral("Only show what would change (exit 1 if anything).")},
            {QStringLiteral("prune"),
             QStringLiteral("Delete the stored policies the file does not name.")},
            {QStringLiteral("reason"), QStringLiteral("Why (written into every audit entry)."),
             QStringLiteral("text")},
        });
    }

private:
    Status check() override
    {
        m_reason = value("reason").trimmed();
        if (!isSet("plan") && m_reason.isEmpty())
            return invalidInput(
                QStringLiteral("policy apply needs --reason (or --plan to only look)"));
        auto text = readFile(argument(0));
        if (!text)
            return text.error();
        auto wanted = policiesOfFile(*text);
        if (!wanted)
            return wanted.error();
        m_wanted = std::move(*wanted);
        return Unit{};
    }

    Result<int> execute() override
    {
        auto listing = listPolicies(client(), cli());
        if (!listing)
            return listing.error();
        auto plan = planPolicies(m_wanted, *listing, isSet("prune"));
        if (!plan)
            return plan.error();
        if (isSet("plan")) {
            if (json()) {
                printJson(planJson(*plan));
            } else {
                for (const PolicyPlanStep& step : plan->steps)
                    printLine(stepText(step, false));
                printPlanSummary(*plan);
            }
            return plan->steps.empty() ? ExitOk : ExitDenied;
        }
        const PolicyStore store(client(), schema());
        for (size_t i = 0; i < plan->steps.size(); ++i) {
            const PolicyPlanStep& step = plan->steps[i];
            if (const Status written = writeStep(store, step, cli(), m_reason); !written) {
                // What the earlier steps wrote stays: each was a whole, audited change.
                return Error{written.error().kind,
                             QStringLiteral("%1 (%2 of %3 changes written before it; run the "
                                            "plan again)")
                                 .arg(written.error().message)
                                 .arg(i)
                                 .arg(plan->steps.size())};
            }
            if (!json())
                printLine(stepText(step, true));
        }
        if (json()) {
            QJsonObject object = planJson(*plan);
            object.insert(QStringLiteral("applied"), true);
            printJson(object);
        } else {
            printPlanSummary(*plan);
        }
        return ExitOk;
    }

    QString m_reason;
    std::vector<Policy> m_wanted;
};

} // namespace

int policyExportCommand(Cli& cli, const QStringList& args)
{
    return runCommand<ExportCommand>(cli, args);
}

int policyApplyCommand(Cli& cli, const QStringList& args)
{
    return runCommand<ApplyCommand>(cli, args);
}

} // namespace tollgate::ctl
