// Which locations a catalog may write under, and which files it may touch.
//
// A REST client chooses table locations (CreateTable `location`,
// `set-location`, `write.metadata.path`, register); the server then writes
// metadata files there with its own privileges. By default only the
// warehouse is allowed, as managed catalogs (Polaris, Lakekeeper) do; more
// roots can be allowed explicitly, or "*" for anywhere. The warehouse is
// always allowed.
//
// Locations are compared as URIs (io::Location): same scheme, same
// authority, and a whole-segment path prefix, after lexical normalisation.
// The catalog's FileIO decides what is writable at all (CheckLocation: a
// location of another scheme is bad input, not merely forbidden) and where a
// root really leads (ResolveLocation): roots are normalised once, the same
// way, a relative root is taken from the working directory, and each root is
// also kept as the FileIO resolves it (symbolic links, locally), so
// `./warehouse` and its real path both match.
//
// The store's own directory (`<warehouse>/.skade`) is never an allowed
// location, whatever the roots say. Immutable; thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "skade/io/file_io.h"
#include "skade/io/location.h"
#include "skade/util/result.h"

namespace skade::catalog {

/// `locations` as error messages name them: local files as paths, the rest
/// as URIs, comma-separated.
std::string DescribeLocations(const std::vector<io::Location>& locations);

class LocationPolicy {
 public:
  /// `warehouse` is an absolute path or URI; `allowed` are location prefixes
  /// (URIs, absolute or relative paths); "*" allows everything. Unusable
  /// roots are ignored. `io` is the catalog's FileIO (shared, so the policy
  /// never outlives it).
  LocationPolicy(const std::string& warehouse, const std::vector<std::string>& allowed,
                 std::shared_ptr<io::FileIO> io);

  /// kForbidden (naming the location and the allowed roots) unless
  /// `location` is at or under an allowed root and not in the store's own
  /// directory; kInvalidArgument for a location skade cannot write (another
  /// scheme than the FileIO's, a relative path, "..").
  Status Check(const std::string& location) const;
  /// As Check, for a location already normalised (Normalize).
  Status Check(const io::Location& location) const;
  /// As Check, for a root of a table that a client names — its `location`,
  /// or a path property (spec::kTableRootProperties) — and also kInvalidArgument
  /// (naming the character) for a '#' or '?' in it: clients read a location
  /// as a URI (PyIceberg's urlparse, for local files too; Iceberg Java's
  /// S3URI), so they would cut it there, as a fragment or a query, and write
  /// the table's files into the root cut short — another table's location.
  /// Default locations percent-encode both.
  Status CheckTableRoot(const std::string& root) const;
  /// As Check, and where `location` leads (FileIO::ResolveLocation: the
  /// links of its directories and its own) must pass too: for a file skade
  /// reads, since reading follows links. kForbidden if it cannot be resolved.
  /// Returns where it leads, to read with FileIO::ReadCheckedFileUpTo (which
  /// follows no link made since).
  Result<io::Location> CheckRead(const std::string& location) const;

  /// Creates `location` (passing Check) with `contents` through the
  /// policy's FileIO, where the new file lies having to pass too
  /// (FileIO::WriteConfinedFile): a symbolic link in a table's directories,
  /// which whoever can write there may make at any time, cannot lead a file
  /// skade writes out of the allowed roots or into the store's directory
  /// (kForbidden, naming `location` only).
  Status WriteFile(const std::string& location, std::string_view contents, bool durable) const;

  /// Makes the directory `location` (passing Check) and those above it
  /// through the policy's FileIO, where it lies having to pass too
  /// (FileIO::CreateConfinedDirectories): no link in a table's directories
  /// leads a directory skade makes out of the allowed roots (kForbidden).
  Status CreateDirectories(const std::string& location) const;

  /// Reads `location` (passing Check), a file skade wrote, up to
  /// `max_bytes` through the policy's FileIO, where the file lies having to
  /// pass too (FileIO::ReadConfinedFileUpTo): a symbolic link in its place
  /// or in its table's directories, which whoever can write there may make
  /// at any time, cannot lead the read out of the allowed roots or into the
  /// store's directory (kForbidden). A file under a root no longer allowed
  /// is not read either.
  Result<std::string> ReadFile(const std::string& location, uint64_t max_bytes) const;

  /// `location` parsed, normalised and accepted by the FileIO; the
  /// kInvalidArgument of Check otherwise.
  Result<io::Location> Normalize(std::string_view location) const;

  /// The warehouse and the store's directory in it (`<warehouse>/.skade`),
  /// normalised.
  const io::Location& warehouse_directory() const { return warehouse_; }
  const io::Location& reserved_directory() const { return reserved_; }

  /// The FileIO the policy asks (the catalog's).
  const io::FileIO& file_io() const { return *io_; }

 private:
  Status CheckNormalized(const io::Location& location, std::string_view as_written) const;
  /// OK if a file skade reads or writes as `location` lies at `actual`
  /// (links resolved) where it may; kForbidden naming `location` only.
  Status CheckWhereItLies(const io::Location& actual, const std::string& location) const;

  std::shared_ptr<io::FileIO> io_;
  bool anywhere_ = false;
  std::vector<io::Location> roots_;  // normalised, as given and as resolved
  io::Location warehouse_;
  io::Location reserved_;
};

}  // namespace skade::catalog
