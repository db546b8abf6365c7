// TableChange: a table pointer as a committed write left it, and
// TablePointers: a set of them as of one change version of the store.
//
// Change versions are opaque uint64_t values a CatalogStore assigns to its
// committed writes: every committed write gets one, a later write a larger
// one, across every process and instance sharing the store. Nothing else
// about them is promised (they need not be consecutive); 0 is before the
// first write.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "skade/store/table_record.h"

namespace skade::store {

/// A table pointer as a write left it.
struct TableChange {
  std::string table_key;              // TableKey() of the table
  std::optional<TableRecord> record;  // nullopt: the table no longer exists
  bool operator==(const TableChange&) const = default;
};

/// Table pointers as of change version `version`.
struct TablePointers {
  uint64_t version = 0;
  std::vector<TableChange> tables;
};

}  // namespace skade::store
