#pragma once

#include "tollgate/Result.h"

#include <QRegularExpression>

namespace tollgate::ui {

/// A foreign key layout such as "act:limit:{action}:{user}" or "user:access:{user}:{minute}",
/// attached read-only: turned into a SCAN glob ("act:limit:*:*") and a parser for its fields.
class KeyTemplate
{
public:
    /// Placeholders are {name} with name of letters, digits and '_'; at least one is required.
    static Result<KeyTemplate> parse(const QString& text);

    const QByteArray& glob() const { return m_glob; }
    /// The value of placeholder `name` in `key`, or empty when the key does not fit.
    QString field(const QByteArray& key, const QString& name) const;

private:
    QByteArray m_glob;
    QRegularExpression m_regex;
};

} // namespace tollgate::ui
