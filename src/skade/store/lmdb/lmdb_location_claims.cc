#include "skade/store/lmdb/lmdb_location_claims.h"

#include <algorithm>
#include <string_view>

#include "skade/store/lmdb/lmdb_keys.h"
#include "skade/util/strings.h"

namespace skade::store::lmdb {

namespace {

// The proper ancestors of `location` by whole segments, shortest first: the
// prefixes that end before a '/', leaving out a scheme ("s3:") and the empty
// segments of its "//" (no table owns those).
std::vector<std::string_view> Ancestors(std::string_view location) {
  std::vector<std::string_view> ancestors;
  for (size_t slash = location.find('/'); slash != std::string_view::npos;
       slash = location.find('/', slash + 1)) {
    std::string_view prefix = location.substr(0, slash);
    if (prefix.empty() || prefix.ends_with('/') || prefix.ends_with(':')) continue;
    ancestors.push_back(prefix);
  }
  return ancestors;
}

bool IsUnder(std::string_view location, std::string_view root) {
  return location.size() > root.size() && location.starts_with(root) &&
         location[root.size()] == '/';
}

tl::unexpected<Error> Overlaps(const spec::TableIdentifier& identifier, std::string_view location,
                               std::string_view other) {
  return MakeError(ErrorKind::kForbidden, "Location ", location, " of table ",
                   identifier.ToString(), " overlaps ", other,
                   ", which another table owns: tables may not share files");
}

}  // namespace

Result<bool> LocationClaims::Recorded(const ReadTxn& txn, uint64_t table_id) const {
  SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(table_locations_, TableLocationsKey(table_id)));
  return value.has_value();
}

Result<std::optional<std::vector<std::string>>> LocationClaims::OwnedBy(const WriteTxn& txn,
                                                                        uint64_t table_id) const {
  SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(table_locations_, TableLocationsKey(table_id)));
  if (!value) return std::optional<std::vector<std::string>>();
  SKADE_ASSIGN_OR_RAISE(auto owned, DecodeStringList(*value, "table locations record"));
  return std::optional<std::vector<std::string>>(std::move(owned));
}

template <typename Txn>
Status LocationClaims::CheckFree(const Txn& txn, uint64_t table_id,
                                 const spec::TableIdentifier& identifier,
                                 const std::string& location) const {
  SKADE_ASSIGN_OR_RAISE(auto cursor, Cursor::Open(txn.raw(), claims_));
  // The location itself, or anything under it. Entries sort by kind, then
  // table id: past this table's own few, the first is another's.
  std::string prefix = LocationClaimPrefix(location);
  SKADE_ASSIGN_OR_RAISE(bool found, cursor.Seek(prefix));
  while (found && cursor.key().starts_with(prefix)) {
    SKADE_ASSIGN_OR_RAISE(auto claim, DecodeLocationClaimKey(cursor.key(), prefix.size()));
    auto [kind, owner] = claim;
    if (owner == table_id) {
      SKADE_ASSIGN_OR_RAISE(found, cursor.Next());
      continue;
    }
    if (kind == LocationClaimKind::kOwns) return Overlaps(identifier, location, location);
    // Name the other table's location under this one.
    SKADE_ASSIGN_OR_RAISE(auto value, txn.Get(table_locations_, TableLocationsKey(owner)));
    std::vector<std::string> others;
    if (value) {
      SKADE_ASSIGN_OR_RAISE(others, DecodeStringList(*value, "table locations record"));
    }
    auto below = std::find_if(others.begin(), others.end(),
                              [&](const std::string& other) { return IsUnder(other, location); });
    return Overlaps(identifier, location, below == others.end() ? location : *below);
  }
  // An ancestor another table owns.
  for (std::string_view ancestor : Ancestors(location)) {
    SKADE_ASSIGN_OR_RAISE(bool owned, OwnedByAnother(txn.raw(), ancestor, table_id));
    if (owned) return Overlaps(identifier, location, ancestor);
  }
  return OkStatus();
}

template Status LocationClaims::CheckFree(const ReadTxn&, uint64_t, const spec::TableIdentifier&,
                                          const std::string&) const;
template Status LocationClaims::CheckFree(const WriteTxn&, uint64_t, const spec::TableIdentifier&,
                                          const std::string&) const;

Result<bool> LocationClaims::OwnedByAnother(MDB_txn* txn, std::string_view location,
                                            uint64_t table_id) const {
  SKADE_ASSIGN_OR_RAISE(auto cursor, Cursor::Open(txn, claims_));
  std::string owns = LocationClaimPrefix(location);
  owns.push_back(static_cast<char>(LocationClaimKind::kOwns));
  SKADE_ASSIGN_OR_RAISE(bool found, cursor.Seek(owns));
  while (found && cursor.key().starts_with(owns)) {
    SKADE_ASSIGN_OR_RAISE(auto claim, DecodeLocationClaimKey(cursor.key(), owns.size() - 1));
    if (claim.second != table_id) return true;
    SKADE_ASSIGN_OR_RAISE(found, cursor.Next());
  }
  return false;
}

Result<bool> LocationClaims::Owned(MDB_txn* txn, std::string_view location) const {
  SKADE_ASSIGN_OR_RAISE(bool owned, OwnedByAnother(txn, location, 0));
  if (owned) return true;
  for (std::string_view ancestor : Ancestors(location)) {
    SKADE_ASSIGN_OR_RAISE(owned, OwnedByAnother(txn, ancestor, 0));
    if (owned) return true;
  }
  return false;
}

Status LocationClaims::Claim(WriteTxn& txn, uint64_t table_id,
                             const spec::TableIdentifier& identifier,
                             const std::vector<std::string>& locations, bool check_overlap) const {
  for (const auto& location : locations) {
    if (location.empty() || location.size() > kMaxLocationBytes || location.ends_with('/') ||
        location.find('\0') != std::string::npos) {
      return InvalidArgument("Invalid table location for ", identifier.ToString(), ": ",
                             location.substr(0, 64));
    }
  }
  SKADE_ASSIGN_OR_RAISE(auto recorded, OwnedBy(txn, table_id));
  std::vector<std::string> owned = recorded.value_or(std::vector<std::string>{});
  std::vector<std::string> added;
  for (const auto& location : locations) {
    if (std::find(owned.begin(), owned.end(), location) == owned.end() &&
        std::find(added.begin(), added.end(), location) == added.end()) {
      added.push_back(location);
    }
  }
  if (added.empty() && recorded) return OkStatus();
  for (const auto& location : added) {
    if (check_overlap) SKADE_RETURN_NOT_OK(CheckFree(txn, table_id, identifier, location));
  }
  for (const auto& location : added) {
    SKADE_RETURN_NOT_OK(
        txn.Put(claims_, LocationClaimKey(location, LocationClaimKind::kOwns, table_id), {}));
    for (std::string_view ancestor : Ancestors(location)) {
      SKADE_RETURN_NOT_OK(txn.Put(
          claims_, LocationClaimKey(ancestor, LocationClaimKind::kOwnsBelow, table_id), {}));
    }
    owned.push_back(location);
  }
  std::sort(owned.begin(), owned.end());
  return txn.Put(table_locations_, TableLocationsKey(table_id), EncodeStringList(owned));
}

Status LocationClaims::Release(WriteTxn& txn, uint64_t table_id) const {
  SKADE_ASSIGN_OR_RAISE(auto owned, OwnedBy(txn, table_id));
  if (!owned) return OkStatus();
  for (const auto& location : *owned) {
    SKADE_RETURN_NOT_OK(
        txn.Delete(claims_, LocationClaimKey(location, LocationClaimKind::kOwns, table_id)));
    for (std::string_view ancestor : Ancestors(location)) {
      // Several of the table's locations may share an ancestor: the first
      // deletes its entry.
      SKADE_RETURN_NOT_OK(
          txn.Delete(claims_, LocationClaimKey(ancestor, LocationClaimKind::kOwnsBelow, table_id)));
    }
  }
  SKADE_RETURN_NOT_OK(txn.Delete(table_locations_, TableLocationsKey(table_id)));
  return OkStatus();
}

}  // namespace skade::store::lmdb
