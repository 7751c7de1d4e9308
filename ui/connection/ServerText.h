#pragma once

#include <QString>

namespace tollgate {
class Client;
}

namespace tollgate::ui {

/// Where the client is, for the status bar: "127.0.0.1:6379"; on a Sentinel deployment the
/// server the sentinels named, "127.0.0.1:6380, primary of 'main' (Sentinel)", or before they
/// named one "main via sentinels ..."; through Twemproxy "127.0.0.1:22121, a Twemproxy pool of
/// 2 backends".
QString serverText(const Client& client);

} // namespace tollgate::ui
