// Helpers shared by the spec JSON readers; not part of the public API.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "skade/spec/partition_spec.h"
#include "skade/util/json_reader.h"
#include "skade/util/json_writer.h"
#include "skade/util/result.h"

namespace skade::spec::internal {

/// Parses a whole JSON document with this thread's simdjson parser. The
/// element stays valid until the same thread parses the next document, so
/// callers must finish with it before calling any *FromJsonString function.
Result<json::Element> ParseDocument(std::string_view text);

/// A short compact-JSON excerpt of `element` for error messages.
std::string Snippet(json::Element element);

/// Writes `key` and the string map as its object value.
void WriteStringMap(JsonWriter& writer, std::string_view key,
                    const std::map<std::string, std::string>& map);

/// Writes `source-id`, or `source-ids` for a multi-argument transform (only
/// one of the two, as the spec asks).
void WriteSourceIds(JsonWriter& writer, int32_t source_id, const std::vector<int32_t>& source_ids);

/// Reads `source-id` / `source-ids` of a partition or sort field into the
/// model's form: one source is `source_id` with empty `source_ids`; several
/// keep the list, with the first also in `source_id`.
Status ReadSourceIds(json::Object object, int32_t* source_id, std::vector<int32_t>* source_ids);

/// A partition spec from a bare field list (the v1 `partition-spec` form).
/// Fields without `field-id` get 1000, 1001, … in order; a mix is an error.
Result<PartitionSpecPtr> PartitionSpecFromFields(int32_t spec_id, json::Element fields_json);

}  // namespace skade::spec::internal
