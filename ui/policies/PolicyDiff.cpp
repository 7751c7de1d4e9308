#include "ui/policies/PolicyDiff.h"

#include "tollgate/Policy.h"

#include <QCoreApplication>

namespace tollgate::ui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("PolicyDiff", text);
}

QString banOf(const Policy& policy)
{
    return policy.hasBan() ? policy.banText() : tr("no ban");
}

QString zoneOf(const Policy& policy)
{
    return QString::fromUtf8(policy.timeZone);
}

QString onErrorOf(const Policy& policy)
{
    return policy.onError == FailureMode::Report
               ? tr("report the error")
               : QString::fromUtf8(failureModeName(policy.onError));
}

QString messageOf(const Policy& policy)
{
    return policy.message.isEmpty() ? tr("(none)") : QStringLiteral("\"%1\"").arg(policy.message);
}

} // namespace

QList<PolicyField> comparePolicies(const Policy& theirs, const Policy& mine)
{
    auto field = [&](const QString& name, auto text) {
        return PolicyField{name, text(theirs), text(mine)};
    };
    return {
        field(tr("Algorithm"),
              [](const Policy& p) { return QString::fromLatin1(algorithmName(p.algorithm)); }),
        field(tr("Limits"), [](const Policy& p) { return p.windowsText(); }),
        field(tr("Cost per hit"), [](const Policy& p) { return QString::number(p.cost); }),
        field(tr("Warn above"),
              [](const Policy& p) { return p.warn > 0 ? QString::number(p.warn) : tr("none"); }),
        field(tr("Ban"), banOf),
        field(tr("Time zone"), zoneOf),
        field(tr("Calendar windows"),
              [](const Policy& p) { return p.calendarAligned ? tr("yes") : tr("no"); }),
        field(tr("Denied hits count"),
              [](const Policy& p) { return p.countDenied ? tr("yes") : tr("no"); }),
        field(tr("Shadow (never denies)"),
              [](const Policy& p) { return p.shadow ? tr("yes") : tr("no"); }),
        field(tr("Deny message"), messageOf),
        field(tr("When Redis cannot answer"), onErrorOf),
    };
}

QStringList policyChanges(const std::optional<Policy>& before, const Policy& after)
{
    QStringList changes;
    for (const PolicyField& field : comparePolicies(before.value_or(after), after)) {
        if (!before)
            changes << QStringLiteral("%1: %2").arg(field.name, field.mine);
        else if (field.differs())
            changes << QStringLiteral("%1: %2 \u2192 %3").arg(field.name, field.theirs, field.mine);
    }
    return changes;
}

QString policyDifferenceText(const Policy& theirs, const Policy& mine)
{
    QStringList lines;
    int same = 0;
    for (const PolicyField& field : comparePolicies(theirs, mine)) {
        if (!field.differs()) {
            ++same;
            continue;
        }
        lines << tr("%1: theirs %2, yours %3").arg(field.name, field.theirs, field.mine);
    }
    if (lines.isEmpty())
        return tr("No field differs: both versions set the same limits, ban and message.");
    if (same > 0)
        lines << tr("(%1 other fields are the same)").arg(same);
    return lines.join(QLatin1Char('\n'));
}

} // namespace tollgate::ui
