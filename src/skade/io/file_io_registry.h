// FileIORegistry: which FileIO serves a location, chosen by its URI scheme.
//
// The one place that maps schemes to FileIO implementations: the catalog
// (EmbeddedCatalog::Open), the CLI (through it) and the benchmarks ask it
// for the FileIO of their warehouse instead of naming an implementation.
// Default() knows `file` (plain absolute paths are `file` locations too, see
// location.h). A storage whose FileIO needs libraries the core does not link
// (S3, on Arrow) registers itself into Default() from the program that links
// it, at start; nothing that asks the registry changes.
//
// Register is not thread-safe; Create and schemes are (a registry is filled
// before use; Default() is filled once, before it is returned).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "skade/io/file_io.h"
#include "skade/util/result.h"

namespace skade::io {

/// Settings for a FileIO (endpoint, region, credentials for an object
/// store), in Iceberg's catalog property style. The local FileIO takes none.
using FileIOProperties = std::map<std::string, std::string>;

/// Makes a FileIO from its settings. kInvalidArgument for bad settings.
using FileIOFactory = std::function<Result<std::shared_ptr<FileIO>>(const FileIOProperties&)>;

class FileIORegistry {
 public:
  /// The process's registry: `file` (the local file system), and what was
  /// registered into it before use — the CLI adds `s3` and `s3a`
  /// (s3/s3_file_io.h: RegisterS3FileIO), which the core does not link.
  static FileIORegistry& Default();

  /// Makes `factory` serve `scheme` (case-insensitive), replacing any
  /// earlier factory for it.
  void Register(std::string_view scheme, FileIOFactory factory);

  /// A new FileIO for `location`'s scheme, made with `properties`; a plain
  /// path, absolute or relative, is a `file` location. kInvalidArgument for
  /// a malformed location (Location::ParseUserInput),
  /// kUnsupported naming the scheme when none is registered, or the
  /// factory's error.
  Result<std::shared_ptr<FileIO>> Create(std::string_view location,
                                         const FileIOProperties& properties = {}) const;

  /// The registered schemes, sorted.
  std::vector<std::string> schemes() const;

 private:
  std::map<std::string, FileIOFactory> factories_;
};

}  // namespace skade::io
