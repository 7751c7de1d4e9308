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

    /// "tg:{victim}:ban: this is a string, but ... must be a hash. ..."
    QString text() const;
};

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
