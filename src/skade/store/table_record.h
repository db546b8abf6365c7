// TableRecord: what a CatalogStore keeps per table.
#pragma once

#include <cstdint>
#include <string>

namespace skade::store {

/// A table's pointer: its stable id (kept across renames) and current
/// metadata file.
struct TableRecord {
  uint64_t table_id = 0;
  std::string metadata_location;
  bool operator==(const TableRecord&) const = default;
};

}  // namespace skade::store
