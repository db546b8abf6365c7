#include "skade/data/data_file_namer.h"

#include "skade/spec/table_locations.h"
#include "skade/util/uuid.h"

namespace skade::data {

DataFileNamer::DataFileNamer(const spec::TableMetadata& metadata, std::string prefix)
    : metadata_(metadata), prefix_(prefix.empty() ? NewUuid() : std::move(prefix)) {}

std::string DataFileNamer::Next(std::string_view partition_path) {
  return spec::DataFileLocation(metadata_, partition_path, spec::DataFileName(prefix_, next_++));
}

}  // namespace skade::data
