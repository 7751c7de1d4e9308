#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>

#include <optional>

namespace tollgate::conformance {

/// One file of conformance/cases (conformance/README.md "A case"), checked for unknown keys
/// and ops so that a typo fails the case instead of passing unnoticed.
struct CaseFile
{
    QString file; // the file name, as the PASS/FAIL lines print it
    QString name;
    QByteArray prefix = "tg";
    bool cluster = false;
    QList<QPair<QByteArray, QJsonObject>> policies; // action, the policy hash's fields
    QJsonArray steps;
    QJsonObject skip; // runner name -> why it cannot run the case

    /// Reads and checks `path`; nullopt with `error` set when it is not a valid case.
    static std::optional<CaseFile> load(const QString& path, QString* error);
};

/// An id as a case spells it: a string (UTF-8), {"repeat": s, "times": n} or {"hex": "ff41"}.
std::optional<QByteArray> idBytes(const QJsonValue& value);

/// "" when the step names a known op with only that op's fields, else what is wrong.
QString checkStep(const QJsonObject& step);

} // namespace tollgate::conformance
