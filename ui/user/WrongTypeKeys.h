#pragma once

#include "ui/common/Session.h"

#include <functional>
#include <vector>

namespace tollgate::ui {

/// A key of the user's in a place of Tollgate's schema that holds another Redis type (written
/// by another tool, e.g. `SET tg:{victim}:ban x`): every script touching it fails with
/// WRONGTYPE, so the user's verdicts fail until it is deleted.
struct WrongTypeKey
{
    QByteArray key;
    QByteArray type;     // TYPE's answer
    QByteArray expected; // what the schema says (lua/README.md, "Keys")
    KeySchema::Parsed parsed;

    /// wrongTypeExplanation() of this key.
    QString text() const;
};

/// What a key of the wrong type is and does, for people: "tg:{victim}:ban is a string;
/// Tollgate keeps a ban as a hash: every verdict for victim fails until it is deleted."
QString wrongTypeExplanation(const QByteArray& key, const KeySchema::Parsed& parsed,
                             const QByteArray& type, const QByteArray& expected);

/// TYPE of each of `keys` (one pipeline): those that exist with a type the schema does not
/// allow there. `done` runs on the GUI thread, not at all once `owner` is gone; a failed read
/// gives none.
void findWrongTypeKeys(Session* session, const QList<QByteArray>& keys, QObject* owner,
                       std::function<void(std::vector<WrongTypeKey>)> done);

/// The keys a user's verdicts read: the user-wide ban, each action's ban and state keys (the
/// policy's windows) and the overrides hash.
QList<QByteArray> keysReadByVerdicts(const KeySchema& schema, const QByteArray& user,
                                     const std::vector<Policy>& policies);

} // namespace tollgate::ui
