#include "skade/catalog/change_position.h"

#include <xxhash.h>

#include <cstdio>

#include "skade/util/strings.h"

namespace skade::catalog {

namespace {

constexpr size_t kCheckDigits = 16;

// What tells two commits at one number apart: metadata file names are
// unique per commit (a UUID each), and table and time come along.
uint64_t CheckOf(uint64_t seq, const store::CommitLogRecord& commit) {
  std::string key = StrCat(seq, '\n', commit.table_id, '\n', commit.committed_at_ms, '\n',
                           commit.metadata_location);
  return XXH3_64bits(key.data(), key.size());
}

bool AllDigits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

ChangePosition ChangePosition::After(uint64_t seq, const store::CommitLogRecord& commit) {
  return ChangePosition{seq, CheckOf(seq, commit)};
}

Result<ChangePosition> ChangePosition::Parse(std::string_view name, std::string_view text) {
  auto invalid = [&] {
    return InvalidArgument("Invalid ", name, ": '", text.substr(0, 64),
                           "' (expected a commit sequence number, or a position the change feed "
                           "returned: <number>.<16 hex digits>)");
  };
  std::string_view number = text;
  std::string_view check;
  if (size_t dot = text.find('.'); dot != std::string_view::npos) {
    number = text.substr(0, dot);
    check = text.substr(dot + 1);
    if (check.size() != kCheckDigits ||
        check.find_first_not_of("0123456789abcdef") != std::string_view::npos) {
      return invalid();
    }
  }
  std::optional<int64_t> seq = AllDigits(number) ? ParseInt64(number) : std::nullopt;
  if (!seq || *seq < 0) return invalid();
  ChangePosition position{static_cast<uint64_t>(*seq), std::nullopt};
  if (!check.empty()) {
    uint64_t value = 0;
    for (char c : check) value = value * 16 + (c <= '9' ? c - '0' : c - 'a' + 10);
    position.check = value;
  }
  return position;
}

std::string ChangePosition::ToString() const {
  if (!check) return StrCat(seq);
  char hex[kCheckDigits + 1];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(*check));
  return StrCat(seq, '.', hex);
}

}  // namespace skade::catalog
