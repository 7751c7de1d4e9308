#pragma once

#include <QString>

namespace tollgate {
struct ServiceInstance;
}

namespace tollgate::ui {

/// Everything the registry holds of one instance as a small HTML table, for the Services
/// page's details pane: what the table's columns cut (a long error, the config path) in full.
QString serviceDetailsHtml(const ServiceInstance& instance, const QString& health);

} // namespace tollgate::ui
