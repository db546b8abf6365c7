#include "skade/spec/metadata_log.h"

#include <algorithm>

namespace skade::spec {

MetadataLog::MetadataLog(std::initializer_list<MetadataLogEntry> entries) {
  for (const auto& entry : entries) push_back(entry);
}

void MetadataLog::reserve(size_t entries, size_t path_bytes) {
  slots_.reserve(entries);
  paths_.reserve(path_bytes);
}

void MetadataLog::push_back(int64_t timestamp_ms, std::string_view metadata_file) {
  slots_.push_back({timestamp_ms, paths_.size(), metadata_file.size()});
  paths_.append(metadata_file);
}

void MetadataLog::DropOldest(size_t count) {
  count = std::min(count, slots_.size());
  if (count == 0) return;
  const size_t dropped_bytes = PathBytesBefore(count);
  slots_.erase(slots_.begin(), slots_.begin() + static_cast<std::ptrdiff_t>(count));
  paths_.erase(0, dropped_bytes);
  for (auto& slot : slots_) slot.offset -= dropped_bytes;
}

MetadataLog MetadataLog::Oldest(size_t count) const {
  count = std::min(count, slots_.size());
  MetadataLog out;
  out.slots_.assign(slots_.begin(), slots_.begin() + static_cast<std::ptrdiff_t>(count));
  out.paths_.assign(paths_, 0, PathBytesBefore(count));
  return out;
}

bool MetadataLog::operator==(const MetadataLog& other) const {
  return std::equal(begin(), end(), other.begin(), other.end());
}

bool MetadataLog::operator==(const std::vector<MetadataLogEntry>& other) const {
  return std::equal(begin(), end(), other.begin(), other.end(),
                    [](const Entry& a, const MetadataLogEntry& b) { return a == b; });
}

}  // namespace skade::spec
