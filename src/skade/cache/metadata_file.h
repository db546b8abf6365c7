// A metadata file as the catalog hands it out: the parsed, immutable table
// metadata plus the file's JSON text (uncompressed), shared by everyone who
// loads it.
#pragma once

#include <memory>
#include <string>

#include "skade/spec/table_metadata.h"

namespace skade::cache {

struct MetadataFile {
  spec::TableMetadataPtr metadata;
  std::shared_ptr<const std::string> json;
};

}  // namespace skade::cache
