#pragma once

#include "ui/keys/KeysModel.h"

#include <QList>
#include <functional>

namespace tollgate::ui {

class Session;

/// Type, TTL and Value-column preview of `keys` for the Keys table, pipelined: TYPE and PTTL of
/// every key, then one bounded preview read per key by its type (KeyPreview). Tollgate's own
/// state is summed up against the server's clock and its policies' limits: one TIME and one
/// policy read per action for the whole batch, never a read per row. `done` gets one row per
/// key, in order, on `context`'s thread (not at all when `context` is gone).
void fetchKeyDetails(Session* session, const QList<QByteArray>& keys, QObject* context,
                     std::function<void(const QList<KeysModel::Row>&)> done);

} // namespace tollgate::ui
