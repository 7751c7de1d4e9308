#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace tollgate::test {

// One finished run of the tollgatectl binary: exit code (-1 timed out, -2 crashed) and output.
struct CliRun
{
    int code = -1;
    QByteArray out;
    QByteArray err;

    QJsonObject object() const;
    QJsonArray array() const;
    // JSON lines (one object per line), sorted by user then action for stable comparisons.
    QJsonArray lines() const;
    // "exit N, stdout: ..., stderr: ...", for failure messages.
    QString describe() const;
};

// The tollgatectl next to the test binaries (<build>/app/tollgatectl); TOLLGATECTL overrides.
QString tollgatectlPath();

// Runs tollgatectl with TOLLGATE_URL=url (60 s at most) and waits for it.
CliRun runCli(const QString& binary, const QString& url, const QStringList& args);
// The same with a whole environment of its own and `input` written to its stdin (then closed).
CliRun runCli(const QString& binary, const QProcessEnvironment& env, const QStringList& args,
              const QByteArray& input = {});

} // namespace tollgate::test
