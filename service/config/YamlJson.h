#pragma once

#include "tollgate/Result.h"

#include <QByteArray>

namespace YAML {
class Node;
}

namespace tollgate::service {

/// A YAML value as compact JSON, as envoyproxy/ratelimit turns a descriptor's `metadata` into a
/// protobuf Struct: maps and lists kept, true/false as booleans, numbers as numbers, null as
/// null, anything else as a string. InvalidInput for a map key that is not a single value.
Result<QByteArray> yamlToCompactJson(const YAML::Node& node);

} // namespace tollgate::service
