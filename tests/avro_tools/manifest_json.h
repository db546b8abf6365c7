// JSON forms of manifest entries, data files and manifest-list entries, for
// skade_avro_tool and the interop tests that drive it.
//
// Conventions (the Python side mirrors them): byte strings (bounds, binary
// and fixed values, key metadata) are lowercase hex; uuids are canonical
// strings; decimals are decimal strings with the type's scale ("-12.50");
// non-finite floats are the strings "NaN", "Infinity", "-Infinity"; dates,
// times and timestamps are their integer days or micro/nanoseconds; metric
// maps are objects keyed by column id. Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "skade/spec/manifest_entry.h"
#include "skade/spec/manifest_file.h"
#include "skade/util/json_reader.h"
#include "skade/util/json_writer.h"
#include "skade/util/result.h"

namespace skade::avro_tool {

std::string Hex(std::string_view bytes);
Result<std::string> Unhex(std::string_view hex);

void WriteLiteral(JsonWriter& writer, const spec::Literal& value);
Result<spec::Literal> LiteralFromJson(json::Element element, const spec::TypePtr& type);

void WriteDataFile(JsonWriter& writer, const spec::DataFile& file);
Result<spec::DataFile> DataFileFromJson(json::Element element, const spec::Type& partition_type);

void WriteManifestEntry(JsonWriter& writer, const spec::ManifestEntry& entry);
/// `status` is "added", "existing" or "deleted".
Result<spec::ManifestEntry> ManifestEntryFromJson(json::Element element,
                                                  const spec::Type& partition_type);

void WriteManifestFile(JsonWriter& writer, const spec::ManifestFile& manifest);
Result<spec::ManifestFile> ManifestFileFromJson(json::Element element);

}  // namespace skade::avro_tool
