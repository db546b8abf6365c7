// DataFileNamer: the one rule by which skade names the data files it
// writes — ingest (Append, the pipelines, IngestMulti, `skade ingest`) and
// the coalescing committer's flushes alike.
//
// The files of one ingest (or flush) are numbered in the order they are started:
// groups in submission order, and within a group in the order the writer
// starts them (a partition's first file when the partition first appears,
// a rolled file when its predecessor fills). File `seq` is
// `<data dir>/<partition path>/<prefix>-<seq:08>.parquet`
// (spec::DataFileLocation, spec::DataFileName), so the same input gives
// the same names whichever path writes it.
//
// Not thread-safe: one thread names an ingest's files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "skade/spec/table_metadata.h"

namespace skade::data {

class DataFileNamer {
 public:
  /// `metadata` must outlive the namer. An empty `prefix` is a fresh UUID.
  DataFileNamer(const spec::TableMetadata& metadata, std::string prefix);

  /// The location of the next file, in the partition directory
  /// `partition_path` ("a=1/b=x", empty when unpartitioned).
  std::string Next(std::string_view partition_path);

  const std::string& prefix() const { return prefix_; }

 private:
  const spec::TableMetadata& metadata_;
  std::string prefix_;
  int64_t next_ = 0;
};

}  // namespace skade::data
