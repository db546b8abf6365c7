// libFuzzer target: manifest and manifest-list bytes must decode or fail
// cleanly (bounded allocation, no out-of-range reads).
#include <cstdint>
#include <string_view>

#include "skade/avro/manifest_list_reader.h"
#include "skade/avro/manifest_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)skade::avro::ReadManifest(bytes);
  (void)skade::avro::ReadManifestList(bytes);
  return 0;
}
