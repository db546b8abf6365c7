#include "skade/cache/manifest_cache.h"

#include <absl/container/flat_hash_map.h>

#include <atomic>
#include <condition_variable>
#include <list>
#include <mutex>
#include <optional>
#include <variant>

#include "skade/util/result.h"

namespace skade::cache {
namespace {

constexpr size_t kShards = 16;

// Heap estimates of parsed values: what an entry counts against the bound.
size_t Weight(const std::string& s) { return s.capacity() > 15 ? s.capacity() : 0; }

size_t Weight(const spec::Literal& literal) {
  const auto* bytes = std::get_if<std::string>(&literal.value());
  return sizeof(spec::Literal) + (bytes ? Weight(*bytes) : 0);
}

template <typename V>
size_t MapWeight(const std::map<int32_t, V>& map) {
  size_t weight = map.size() * (sizeof(int32_t) + sizeof(V) + 32);  // node overhead
  if constexpr (std::is_same_v<V, std::string>) {
    for (const auto& [id, value] : map) weight += Weight(value);
  }
  return weight;
}

size_t Weight(const spec::DataFile& file) {
  size_t weight = Weight(file.file_path) + MapWeight(file.column_sizes) +
                  MapWeight(file.value_counts) + MapWeight(file.null_value_counts) +
                  MapWeight(file.nan_value_counts) + MapWeight(file.lower_bounds) +
                  MapWeight(file.upper_bounds) + file.split_offsets.capacity() * sizeof(int64_t) +
                  file.equality_ids.capacity() * sizeof(int32_t);
  for (const spec::Literal& value : file.partition) weight += Weight(value);
  if (file.referenced_data_file) weight += Weight(*file.referenced_data_file);
  if (file.key_metadata) weight += Weight(*file.key_metadata);
  return weight;
}

size_t Weight(const avro::Manifest& manifest) {
  size_t weight = sizeof(manifest) + Weight(manifest.metadata.schema_json) +
                  Weight(manifest.metadata.partition_spec_json);
  for (const spec::ManifestEntry& entry : manifest.entries) {
    weight += sizeof(spec::ManifestEntry) + Weight(entry.data_file);
  }
  return weight;
}

size_t Weight(const avro::ManifestList& list) {
  size_t weight = sizeof(list);
  for (const spec::ManifestFile& manifest : list.manifests) {
    weight += sizeof(spec::ManifestFile) + Weight(manifest.manifest_path);
    for (const spec::PartitionFieldSummary& summary : manifest.partitions) {
      weight += sizeof(summary) + (summary.lower_bound ? Weight(*summary.lower_bound) : 0) +
                (summary.upper_bound ? Weight(*summary.upper_bound) : 0);
    }
  }
  return weight;
}

// The partition type's field ids and types, for the cache key.
void AppendTypeKey(const spec::Type& type, std::string* key) {
  for (const spec::NestedField& field : type.fields()) {
    key->push_back('\n');
    key->append(std::to_string(field.id));
    key->push_back(':');
    key->append(field.type->ToString());
  }
}

using Value =
    std::variant<std::shared_ptr<const avro::ManifestList>, std::shared_ptr<const avro::Manifest>>;

}  // namespace

// One shard: an LRU list of entries, a map into it, and the loads in
// flight. The mutex is never held across a read or a parse.
class ManifestCache::Impl {
 public:
  explicit Impl(size_t capacity) : shard_capacity_(capacity / kShards), capacity_(capacity) {}

  // The cached value for `key`, or else `load()`'s, cached when it
  // succeeds. Concurrent calls for one key run `load` once.
  template <typename Load>
  Result<Value> GetOrLoad(const std::string& key, bool* hit, Load&& load) {
    Shard& shard = shards_[absl::HashOf(key) % kShards];
    std::shared_ptr<Flight> flight;
    bool leader = false;
    {
      std::unique_lock lock(shard.mutex);
      if (auto it = shard.index.find(key); it != shard.index.end()) {
        shard.lru.splice(shard.lru.begin(), shard.lru, it->second);
        hits_.fetch_add(1, std::memory_order_relaxed);
        if (hit) *hit = true;
        return it->second->value;
      }
      if (auto it = shard.flights.find(key); it != shard.flights.end()) {
        flight = it->second;
      } else {
        flight = std::make_shared<Flight>();
        shard.flights.emplace(key, flight);
        leader = true;
      }
    }
    if (hit) *hit = false;
    if (!leader) {
      std::unique_lock lock(flight->mutex);
      flight->done_cv.wait(lock, [&] { return flight->done; });
      return flight->result;
    }
    misses_.fetch_add(1, std::memory_order_relaxed);
    Result<std::pair<Value, size_t>> loaded = load();
    Result<Value> result = loaded.has_value() ? Result<Value>(loaded->first)
                                              : Result<Value>(tl::unexpected(loaded.error()));
    {
      std::unique_lock lock(shard.mutex);
      shard.flights.erase(key);
      if (loaded.has_value()) Insert(shard, key, loaded->first, loaded->second + key.size());
    }
    {
      std::unique_lock lock(flight->mutex);
      flight->result = result;
      flight->done = true;
    }
    flight->done_cv.notify_all();
    return result;
  }

  // The cached value for `key`, or nullopt (counted as a hit when found).
  std::optional<Value> Find(const std::string& key) {
    Shard& shard = shards_[absl::HashOf(key) % kShards];
    std::unique_lock lock(shard.mutex);
    auto it = shard.index.find(key);
    if (it == shard.index.end()) return std::nullopt;
    shard.lru.splice(shard.lru.begin(), shard.lru, it->second);
    hits_.fetch_add(1, std::memory_order_relaxed);
    return it->second->value;
  }

  // Caches `value` unless `key` is cached already (a load in flight keeps
  // its own result: both are the one content of the location).
  void Put(const std::string& key, Value value, size_t weight) {
    Shard& shard = shards_[absl::HashOf(key) % kShards];
    std::unique_lock lock(shard.mutex);
    Insert(shard, key, std::move(value), weight + key.size());
  }

  Stats stats() const {
    Stats stats;
    for (const Shard& shard : shards_) {
      std::unique_lock lock(shard.mutex);
      stats.entries += shard.index.size();
      stats.bytes += shard.bytes;
    }
    stats.hits = hits_.load(std::memory_order_relaxed);
    stats.misses = misses_.load(std::memory_order_relaxed);
    stats.evictions = evictions_.load(std::memory_order_relaxed);
    return stats;
  }

  size_t capacity() const { return capacity_; }

 private:
  struct Entry {
    std::string key;
    Value value;
    size_t weight = 0;
  };
  struct Flight {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    Result<Value> result = InternalError("manifest load did not finish");
  };
  struct Shard {
    mutable std::mutex mutex;
    std::list<Entry> lru;  // most recent first
    absl::flat_hash_map<std::string, std::list<Entry>::iterator> index;
    absl::flat_hash_map<std::string, std::shared_ptr<Flight>> flights;
    size_t bytes = 0;
  };

  // Under the shard's lock. A value heavier than a shard is returned but
  // not kept, so the bound holds at every moment.
  void Insert(Shard& shard, const std::string& key, Value value, size_t weight) {
    if (weight > shard_capacity_ || shard.index.contains(key)) return;
    while (shard.bytes + weight > shard_capacity_ && !shard.lru.empty()) {
      shard.bytes -= shard.lru.back().weight;
      shard.index.erase(shard.lru.back().key);
      shard.lru.pop_back();
      evictions_.fetch_add(1, std::memory_order_relaxed);
    }
    shard.lru.push_front(Entry{key, std::move(value), weight});
    shard.index.emplace(key, shard.lru.begin());
    shard.bytes += weight;
  }

  const size_t shard_capacity_;
  const size_t capacity_;
  Shard shards_[kShards];
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> misses_{0};
  std::atomic<uint64_t> evictions_{0};
};

ManifestCache::ManifestCache(const ManifestCacheOptions& options)
    : impl_(std::make_unique<Impl>(options.capacity_bytes)) {}
ManifestCache::~ManifestCache() = default;

namespace {

std::string ManifestListKey(std::string_view location) {
  std::string key = "L";
  key.append(location);
  return key;
}

}  // namespace

Result<std::shared_ptr<const avro::ManifestList>> ManifestCache::ManifestList(
    io::FileIO& io, std::string_view location, std::optional<uint64_t> max_bytes) {
  SKADE_ASSIGN_OR_RAISE(
      Value value,
      impl_->GetOrLoad(
          ManifestListKey(location), nullptr, [&]() -> Result<std::pair<Value, size_t>> {
            SKADE_ASSIGN_OR_RAISE(std::string bytes, max_bytes
                                                         ? io.ReadFileUpTo(location, *max_bytes)
                                                         : io.ReadFile(location));
            SKADE_ASSIGN_OR_RAISE(avro::ManifestList list,
                                  avro::ReadManifestList(bytes, {}, location));
            auto shared = std::make_shared<const avro::ManifestList>(std::move(list));
            return std::pair<Value, size_t>(shared, Weight(*shared));
          }));
  return std::get<std::shared_ptr<const avro::ManifestList>>(value);
}

std::shared_ptr<const avro::ManifestList> ManifestCache::CachedManifestList(
    std::string_view location) {
  std::optional<Value> value = impl_->Find(ManifestListKey(location));
  if (!value) return nullptr;
  return std::get<std::shared_ptr<const avro::ManifestList>>(*value);
}

void ManifestCache::InsertManifestList(std::string_view location,
                                       std::shared_ptr<const avro::ManifestList> list) {
  size_t weight = Weight(*list);
  impl_->Put(ManifestListKey(location), std::move(list), weight);
}

Result<std::shared_ptr<const avro::Manifest>> ManifestCache::Manifest(
    io::FileIO& io, const spec::ManifestFile& manifest, const avro::ManifestReaderOptions& options,
    bool* hit) {
  // The entries are kept with what they inherit from the list's entry for
  // the manifest (sequence number, snapshot id, spec id, first row id), so
  // that is part of the key: another table's list may name the same file
  // with other values, and must not change what this one plans. Fixed-width,
  // before the path, so no two keys read alike. The partition type decides
  // how partition values are read, so it is part of the key too (a table's
  // specs are fixed, so one type per manifest in practice).
  std::string key = options.skip_column_sizes ? "m" : "M";
  auto append_fixed = [&key](auto value) {
    key.append(reinterpret_cast<const char*>(&value), sizeof(value));
  };
  append_fixed(manifest.sequence_number);
  append_fixed(manifest.added_snapshot_id);
  append_fixed(manifest.partition_spec_id);
  append_fixed(manifest.first_row_id.has_value());
  append_fixed(manifest.first_row_id.value_or(0));
  key.append(manifest.manifest_path);
  if (options.partition_type) AppendTypeKey(*options.partition_type, &key);
  SKADE_ASSIGN_OR_RAISE(
      Value value, impl_->GetOrLoad(key, hit, [&]() -> Result<std::pair<Value, size_t>> {
        SKADE_ASSIGN_OR_RAISE(std::string bytes, io.ReadFile(manifest.manifest_path));
        SKADE_ASSIGN_OR_RAISE(avro::Manifest parsed,
                              avro::ReadManifest(bytes, options, manifest.manifest_path));
        SKADE_RETURN_NOT_OK(avro::InheritFromManifestFile(manifest, &parsed.entries));
        auto shared = std::make_shared<const avro::Manifest>(std::move(parsed));
        return std::pair<Value, size_t>(shared, Weight(*shared));
      }));
  return std::get<std::shared_ptr<const avro::Manifest>>(value);
}

ManifestCache::Stats ManifestCache::stats() const { return impl_->stats(); }
size_t ManifestCache::capacity_bytes() const { return impl_->capacity(); }

}  // namespace skade::cache
