// libFuzzer target: table metadata JSON (plain or gzip) must parse or fail
// cleanly, and whatever parses must write and re-parse to equal metadata.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "skade/spec/table_metadata_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto metadata = skade::spec::TableMetadataFromJson(text);
  if (!metadata) return 0;
  auto again = skade::spec::TableMetadataFromJson(skade::spec::TableMetadataToJson(**metadata));
  if (!again || !(*again)->Equals(**metadata)) std::abort();
  return 0;
}
