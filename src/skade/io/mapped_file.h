// MappedFile: a local file mapped read-only into memory.
//
// For files skade derives and keeps beside its store (the snapshot index),
// which readers use in place rather than read: pages come in on first touch
// and the kernel may drop them again, so a file larger than RAM works. Not
// for warehouse files, which go through FileIO (and may not be local).
//
// The file must not change while mapped; the files mapped here are written
// once and never modified (a replacement is a new file). Removing the file is
// safe: the mapping keeps its pages. Thread-safe (immutable).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "skade/util/result.h"

namespace skade::io {

class MappedFile {
 public:
  /// Maps the regular file at local `location` (a path or file: URI).
  /// kNotFound if it is missing; kInvalidArgument if it is not a regular
  /// file; kIo for other failures. An empty file maps to no bytes.
  static Result<std::unique_ptr<MappedFile>> Open(std::string_view location);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  /// The file's bytes; page-aligned, so any offset that is a multiple of 64
  /// is 64-byte aligned.
  std::span<const std::byte> bytes() const { return {data_, size_}; }
  /// Asks the kernel to read `range` ahead (a hint; errors are ignored).
  void WillNeed(std::span<const std::byte> range) const;

 private:
  MappedFile(const std::byte* data, size_t size) : data_(data), size_(size) {}
  const std::byte* data_;
  size_t size_;
};

}  // namespace skade::io
