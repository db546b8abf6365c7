// BucketFileIO: a FileIO that addresses `s3://bucket/...` only, with an
// optional "alias" prefix that ResolveLocation maps elsewhere (as a
// symbolic link does locally), for location policy tests that must not
// depend on the local file system. Its file calls go to the local FileIO
// and are not meant to be used. Thread-safe (immutable after setup).
#pragma once

#include <string>
#include <utility>

#include "skade/io/forwarding_file_io.h"
#include "skade/io/location.h"

namespace skade::testing {

class BucketFileIO : public io::ForwardingFileIO {
 public:
  BucketFileIO() : ForwardingFileIO(io::NewLocalFileIO()) {}

  /// ResolveLocation maps `from` and everything under it to `to`.
  void Alias(std::string from, std::string to) {
    from_ = *io::Location::Parse(from);
    to_ = *io::Location::Parse(to);
  }

  Status CheckLocation(const io::Location& location) const override {
    if (location.scheme != "s3" || location.authority != "bucket") {
      return InvalidArgument("Not in the bucket: ", location.ToString());
    }
    return OkStatus();
  }

  Result<io::Location> ResolveLocation(const io::Location& location) const override {
    SKADE_RETURN_NOT_OK(CheckLocation(location));
    if (from_.path.empty() || !location.IsUnder(from_)) return location;
    io::Location resolved = to_;
    resolved.path += location.path.substr(from_.path.size());
    return resolved;
  }

 private:
  io::Location from_;
  io::Location to_;
};

}  // namespace skade::testing
