// libFuzzer target: copy deltas (the store journal's delta of a metadata file
// against its predecessor). Input: a 2-byte split, then a base and a target.
// A delta made from them must rebuild the target exactly, with and without
// a budget for new bytes; the target read as a delta must apply to the base
// or fail cleanly (ASan: never reading outside either).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "skade/util/copy_delta.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  std::string_view input(reinterpret_cast<const char*>(data) + 2, size - 2);
  size_t split = (size_t{data[0]} << 8 | data[1]) % (input.size() + 1);
  std::string_view base = input.substr(0, split);
  std::string_view target = input.substr(split);

  for (size_t budget : {SIZE_MAX, target.size() / 8}) {
    std::string delta = skade::EncodeCopyDelta(base, target, budget);
    if (delta.empty() && !target.empty()) {
      if (budget == SIZE_MAX) abort();  // an unlimited budget always makes a delta
      continue;
    }
    auto rebuilt = skade::ApplyCopyDelta(delta, base, target.size());
    if (!rebuilt || *rebuilt != target) abort();
  }

  size_t claimed = target.empty() ? 0 : static_cast<uint8_t>(target.back()) * 16;
  (void)skade::ApplyCopyDelta(target, base, claimed);
  return 0;
}
