// LocationClaims: which table owns which locations, in the LMDB store
// (CatalogStore's table locations; layout in lmdb_keys.h).
//
// A location is a string of '/'-separated segments (the catalog passes
// normalised URIs). Two locations overlap when they are equal or one lies
// under the other by whole segments. Each owned location L of table T has an
// entry (L, kOwns, T) and, for each ancestor A of L, an entry (A, kOwnsBelow,
// T). So whether another table owns L or anything under it is one seek to
// L's entries, and whether another owns an ancestor of L is one seek per
// ancestor to its kOwns entries: a check costs a few reads whatever the
// number of tables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/spec/table_identifier.h"
#include "skade/store/lmdb/lmdb_env.h"
#include "skade/util/result.h"

namespace skade::store::lmdb {

class LocationClaims {
 public:
  /// Each ancestor of a location is one more entry, hashed in full: the cost
  /// of a claim grows with the square of its length.
  static constexpr size_t kMaxLocationBytes = 4096;
  /// The table id of a table not yet in the store (ids start at 1).
  static constexpr uint64_t kNewTable = 0;

  LocationClaims() = default;
  LocationClaims(MDB_dbi claims, MDB_dbi table_locations)
      : claims_(claims), table_locations_(table_locations) {}

  /// Adds `locations` to what the table `table_id` owns (nothing is
  /// written when it owns them all). With `check_overlap`, kForbidden,
  /// naming `identifier` and the other table's location, if one overlaps a
  /// location another table owns. kInvalidArgument for an empty location,
  /// one longer than kMaxLocationBytes, with a NUL, or ending in '/'.
  Status Claim(WriteTxn& txn, uint64_t table_id, const spec::TableIdentifier& identifier,
               const std::vector<std::string>& locations, bool check_overlap = true) const;
  /// kForbidden if a table other than `table_id` (kNewTable: any) owns a
  /// location overlapping `location`. `txn`: a ReadTxn or WriteTxn.
  template <typename Txn>
  Status CheckFree(const Txn& txn, uint64_t table_id, const spec::TableIdentifier& identifier,
                   const std::string& location) const;
  /// Drops everything `table_id` owns (nothing if it owns nothing).
  Status Release(WriteTxn& txn, uint64_t table_id) const;
  /// Whether some table owns `location` or a location above it (`txn`: a
  /// read or write transaction's raw()).
  Result<bool> Owned(MDB_txn* txn, std::string_view location) const;
  /// Whether `table_id`'s locations were ever recorded (an empty list
  /// counts).
  Result<bool> Recorded(const ReadTxn& txn, uint64_t table_id) const;

 private:
  /// The locations `table_id` owns; nullopt if never recorded.
  Result<std::optional<std::vector<std::string>>> OwnedBy(const WriteTxn& txn,
                                                          uint64_t table_id) const;
  /// Whether a table other than `table_id` (0: any) has a kOwns entry at
  /// `location`.
  Result<bool> OwnedByAnother(MDB_txn* txn, std::string_view location, uint64_t table_id) const;

  MDB_dbi claims_ = 0;
  MDB_dbi table_locations_ = 0;
};

}  // namespace skade::store::lmdb
