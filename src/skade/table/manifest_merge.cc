#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "skade/avro/manifest_writer.h"
#include "skade/spec/table_properties.h"
#include "skade/table/manifest_merge_internal.h"
#include "skade/table/table_manifest_internal.h"

namespace skade::table {

ManifestMergePolicy ManifestMergePolicy::Of(const spec::TableMetadata& metadata) {
  ManifestMergePolicy policy;
  policy.enabled = metadata.PropertyAsBool(spec::kManifestMergeEnabled, policy.enabled);
  policy.min_count_to_merge =
      metadata.PropertyAsInt(spec::kManifestMinCountToMerge, policy.min_count_to_merge);
  policy.target_size_bytes =
      metadata.PropertyAsInt(spec::kManifestTargetSizeBytes, policy.target_size_bytes);
  return policy;
}

namespace {

// Indices into a manifest list, in list order.
using Bin = std::vector<size_t>;

// `group` (indices, newest first) packed from its oldest end into bins of
// at most `target` bytes; bins come back newest first. Lengths come from a
// manifest list anyone may have written: each is clamped to [1, target] so
// the running weight stays in [0, target] and cannot overflow (a target
// below 1 leaves every manifest alone).
std::vector<Bin> PackFromEnd(const std::vector<spec::ManifestFile>& manifests, const Bin& group,
                             int64_t target) {
  target = std::max<int64_t>(target, 1);
  std::vector<Bin> bins;
  int64_t weight = 0;
  for (auto it = group.rbegin(); it != group.rend(); ++it) {
    int64_t length = std::clamp<int64_t>(manifests[*it].manifest_length, 1, target);
    if (bins.empty() || length > target - weight) {
      bins.emplace_back();
      weight = 0;
    }
    bins.back().push_back(*it);
    weight += length;
  }
  std::reverse(bins.begin(), bins.end());
  for (Bin& bin : bins) std::reverse(bin.begin(), bin.end());
  return bins;
}

}  // namespace

Result<std::optional<std::vector<spec::ManifestFile>>> ManifestMerger::Merge(
    const spec::TableMetadata& base, io::FileIO& io, int64_t snapshot_id,
    const std::vector<spec::ManifestFile>& current, const ManifestMergePolicy& policy,
    const StoreManifest& store) {
  if (!policy.enabled) return std::nullopt;
  std::map<std::pair<spec::ManifestContent, int32_t>, Bin> groups;
  for (size_t i = 0; i < current.size(); ++i) {
    groups[{current[i].content, current[i].partition_spec_id}].push_back(i);
  }
  // For each index: the merged manifest it stands for, or a skip mark.
  std::map<size_t, std::optional<spec::ManifestFile>> replaced;
  for (const auto& [key, group] : groups) {
    std::vector<Bin> bins = PackFromEnd(current, group, policy.target_size_bytes);
    for (size_t b = 0; b < bins.size(); ++b) {
      const Bin& bin = bins[b];
      bool newest = b == 0;
      if (bin.size() < 2 ||
          (newest && static_cast<int64_t>(bin.size()) < policy.min_count_to_merge)) {
        continue;
      }
      std::vector<const spec::ManifestFile*> members;
      for (size_t i : bin) members.push_back(&current[i]);
      SKADE_ASSIGN_OR_RAISE(replaced[bin.front()], MergeBin(base, io, snapshot_id, members, store));
      for (size_t j = 1; j < bin.size(); ++j) replaced[bin[j]] = std::nullopt;
    }
  }
  if (replaced.empty()) return std::nullopt;
  std::vector<spec::ManifestFile> manifests;
  for (size_t i = 0; i < current.size(); ++i) {
    auto it = replaced.find(i);
    if (it == replaced.end()) {
      manifests.push_back(current[i]);
    } else if (it->second) {
      manifests.push_back(*it->second);
    }
  }
  return manifests;
}

Result<std::optional<spec::ManifestFile>> ManifestMerger::MergeBin(
    const spec::TableMetadata& base, io::FileIO& io, int64_t snapshot_id,
    const std::vector<const spec::ManifestFile*>& bin, const StoreManifest& store) {
  std::string key;
  for (const spec::ManifestFile* manifest : bin)
    key.append(ManifestReadKey(*manifest)).push_back('\n');
  if (auto done = merged_.find(key); done != merged_.end()) return done->second;

  SKADE_ASSIGN_OR_RAISE(
      std::vector<TableManifest> read,
      ReadTableManifests(
          base, io, bin, [&](const spec::ManifestFile& manifest, const Error& error) {
            return MakeError(error.kind, "Cannot merge manifest ", manifest.manifest_path, " (",
                             base.location, "): ", error.message, " (table property ",
                             spec::kManifestMergeEnabled, "=false commits without merging)");
          }));
  avro::ManifestWriterOptions options;
  options.format_version = base.format_version;
  options.snapshot_id = snapshot_id;
  options.table_schemas = base.schemas;
  options.content = bin.front()->content;
  SKADE_ASSIGN_OR_RAISE(auto writer,
                        avro::ManifestWriter::Make(base.Schema(), read.front().spec, options));
  for (const TableManifest& manifest : read) {
    for (const spec::ManifestEntry& entry : manifest.entries) {
      // Files deleted by earlier snapshots are history, not content.
      if (entry.status == spec::ManifestEntryStatus::kDeleted) continue;
      SKADE_RETURN_NOT_OK(writer->Existing(entry));
    }
  }
  SKADE_ASSIGN_OR_RAISE(avro::WrittenManifest written, writer->Finish(""));
  std::optional<spec::ManifestFile> merged;
  if (written.manifest_file.existing_files_count > 0) {
    SKADE_ASSIGN_OR_RAISE(written.manifest_file.manifest_path, store(written.bytes));
    merged = std::move(written.manifest_file);
  }
  merged_.emplace(std::move(key), merged);
  return merged;
}

}  // namespace skade::table
