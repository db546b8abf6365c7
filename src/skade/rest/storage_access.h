// StorageAccess: what the REST server tells clients about the warehouse's
// storage, so that Spark, PyIceberg and DuckDB reach an object store with no
// settings of their own.
//
// - `client_properties` go into /v1/config `defaults` and every
//   LoadTableResult `config`: where the storage is (for S3: s3.endpoint,
//   s3.path-style-access, s3.region, client.region), never a secret.
// - `vendor`, when set, vends credentials to a client that asks with
//   `X-Iceberg-Access-Delegation: vended-credentials` on loadTable (and
//   createTable, registerTable), and to the spec's loadCredentials route: the
//   properties it returns for a table's roots (s3.access-key-id,
//   s3.secret-access-key, s3.session-token) go into `config` and, once per
//   root (catalog::TableRoots: its location and path properties; one inside
//   another counts once), into `storage-credentials`. One set for all roots,
//   since PyIceberg uses one FileIO per table, with the set whose prefix
//   its metadata file matches. A read-only client gets read-only credentials
//   or none, never write access the REST API would refuse it. Unset, nothing
//   is vended and loadCredentials answers an empty list.
//
// The REST layer knows no storage: the CLI fills this in from the warehouse's
// FileIO settings (s3/). A plain value; `vendor` must be thread-safe.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "skade/util/result.h"

namespace skade::rest {

using StorageProperties = std::map<std::string, std::string>;

/// Credentials for a table whose files lie under `locations` (its roots:
/// its location first, then its data and metadata paths when set and not
/// inside another), valid for all of them, for a client that may only read
/// (`read_only`: an OAuth client marked `:ro`) or also write. Empty: nothing
/// to vend to this client (then none is sent).
using CredentialVendor = std::function<Result<StorageProperties>(
    const std::vector<std::string>& locations, bool read_only)>;

struct StorageAccess {
  StorageProperties client_properties;
  CredentialVendor vendor;
};

/// One entry of `storage-credentials`: the config of a location prefix.
struct StorageCredential {
  std::string prefix;
  StorageProperties config;
};

}  // namespace skade::rest
