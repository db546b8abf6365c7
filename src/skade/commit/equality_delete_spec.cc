#include <algorithm>

#include "skade/avro/manifest_list_reader.h"
#include "skade/commit/equality_delete_spec_internal.h"

namespace skade::commit {

namespace {

// The specs of main's data manifests that still hold rows. A manifest whose
// counts are all 0 counts too: a v1 list may leave them unknown.
Result<std::set<int32_t>> LiveDataSpecIds(const spec::TableMetadata& metadata, io::FileIO& io,
                                          const table::WrittenManifestList* list) {
  std::set<int32_t> ids;
  spec::SnapshotPtr snapshot = metadata.SnapshotForRef(spec::kMainBranch);
  if (!snapshot) return ids;
  std::vector<spec::ManifestFile> read;
  const std::vector<spec::ManifestFile>* manifests = &read;
  if (list != nullptr && list->location == snapshot->manifest_list) {
    manifests = &list->manifests;
  } else {
    SKADE_ASSIGN_OR_RAISE(std::string bytes, io.ReadFile(snapshot->manifest_list));
    SKADE_ASSIGN_OR_RAISE(avro::ManifestList parsed, avro::ReadManifestList(bytes));
    read = std::move(parsed.manifests);
  }
  for (const spec::ManifestFile& manifest : *manifests) {
    if (manifest.content != spec::ManifestContent::kData) continue;
    bool only_removals = manifest.added_files_count == 0 && manifest.existing_files_count == 0 &&
                         manifest.deleted_files_count > 0;
    if (!only_removals) ids.insert(manifest.partition_spec_id);
  }
  return ids;
}

}  // namespace

Result<spec::PartitionSpecPtr> EqualityDeleteSpec(const spec::TableMetadata& metadata,
                                                  io::FileIO& io,
                                                  const table::WrittenManifestList* list,
                                                  const std::set<int32_t>& more_data_spec_ids) {
  spec::PartitionSpecPtr current = metadata.Spec();
  if (current->IsUnpartitioned()) return current;
  auto elsewhere = [&](const std::set<int32_t>& ids) {
    return std::any_of(ids.begin(), ids.end(), [&](int32_t id) { return id != current->spec_id; });
  };
  bool global = elsewhere(more_data_spec_ids);
  if (!global && metadata.partition_specs.size() > 1) {
    SKADE_ASSIGN_OR_RAISE(std::set<int32_t> live, LiveDataSpecIds(metadata, io, list));
    global = elsewhere(live);
  }
  if (!global) return current;
  // One without fields: a spec of void fields still names source columns,
  // which the key need not hold.
  for (const spec::PartitionSpecPtr& spec : metadata.partition_specs) {
    if (spec->fields.empty()) return spec;
  }
  return spec::PartitionSpecPtr();
}

Result<table::Table> AddUnpartitionedSpec(const table::Table& table) {
  catalog::CommitTableRequest request{
      table.identifier(),
      {spec::AssertTableUuid{table.metadata().table_uuid}},
      {spec::AddPartitionSpec{std::make_shared<const spec::PartitionSpec>()}}};
  SKADE_ASSIGN_OR_RAISE(catalog::LoadTableResult committed, table.catalog().CommitTable(request));
  return table.WithVersion(std::move(committed));
}

}  // namespace skade::commit
