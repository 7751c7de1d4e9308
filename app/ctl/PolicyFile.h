#pragma once

#include "core/policies/PolicyText.h"

#include <QByteArray>
#include <QString>
#include <vector>

// Policies as files (`policy export`, `policy apply`): YAML, the form operators keep in git, or
// JSON. Both hold {"policies": [{"action": ..., <the fields of policyToText()>}, ...]}.
namespace tollgate::ctl {

struct PolicyFileEntry
{
    QByteArray action;
    PolicyText fields;
};

/// The entries as YAML (strings double-quoted, so no value is ever read back as another type).
QByteArray policiesToYaml(const std::vector<PolicyFileEntry>& entries);
/// The same as one JSON document; numbers and booleans typed.
QByteArray policiesToJson(const std::vector<PolicyFileEntry>& entries);

/// Reads YAML or JSON (JSON is YAML too). InvalidInput names the line, or the entry by its
/// position and action, for a syntax error, a missing or repeated action, or a field that is
/// not a single value.
Result<std::vector<PolicyFileEntry>> parsePolicyFile(const QByteArray& text);

} // namespace tollgate::ctl
