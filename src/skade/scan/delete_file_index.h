// DeleteFileIndex: which delete files apply to a data file (spec: "Scan
// Planning", the rules for position and equality deletes and v3 deletion
// vectors).
//
// - A position delete file applies to a data file of the same spec and
//   partition whose data sequence number is <= the delete's, and only to a
//   file it may reference: its referenced_data_file when set, else a path
//   within its file_path column's bounds.
// - A deletion vector (a position delete in Puffin format) applies to the
//   one data file it references, under the same sequence-number rule; where
//   a data file has one, its position delete files are not applied (a
//   writer of a DV merges the older ones into it, as the v3 spec requires).
// - An equality delete file applies to a data file whose data sequence
//   number is strictly lower, in the same partition — or in every partition
//   when the delete's spec is unpartitioned.
// Build with Add and Finish, then call ForDataFile from any number of
// threads.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <string>
#include <vector>

#include "skade/scan/scan_plan.h"
#include "skade/spec/data_file.h"
#include "skade/spec/partition_spec.h"

namespace skade::scan {

class DeleteFileIndex {
 public:
  /// A live delete file with its data sequence number, from a manifest of
  /// `spec`.
  void Add(spec::DataFile file, int64_t data_sequence_number, const spec::PartitionSpec& spec);
  /// Sorts what was added; call once after the last Add, before ForDataFile.
  void Finish();

  /// The delete files that apply to `data_file` at `data_sequence_number`:
  /// its deletion vector or position deletes first, then equality deletes,
  /// each in ascending sequence order.
  std::vector<ScanDelete> ForDataFile(const spec::DataFile& data_file,
                                      int64_t data_sequence_number) const;

  size_t size() const { return size_; }

 private:
  struct Group {
    std::vector<ScanDelete> position;  // sorted by sequence number
    std::vector<ScanDelete> equality;  // sorted by sequence number
  };
  absl::flat_hash_map<std::string, Group> by_partition_;  // by spec id and tuple
  std::vector<ScanDelete> global_equality_;               // unpartitioned equality deletes
  absl::flat_hash_map<std::string, std::vector<ScanDelete>> vectors_;  // by referenced file
  size_t size_ = 0;
};

}  // namespace skade::scan
