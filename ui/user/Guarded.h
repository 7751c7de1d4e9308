#pragma once

#include "tollgate/Result.h"
#include "ui/common/Session.h"

#include <QPointer>

namespace tollgate::ui {

/// Core delivers a callback by posting to its context object from the Redis worker thread,
/// which is only safe while that object lives. A dialog can be closed (and deleted) with a
/// request in flight, so short-lived widgets pass the Session (which outlives every page) as
/// the context and wrap their callback in guarded(): it runs on the GUI thread and is dropped
/// there if `owner` is gone.
template <typename T, typename F> Callback<T> guarded(QObject* owner, F callback)
{
    return [owner = QPointer<QObject>(owner), callback = std::move(callback)](Result<T> result) {
        if (owner)
            callback(std::move(result));
    };
}

} // namespace tollgate::ui
