#include "skade/avro/decode_budget.h"

#include <string>

#include "skade/util/strings.h"

namespace skade::avro {

namespace {

std::string SizeText(size_t bytes) {
  constexpr size_t kMiB = 1 << 20;
  if (bytes % kMiB == 0) return StrCat(bytes / kMiB, " MiB");
  return StrCat(bytes, " bytes");
}

}  // namespace

Status DecodeBudget::Charge(size_t bytes) {
  if (bytes <= max_bytes_ - spent_) {
    spent_ += bytes;
    return OkStatus();
  }
  const std::string limit = SizeText(max_bytes_);
  return InvalidArgument(what_, location_.empty() ? "" : " ", location_, " holds more than ", limit,
                         " of entries once parsed; skade reads at most ", limit,
                         " of entries from one manifest or manifest list");
}

}  // namespace skade::avro
