// Helpers for reading JSON documents with simdjson's DOM API.
//
// Every getter returns a Result whose error is kInvalidArgument with a message
// naming the missing or mistyped field, in the style Iceberg clients use
// ("Cannot parse missing string: location"). A JSON null counts as absent for
// the optional getters.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skade/util/result.h"

namespace skade::json {

using Element = simdjson::dom::element;
using Object = simdjson::dom::object;
using Array = simdjson::dom::array;

/// Parses `text` with `parser`. The returned element lives until the parser's
/// next parse. Errors are kInvalidArgument ("malformed JSON: …").
Result<Element> Parse(simdjson::dom::parser& parser, std::string_view text);

Result<Object> AsObject(Element element, std::string_view what);
Result<Array> AsArray(Element element, std::string_view what);

/// kInvalidArgument naming the key if an object in `element` (at any depth)
/// has a key twice. Readers disagree on which one counts (simdjson finds the
/// first, Jackson and Python keep the last), so a request that has one is
/// refused rather than read differently from its sender.
Status CheckUniqueKeys(Element element);

/// The field `key`, or nullopt if absent or null.
std::optional<Element> Find(Object object, std::string_view key);
/// True if `key` is present (even if null).
bool Has(Object object, std::string_view key);

Result<Element> GetRequired(Object object, std::string_view key);
Result<std::string> GetString(Object object, std::string_view key);
/// As GetString, without a copy: the view lives as long as the parsed document.
Result<std::string_view> GetStringView(Object object, std::string_view key);
Result<std::optional<std::string>> GetOptionalString(Object object, std::string_view key);
Result<int64_t> GetInt64(Object object, std::string_view key);
Result<std::optional<int64_t>> GetOptionalInt64(Object object, std::string_view key);
Result<int32_t> GetInt32(Object object, std::string_view key);
Result<std::optional<int32_t>> GetOptionalInt32(Object object, std::string_view key);
Result<bool> GetBool(Object object, std::string_view key);
Result<std::optional<bool>> GetOptionalBool(Object object, std::string_view key);
Result<Object> GetObject(Object object, std::string_view key);
Result<Array> GetArray(Object object, std::string_view key);
/// A JSON object whose values are all strings, e.g. table properties.
Result<std::map<std::string, std::string>> GetStringMap(Object object, std::string_view key);
Result<std::map<std::string, std::string>> ToStringMap(Element element, std::string_view what);
Result<std::vector<int32_t>> GetInt32List(Object object, std::string_view key);
Result<std::vector<int64_t>> GetInt64List(Object object, std::string_view key);
Result<std::vector<std::string>> GetStringList(Object object, std::string_view key);

Result<std::string> ToString(Element element, std::string_view what);
Result<std::string_view> ToStringView(Element element, std::string_view what);
Result<int64_t> ToInt64(Element element, std::string_view what);
Result<int32_t> ToInt32(Element element, std::string_view what);

/// The element re-serialized as compact JSON text.
std::string Minify(Element element);

}  // namespace skade::json
