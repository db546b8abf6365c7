#include "skade/store/durability.h"

#include "skade/util/strings.h"

namespace skade::store {

std::string_view DurabilityName(Durability durability) {
  switch (durability) {
    case Durability::kImmediate:
      return "immediate";
    case Durability::kEventual:
      return "eventual";
    case Durability::kNone:
      return "none";
  }
  return "immediate";
}

Result<Durability> ParseDurability(std::string_view name) {
  std::string lower = AsciiLower(name);
  if (lower == "immediate") return Durability::kImmediate;
  if (lower == "eventual") return Durability::kEventual;
  if (lower == "none") return Durability::kNone;
  return InvalidArgument("Unknown durability '", name, "' (expected immediate, eventual or none)");
}

}  // namespace skade::store
