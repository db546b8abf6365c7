// What the REST server hands clients of an S3 warehouse (rest/
// storage_access.h fills its StorageAccess from these):
// - ClientProperties: where the storage is (s3.endpoint, s3.path-style-access,
//   s3.region, client.region), never a secret;
// - CredentialVendor: credentials for one table's roots (its location, data
//   and metadata paths), by VendingMode: kStatic hands out the credentials
//   skade itself uses, to clients that may write (a read-only client gets
//   none: static keys cannot be limited); kSts asks the S3 server's STS
//   (AssumeRole; MinIO and AWS offer it) for temporary ones whose session
//   policy allows only under those roots — only reading for a read-only
//   client — cached per set of roots and access until a quarter of their
//   life is left.
//
// Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "skade/io/file_io_registry.h"
#include "skade/util/result.h"

namespace skade::s3 {

enum class VendingMode { kNone, kStatic, kSts };

/// "none", "static" or "sts"; kInvalidArgument otherwise.
Result<VendingMode> ParseVendingMode(std::string_view text);

/// s3.* client properties for a warehouse FileIO made with `properties`.
Result<std::map<std::string, std::string>> ClientProperties(const io::FileIOProperties& properties);

/// s3.access-key-id, s3.secret-access-key and (temporary ones)
/// s3.session-token valid under every one of `locations` (a table's roots;
/// s3://, s3a:// or s3n://, others are no S3 objects and get nothing), for a
/// client that may only read or also write; empty when there is nothing to
/// vend to it. kSts: kForbidden for a location whose policy would read a
/// '*', '?' or '$' as a wildcard or a variable, or for roots whose policy is
/// longer than STS takes (2,048 characters; about 550 bytes of one root).
using CredentialVendor = std::function<Result<std::map<std::string, std::string>>(
    const std::vector<std::string>& locations, bool read_only)>;

struct VendingOptions {
  VendingMode mode = VendingMode::kNone;
  /// kSts: the credentials' lifetime (STS allows 900 to 43200 seconds).
  int duration_seconds = 3600;
  /// kSts on AWS: the role to assume (MinIO ignores it).
  std::string role_arn;
};

/// A vendor for `options.mode` (null for kNone). kInvalidArgument for bad
/// options; kForbidden when skade has no credentials to vend or sign with.
Result<CredentialVendor> MakeCredentialVendor(const io::FileIOProperties& properties,
                                              const VendingOptions& options);

}  // namespace skade::s3
