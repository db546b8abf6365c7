#include "skade/table/added_files.h"

#include "skade/table/new_manifests_internal.h"

namespace skade::table {

Status CheckAddedFiles(const spec::TableMetadata& metadata,
                       const std::vector<spec::DataFile>& data_files,
                       const std::vector<spec::DataFile>& delete_files) {
  const StoreManifest drop = [](std::string_view) -> Result<std::string> { return std::string(); };
  constexpr int64_t kNoSnapshot = 0;
  if (!data_files.empty()) {
    SKADE_RETURN_NOT_OK(WriteAddedManifests(metadata, kNoSnapshot, data_files, drop));
  }
  if (!delete_files.empty()) {
    SKADE_RETURN_NOT_OK(WriteAddedDeleteManifests(metadata, kNoSnapshot, delete_files, drop));
  }
  return OkStatus();
}

}  // namespace skade::table
