#pragma once

// What Client keeps of a command between the calling thread and the worker thread: private to
// the client's own sources (Client.cpp, ClientMode.cpp).
#include "core/redis/CommandBuilder.h"
#include "tollgate/Client.h"

namespace tollgate {

struct Client::Pending
{
    EncodedCommand command;
    Callback<Reply> done;         // runs on the worker thread
    const void* caller = nullptr; // whose order the reply keeps (context or thread)
    // A pipeline instead of `command`: all its replies go to `replies`, none to `done`.
    EncodedPipeline pipeline;
    std::shared_ptr<BatchReplies> replies;
};

} // namespace tollgate
