// IdempotencyRecord: the final answer to a request that carried an Iceberg
// REST Idempotency-Key, kept by the CatalogStore so that a retry of the
// request is answered again without running it again.
#pragma once

#include <cstdint>
#include <string>

#include "skade/spec/table_identifier.h"

namespace skade::store {

/// One finalized key. The store keeps at most one record per key and treats
/// a record as absent from `expires_at_ms` on (CatalogStore::
/// FindIdempotencyRecord); it never interprets the answer itself.
///
/// An answer is either a body (an ErrorModel, a namespace, …) or, for a
/// table-shaped answer (a LoadTableResult), the table and the metadata file
/// the replay loads instead of a copy of the metadata: such a file is
/// immutable, and usually still cached.
struct IdempotencyRecord {
  /// The key in canonical form (a lower-case UUID): unique in the store.
  std::string key;
  /// What identifies the request the key was first used for (the REST layer
  /// hashes method, target, principal and body); compared, never parsed.
  std::string fingerprint;
  /// The HTTP status of the answer.
  int status = 0;
  /// The answer's body, when it is not table-shaped (may be empty: 204).
  std::string body;
  /// For a table-shaped answer: the table and the metadata file it answered
  /// with. `metadata_location` is empty otherwise.
  spec::TableIdentifier table;
  std::string metadata_location;
  /// For a table-shaped answer: the table's uuid. A replay whose file is
  /// gone answers with the table as it is now, and only if it is this one
  /// (not another table created under the name since). Empty in records
  /// written before it was kept.
  std::string table_uuid;
  /// When the answer was final, and from when the record no longer counts
  /// (Unix milliseconds, the clock of the writer).
  int64_t created_at_ms = 0;
  int64_t expires_at_ms = 0;

  /// The same answer (status, body, table and file), whatever its times.
  bool SameAnswer(const IdempotencyRecord& other) const {
    return status == other.status && body == other.body && table == other.table &&
           metadata_location == other.metadata_location && table_uuid == other.table_uuid;
  }
  bool operator==(const IdempotencyRecord&) const = default;
};

}  // namespace skade::store
