#pragma once

#include "app/ctl/Cli.h"
#include "core/json/JsonWriter.h"
#include "core/policies/PolicyText.h"
#include "tollgate/HitResult.h"
#include "tollgate/Moderation.h"
#include "tollgate/Policy.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonObject>
#include <functional>
#include <optional>
#include <vector>

namespace tollgate::ctl {

/// Prints "tollgatectl: <message>" on stderr (the one line every error gets) and returns the
/// exit code for the error's kind: InvalidInput -> 2, everything else -> 3.
int fail(const Error& error);
/// "tollgatectl: warning: <message>" on stderr; changes no exit code.
void warn(const QString& message);
/// A usage error: one stderr line, exit code 2.
int usage(const QString& message);

/// One sub-command of a command with several ("policy set").
struct Subcommand
{
    const char* name;
    std::function<int(Cli&, const QStringList&)> run;
};
/// Runs the sub-command args[1] names, with "<command> <sub-command>" as its args[0] (its usage
/// lines say so); a missing or unknown one is a usage error that lists them all.
int runSubcommand(Cli& cli, const QStringList& args, const std::vector<Subcommand>& table);
int exitCodeFor(ErrorKind kind);

/// Parses a sub-command's arguments. Returns an exit code when the command must stop here
/// (bad flags, wrong number of positional arguments, --help), nullopt to go on.
std::optional<int> parseArguments(QCommandLineParser& parser, const QStringList& args,
                                  int minPositional, int maxPositional);
/// --until's value: "midnight" (the next local one), an ISO date-time ("2030-01-31T18:00",
/// local unless it has an offset or Z) or an ISO date (its local start), as epoch ms.
Result<qint64> parseUntil(const QString& value);
/// A whole number option; InvalidInput naming the flag when it is not one.
Result<qint64> integerOption(const QCommandLineParser& parser, const QString& name,
                             qint64 fallback);

void printJson(const QJsonObject& object);
void printJson(const QJsonArray& array);
void printLine(const QString& line);
/// Left-aligned columns, two spaces apart; the first row is the header.
void printTable(const QList<QStringList>& rows);
/// "850ms", "9.7s", "1h30m": for people, not exact.
QString humanMs(qint64 ms);
QString text(const QByteArray& id);
/// "2026-01-31 14:05:00", local time.
QString timeText(qint64 ms);

/// The fields of a hit's result and of a ban, written into an open object: the one list of
/// them, behind toJson() and behind the per-row lines of `subjects --json`.
void writeFields(JsonWriter& out, const HitResult& hit);
void writeFields(JsonWriter& out, const BanInfo& ban);

QJsonObject toJson(const HitResult& hit);
QJsonObject toJson(const Policy& policy);
QJsonObject toJson(const BanInfo& ban);
/// [{"field","before","after"}, ...]: a field-by-field diff (policy apply --plan, policy diff).
QJsonArray toJson(const std::vector<PolicyFieldChange>& changes);

} // namespace tollgate::ctl
