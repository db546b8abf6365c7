// Random (version 4) UUIDs, as Iceberg uses for table uuids and file names.
#pragma once

#include <string>
#include <string_view>

namespace skade {

/// A new random UUID in canonical lowercase form. Thread-safe.
std::string NewUuid();

/// True if `text` is a UUID in canonical 8-4-4-4-12 hex form (any case).
bool IsUuid(std::string_view text);

}  // namespace skade
