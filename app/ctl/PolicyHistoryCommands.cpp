// policy history | diff | rollback | restore
#include "app/ctl/Command.h"
#include "app/ctl/Output.h"

#include "core/keys/IdText.h"
#include "core/policies/PolicyHistory.h"
#include "tollgate/PolicyStore.h"

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

// A command over one action's history: the action is the first argument; the history is read
// once connected, then shown() does the rest.
class HistoryCommand : public Command
{
protected:
    using Command::Command;

    virtual Result<int> shown(PolicyStore& store, const PolicyHistory& history) = 0;

private:
    Result<int> execute() override
    {
        PolicyStore store(client(), schema());
        auto history = waitFor<PolicyHistory>(
            [&](Callback<PolicyHistory> done) { store.history(idArgument(0), nullptr, done); });
        if (!history)
            return history.error();
        return shown(store, *history);
    }
};

class ListHistoryCommand final : public HistoryCommand
{
public:
    ListHistoryCommand() : HistoryCommand(1, 1)
    {
        parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("The action."));
    }

private:
    Result<int> shown(PolicyStore&, const PolicyHistory& h) override
    {
        if (json()) {
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
            rows << QStringList{QString::number(r.revision) + mark, timeText(r.updatedMs),
                                r.updatedBy, summary(h, r), r.reason};
        };
        if (h.current)
            row(*h.current, QStringLiteral(" (current)"));
        for (const PolicyRevision& revision : h.earlier)
            row(revision, QString());
        if (h.deleted())
            printLine(
                QStringLiteral("policy %1 is deleted; `tollgatectl policy restore %1 --reason R` "
                               "brings revision %2 back")
                    .arg(text(h.action))
                    .arg(h.earlier.front().revision));
        printTable(rows);
        return ExitOk;
    }
};

class DiffCommand final : public HistoryCommand
{
public:
    DiffCommand() : HistoryCommand(3, 3)
    {
        parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("The action."));
        parser.addPositionalArgument(QStringLiteral("rev-a"),
                                     QStringLiteral("The older revision."));
        parser.addPositionalArgument(QStringLiteral("rev-b"),
                                     QStringLiteral("The newer revision."));
    }

private:
    Status check() override
    {
        auto before = revisionArgument(argument(1), QStringLiteral("rev-a"));
        auto after = revisionArgument(argument(2), QStringLiteral("rev-b"));
        if (!before || !after)
            return !before ? before.error() : after.error();
        m_before = *before;
        m_after = *after;
        return Unit{};
    }

    Result<int> shown(PolicyStore&, const PolicyHistory& h) override
    {
        auto changes = diffRevisions(h, m_before, m_after);
        if (!changes)
            return changes.error();
        if (json()) {
            printJson(QJsonObject{{QStringLiteral("action"), text(h.action)},
                                  {QStringLiteral("before"), m_before},
                                  {QStringLiteral("after"), m_after},
                                  {QStringLiteral("fields"), toJson(*changes)}});
            return ExitOk;
        }
        printLine(QStringLiteral("policy %1, revision %2 -> %3%4")
                      .arg(text(h.action))
                      .arg(m_before)
                      .arg(m_after)
                      .arg(changes->empty() ? QStringLiteral(": no differences") : QString()));
        for (const PolicyFieldChange& c : *changes)
            printLine(QStringLiteral("  %1: '%2' -> '%3'")
                          .arg(QString::fromLatin1(c.name), c.before, c.after));
        return ExitOk;
    }

    qint64 m_before = 0;
    qint64 m_after = 0;
};

// rollback and restore: a new revision from an earlier one, audited with the reason.
class BringBackCommand final : public HistoryCommand
{
public:
    explicit BringBackCommand(bool restore) : HistoryCommand(1, 1), m_restore(restore)
    {
        parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("The action."));
        parser.addOption({QStringLiteral("reason"),
                          QStringLiteral("Why (written into the audit entry)."),
                          QStringLiteral("text")});
        if (!restore)
            parser.addOption({QStringLiteral("to"), QStringLiteral("The revision to put back."),
                              QStringLiteral("n")});
    }

private:
    Status check() override
    {
        if (!m_restore) {
            if (!isSet("to"))
                return invalidInput(
                    QStringLiteral("policy rollback needs --to N (see policy history)"));
            auto target = revisionArgument(value("to"), QStringLiteral("--to"));
            if (!target)
                return target.error();
            m_target = *target;
        }
        m_reason = value("reason").trimmed();
        if (m_reason.isEmpty())
            return invalidInput(
                QStringLiteral("policy %1 needs --reason")
                    .arg(m_restore ? QStringLiteral("restore") : QStringLiteral("rollback")));
        return Unit{};
    }

    Result<int> shown(PolicyStore& store, const PolicyHistory& h) override
    {
        const QString name = text(h.action);
        if (m_restore && !h.deleted())
            return Error{
                ErrorKind::Conflict,
                QStringLiteral("policy %1 exists (revision %2): `policy rollback %1 --to N` "
                               "puts an earlier revision back")
                    .arg(name)
                    .arg(h.current->revision)};
        if (!m_restore && h.deleted())
            return Error{ErrorKind::NotFound,
                         QStringLiteral("policy %1 is deleted: `policy restore %1` brings it back")
                             .arg(name)};
        if (!m_restore && !h.find(m_target))
            return h.missing(m_target);
        auto written = waitFor<qint64>([&](Callback<qint64> done) {
            if (m_restore)
                store.restore(h.action, 0, cli().actor, m_reason, nullptr, done);
            else
                store.rollback(h.action, h.current->revision, m_target, cli().actor, m_reason,
                               nullptr, done);
        });
        if (!written)
            return written.error();
        const qint64 from = m_restore ? h.earlier.front().revision : m_target;
        if (json())
            printJson(QJsonObject{{QStringLiteral("action"), name},
                                  {QStringLiteral("revision"), *written},
                                  {QStringLiteral("from"), from}});
        else
            printLine(QStringLiteral("policy %1 %2: revision %3 is back as revision %4")
                          .arg(name, m_restore ? QStringLiteral("restored")
                                               : QStringLiteral("rolled back"))
                          .arg(from)
                          .arg(*written));
        return ExitOk;
    }

    bool m_restore;
    qint64 m_target = 0;
    QString m_reason;
};

} // namespace

int policyHistoryCommand(Cli& cli, const QString& sub, const QStringList& args)
{
    if (sub == QLatin1String("history"))
        return runCommand<ListHistoryCommand>(cli, args);
    if (sub == QLatin1String("diff"))
        return runCommand<DiffCommand>(cli, args);
    return BringBackCommand(sub == QLatin1String("restore")).run(cli, args);
}

} // namespace tollgate::ctl
