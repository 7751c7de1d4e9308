#pragma once

// waitFor(): runs an asynchronous operation and waits for its result (for tools; never on a
// GUI thread).

#include "tollgate/Result.h"

#include <future>
#include <memory>

namespace tollgate {

/// Runs an asynchronous core operation and waits for its result. For the CLI and tools on a
/// plain thread: `start` receives the callback and must pass a null context, so the callback
/// runs on the worker thread and this thread simply waits. Never use it on a GUI thread.
template <typename T, typename Start> Result<T> waitFor(Start&& start)
{
    auto promise = std::make_shared<std::promise<Result<T>>>();
    auto future = promise->get_future();
    start(Callback<T>([promise](Result<T> result) { promise->set_value(std::move(result)); }));
    return future.get();
}

} // namespace tollgate
