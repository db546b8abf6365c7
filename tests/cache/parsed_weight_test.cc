// Checks MetadataCache::EstimatedWeight against what parsing a realistic
// metadata file really allocates, counted by replacing operator new for this
// test binary.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <new>

#include "skade/cache/metadata_cache.h"
#include "skade/spec/new_table_metadata.h"
#include "skade/spec/table_metadata_builder.h"
#include "skade/spec/table_metadata_json.h"
#include "testing/fast_append.h"

namespace {

thread_local bool t_counting = false;
thread_local long long t_live_bytes = 0;

}  // namespace

// Every non-aligned form is replaced, so allocations and frees always pair
// up (sanitizers check that).
void* operator new(size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  if (t_counting) t_live_bytes += static_cast<long long>(malloc_usable_size(p));
  return p;
}
void* operator new[](size_t size) { return operator new(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  try {
    return operator new(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void operator delete(void* p) noexcept {
  if (p != nullptr && t_counting) t_live_bytes -= static_cast<long long>(malloc_usable_size(p));
  std::free(p);
}
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete(void* p, size_t) noexcept { operator delete(p); }
void operator delete[](void* p, size_t) noexcept { operator delete(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { operator delete(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { operator delete(p); }

namespace skade::cache {
namespace {

// Metadata with `snapshots` fast-append snapshots, as a real table grows.
spec::TableMetadataPtr GrownMetadata(int snapshots) {
  auto schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, {}, {}, {}},
                                        {2, "name", spec::Type::String(), false, {}, {}, {}},
                                        {3, "ts", spec::Type::TimestampTz(), false, {}, {}, {}}});
  auto metadata = *spec::NewTableMetadata(*schema, *spec::PartitionSpec::Unpartitioned(),
                                          *spec::SortOrder::Unsorted(), "file:///w/n/t", {});
  for (int i = 0; i < snapshots; ++i) {
    auto builder = spec::TableMetadataBuilder::BuildFrom(metadata, "file:///w/n/t/m.json");
    EXPECT_TRUE(
        builder.ApplyAll(testing::FastAppendRequest({{"n"}, "t"}, *metadata, 1000 + i).updates));
    metadata = *builder.Build();
  }
  return metadata;
}

TEST(ParsedWeightTest, EstimateCoversWhatParsingAllocates) {
  for (int snapshots : {0, 10, 200, 2000}) {
    std::string json = spec::TableMetadataToJson(*GrownMetadata(snapshots));
    ASSERT_TRUE(spec::TableMetadataFromJson(json));  // warm the parser's buffers
    t_live_bytes = 0;
    t_counting = true;
    auto parsed = spec::TableMetadataFromJson(json);
    t_counting = false;
    ASSERT_TRUE(parsed);
    long long parsed_bytes = t_live_bytes;
    std::string location = "file:///w/n/t/metadata/00001-x.metadata.json";
    MetadataFile file{*parsed, std::make_shared<const std::string>(json)};
    size_t estimate = MetadataCache::EstimatedWeight(location, file);
    size_t json_and_location = json.size() + location.size();
    RecordProperty("snapshots_" + std::to_string(snapshots) + "_parsed_per_json_byte",
                   std::to_string(static_cast<double>(parsed_bytes) / json.size()));
    EXPECT_GE(static_cast<long long>(estimate - json_and_location), parsed_bytes)
        << snapshots << " snapshots: json " << json.size() << " bytes, parsed " << parsed_bytes;
  }
}

}  // namespace
}  // namespace skade::cache
