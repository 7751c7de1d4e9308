#pragma once

#include "tollgate/Client.h"

#include <QString>

namespace tollgate::test {

// Whether `client` runs on the event loop and, for plain TCP, the stream the environment asks
// for (TOLLGATE_EVENT_LOOP, TOLLGATE_TCP_STREAM; see tests/CMakeLists.txt's OnQtLoop reruns).
// Read here straight from the environment, not through the library's own reading, and compared
// with what the client's thread and socket are: a rerun whose switch did nothing fails, and so
// does a default run that quietly fell back to Qt's. Empty when they match, else the mismatch.
// Call once the client is connected.
QString transportMismatch(const Client& client);

} // namespace tollgate::test
