#include "tests/support/CliRunner.h"

#include <algorithm>

#include <QCoreApplication>
#include <QJsonDocument>
#include <QProcess>

namespace tollgate::test {

QJsonObject CliRun::object() const
{
    return QJsonDocument::fromJson(out).object();
}

QJsonArray CliRun::array() const
{
    return QJsonDocument::fromJson(out).array();
}

QJsonArray CliRun::lines() const
{
    QList<QJsonObject> objects;
    for (const QByteArray& line : out.split('\n')) {
        if (!line.trimmed().isEmpty())
            objects << QJsonDocument::fromJson(line).object();
    }
    std::sort(objects.begin(), objects.end(), [](const QJsonObject& a, const QJsonObject& b) {
        const auto key = [](const QJsonObject& o) {
            return std::make_pair(o[QStringLiteral("user")].toString(),
                                  o[QStringLiteral("action")].toString());
        };
        return key(a) < key(b);
    });
    QJsonArray array;
    for (const QJsonObject& object : objects)
        array.append(object);
    return array;
}

QString CliRun::describe() const
{
    return QStringLiteral("exit %1, stdout: %2, stderr: %3")
        .arg(code)
        .arg(QString::fromUtf8(out.trimmed()), QString::fromUtf8(err.trimmed()));
}

QString tollgatectlPath()
{
    // Tests build into <build>/tests, the CLI into <build>/app.
    return qEnvironmentVariable("TOLLGATECTL", QCoreApplication::applicationDirPath() +
                                                   QStringLiteral("/../app/tollgatectl"));
}

CliRun runCli(const QString& binary, const QString& url, const QStringList& args)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TOLLGATE_URL"), url);
    return runCli(binary, env, args);
}

CliRun runCli(const QString& binary, const QProcessEnvironment& env, const QStringList& args,
              const QByteArray& input)
{
    QProcess process;
    process.setProcessEnvironment(env);
    process.start(binary, args);
    process.write(input);
    process.closeWriteChannel();
    CliRun run;
    if (!process.waitForFinished(60'000)) {
        process.kill();
        process.waitForFinished();
        run.err = "timed out";
        return run;
    }
    run.code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

} // namespace tollgate::test
