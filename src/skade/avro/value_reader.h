// Reading single Avro values against the writer's schema, with the
// resolution Iceberg readers need: union branches, Avro's numeric promotions
// (int → long → float → double, string ↔ bytes), and Iceberg's int-keyed maps
// stored as arrays of key/value records.
//
// A value whose writer type cannot be read as the requested kind is
// kCorruption naming both types; malformed bytes are kCorruption from the
// Decoder. Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/avro/decode_budget.h"
#include "skade/avro/decoder.h"
#include "skade/avro/schema.h"
#include "skade/util/result.h"

namespace skade::avro {

/// Skips one value written with `node`.
Status SkipValue(Decoder& decoder, const Node& node);

/// Reads a union branch index when `node` is a union and returns the branch
/// the value was written with; returns `node` itself otherwise.
Result<const Node*> ResolveBranch(Decoder& decoder, const Node& node);

// Each reader returns nullopt for a null value (a null branch of a union, or
// a writer type of null).
Result<std::optional<bool>> ReadOptionalBoolean(Decoder& decoder, const Node& node);
Result<std::optional<int32_t>> ReadOptionalInt(Decoder& decoder, const Node& node);
Result<std::optional<int64_t>> ReadOptionalLong(Decoder& decoder, const Node& node);
Result<std::optional<float>> ReadOptionalFloat(Decoder& decoder, const Node& node);
Result<std::optional<double>> ReadOptionalDouble(Decoder& decoder, const Node& node);
/// bytes, string or fixed; the view points into the decoder's input.
Result<std::optional<std::string_view>> ReadOptionalBytes(Decoder& decoder, const Node& node);

/// An array of int or long items; a null value leaves `out` empty and
/// returns false. Each item is charged to `budget` before it is kept.
Result<bool> ReadLongList(Decoder& decoder, const Node& node, DecodeBudget& budget,
                          std::vector<int64_t>* out);
Result<bool> ReadIntList(Decoder& decoder, const Node& node, DecodeBudget& budget,
                         std::vector<int32_t>* out);

/// An Iceberg map with int keys: an array of records with `key` and `value`
/// fields (Iceberg's form, `logicalType: map`) or an Avro map whose string
/// keys are decimal integers. A null value leaves `out` empty and returns
/// false. Null map values are skipped. Each entry is charged to `budget`
/// before it is kept.
Result<bool> ReadIntLongMap(Decoder& decoder, const Node& node, DecodeBudget& budget,
                            std::map<int32_t, int64_t>* out);
Result<bool> ReadIntBytesMap(Decoder& decoder, const Node& node, DecodeBudget& budget,
                             std::map<int32_t, std::string>* out);

}  // namespace skade::avro
