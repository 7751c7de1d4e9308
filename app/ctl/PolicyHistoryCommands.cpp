// policy history | diff | rollback | restore
#include "app/ctl/Cli.h"
#include "app/ctl/Output.h"

#include "core/keys/IdText.h"
#include "core/policies/PolicyStore.h"

namespace tollgate::ctl {

namespace {

// "fixed_window 10 per 10s, ban 1h", or why the stored fields are no policy.
QString summary(const PolicyHistory& history, const PolicyRevision& revision)
{
    auto policy = revision.policy(history.action);
    if (!policy)
        return QStringLiteral("INVALID: ") + policy.error().message;
    QString line = QString::fromLatin1(algorithmName(policy->algorithm)) + QLatin1Char(' ') +
                   policy->windowsText();
    if (policy->hasBan())
        line += QStringLiteral(", ") + policy->banText();
    return line;
}

QJsonObject revisionJson(const PolicyRevision& revision, bool current)
{
    QJsonObject fields; // every client field as stored, whatever this version knows of them
    for (const auto& [name, value] : revision.fields) {
        if (!isScriptOwnedField(name))
            fields.insert(QString::fromUtf8(name), QString::fromUtf8(value));
    }
    return {{QStringLiteral("revision"), revision.revision},
            {QStringLiteral("current"), current},
            {QStringLiteral("updated_by"), revision.updatedBy},
            {QStringLiteral("updated_ms"), revision.updatedMs},
            {QStringLiteral("reason"), revision.reason},
            {QStringLiteral("fields"), fields}};
}

// The store and the action's history; nullopt and the exit code printed when there is none.
struct Loaded
{
    std::optional<PolicyStore> store;
    QByteArray action;
    Result<PolicyHistory> history = Error{ErrorKind::NotFound, QString()};
};

std::optional<int> load(Cli& cli, const QCommandLineParser& parser, Loaded* loaded)
{
    Client* client = cli.client();
    if (!client)
        return ExitUsage;
    loaded->store.emplace(client, cli.schema());
    loaded->action = idFromText(parser.positionalArguments().at(0));
    loaded->history = waitFor<PolicyHistory>([&](Callback<PolicyHistory> done) {
        loaded->store->history(loaded->action, nullptr, done);
    });
    if (!loaded->history)
        return fail(loaded->history.error());
    return std::nullopt;
}

Result<qint64> revisionArgument(const QString& value, const QString& what)
{
    bool ok = false;
    const qint64 revision = value.toLongLong(&ok);
    if (!ok || revision < 1)
        return Error{
            ErrorKind::InvalidInput,
            QStringLiteral("%1 must be a revision number >= 1, got '%2'").arg(what, value)};
    return revision;
}

int history(Cli& cli, const QStringList& args)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("The action."));
    if (auto exit = parseArguments(parser, args, 1, 1))
        return *exit;
    Loaded loaded;
    if (auto exit = load(cli, parser, &loaded))
        return *exit;
    const PolicyHistory& h = *loaded.history;
    if (cli.json) {
        QJsonArray revisions;
        if (h.current)
            revisions.append(revisionJson(*h.current, true));
        for (const PolicyRevision& revision : h.earlier)
            revisions.append(revisionJson(revision, false));
        printJson(QJsonObject{{QStringLiteral("action"), text(h.action)},
                              {QStringLiteral("deleted"), h.deleted()},
                              {QStringLiteral("revisions"), revisions}});
        return ExitOk;
    }
    QList<QStringList> rows{{QStringLiteral("REVISION"), QStringLiteral("SAVED"),
                             QStringLiteral("BY"), QStringLiteral("POLICY"),
                             QStringLiteral("REASON")}};
    const auto row = [&](const PolicyRevision& r, const QString& mark) {
        rows << QStringList{QString::number(r.revision) + mark, timeText(r.updatedMs), r.updatedBy,
                            summary(h, r), r.reason};
    };
    if (h.current)
        row(*h.current, QStringLiteral(" (current)"));
    for (const PolicyRevision& revision : h.earlier)
        row(revision, QString());
    if (h.deleted())
        printLine(QStringLiteral("policy %1 is deleted; `tollgatectl policy restore %1 --reason R` "
                                 "brings revision %2 back")
                      .arg(text(h.action))
                      .arg(h.earlier.front().revision));
    printTable(rows);
    return ExitOk;
}

int diff(Cli& cli, const QStringList& args)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("The action."));
    parser.addPositionalArgument(QStringLiteral("rev-a"), QStringLiteral("The older revision."));
    parser.addPositionalArgument(QStringLiteral("rev-b"), QStringLiteral("The newer revision."));
    if (auto exit = parseArguments(parser, args, 3, 3))
        return *exit;
    auto before = revisionArgument(parser.positionalArguments().at(1), QStringLiteral("rev-a"));
    auto after = revisionArgument(parser.positionalArguments().at(2), QStringLiteral("rev-b"));
    if (!before || !after)
        return fail(!before ? before.error() : after.error());
    Loaded loaded;
    if (auto exit = load(cli, parser, &loaded))
        return *exit;
    auto changes = diffRevisions(*loaded.history, *before, *after);
    if (!changes)
        return fail(changes.error());
    if (cli.json) {
        printJson(QJsonObject{{QStringLiteral("action"), text(loaded.action)},
                              {QStringLiteral("before"), *before},
                              {QStringLiteral("after"), *after},
                              {QStringLiteral("fields"), toJson(*changes)}});
        return ExitOk;
    }
    printLine(QStringLiteral("policy %1, revision %2 -> %3%4")
                  .arg(text(loaded.action))
                  .arg(*before)
                  .arg(*after)
                  .arg(changes->empty() ? QStringLiteral(": no differences") : QString()));
    for (const PolicyFieldChange& c : *changes)
        printLine(QStringLiteral("  %1: '%2' -> '%3'")
                      .arg(QString::fromLatin1(c.name), c.before, c.after));
    return ExitOk;
}

// rollback and restore: a new revision from an earlier one, audited with the reason.
int bringBack(Cli& cli, const QStringList& args, bool restore)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("The action."));
    parser.addOption({QStringLiteral("reason"),
                      QStringLiteral("Why (written into the audit entry)."),
                      QStringLiteral("text")});
    if (!restore)
        parser.addOption({QStringLiteral("to"), QStringLiteral("The revision to put back."),
                          QStringLiteral("n")});
    if (auto exit = parseArguments(parser, args, 1, 1))
        return *exit;
    const QString command = restore ? QStringLiteral("restore") : QStringLiteral("rollback");
    Result<qint64> target = qint64(0);
    if (!restore) {
        if (!parser.isSet(QStringLiteral("to")))
            return usage(QStringLiteral("policy rollback needs --to N (see policy history)"));
        target = revisionArgument(parser.value(QStringLiteral("to")), QStringLiteral("--to"));
        if (!target)
            return fail(target.error());
    }
    const QString reason = parser.value(QStringLiteral("reason")).trimmed();
    if (reason.isEmpty())
        return usage(QStringLiteral("policy %1 needs --reason").arg(command));
    Loaded loaded;
    if (auto exit = load(cli, parser, &loaded))
        return *exit;
    const PolicyHistory& h = *loaded.history;
    const QString name = text(loaded.action);
    if (restore && !h.deleted())
        return fail({ErrorKind::Conflict,
                     QStringLiteral("policy %1 exists (revision %2): `policy rollback %1 --to N` "
                                    "puts an earlier revision back")
                         .arg(name)
                         .arg(h.current->revision)});
    if (!restore && h.deleted())
        return fail(
            {ErrorKind::NotFound,
             QStringLiteral("policy %1 is deleted: `policy restore %1` brings it back").arg(name)});
    if (!restore && !h.find(*target))
        return fail(h.missing(*target));
    auto written = waitFor<qint64>([&](Callback<qint64> done) {
        if (restore)
            loaded.store->restore(loaded.action, 0, cli.actor, reason, nullptr, done);
        else
            loaded.store->rollback(loaded.action, h.current->revision, *target, cli.actor, reason,
                                   nullptr, done);
    });
    if (!written)
        return fail(written.error());
    const qint64 from = restore ? h.earlier.front().revision : *target;
    if (cli.json)
        printJson(QJsonObject{{QStringLiteral("action"), name},
                              {QStringLiteral("revision"), *written},
                              {QStringLiteral("from"), from}});
    else
        printLine(
            QStringLiteral("policy %1 %2: revision %3 is back as revision %4")
                .arg(name, restore ? QStringLiteral("restored") : QStringLiteral("rolled back"))
                .arg(from)
                .arg(*written));
    return ExitOk;
}

} // namespace

int policyHistoryCommand(Cli& cli, const QString& sub, const QStringList& args)
{
    if (sub == QLatin1String("history"))
        return history(cli, args);
    if (sub == QLatin1String("diff"))
        return diff(cli, args);
    return bringBack(cli, args, sub == QLatin1String("restore"));
}

} // namespace tollgate::ctl
