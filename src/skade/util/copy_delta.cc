#include "skade/util/copy_delta.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

namespace skade {

namespace {

// The base is indexed by its blocks of this size at multiples of it; after
// an edit the target finds its way back into the base at the first block
// that follows.
constexpr size_t kBlock = 32;
// A shorter common run at the current position is not worth an op: the
// search looks for the base's next block instead.
constexpr size_t kMinCopy = 8;
// The blocks a base is indexed by, about, and the most blocks' length
// between two indexed ones.
constexpr size_t kMaxIndexedBlocks = 4096;
constexpr size_t kMaxIndexStride = 8 * kBlock;

enum OpKind : uint64_t { kCopy = 0, kInsert = 1 };

uint64_t Load64(const char* p) {
  uint64_t value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

// The length of the common run of `a` and `b`, at most `max`.
size_t CommonLength(const char* a, const char* b, size_t max) {
  size_t n = 0;
  // libc's memcmp is vectorized: skip long equal stretches with it.
  constexpr size_t kStride = 1024;
  while (n + kStride <= max && std::memcmp(a + n, b + n, kStride) == 0) n += kStride;
  while (n + 8 <= max && Load64(a + n) == Load64(b + n)) n += 8;
  while (n < max && a[n] == b[n]) ++n;
  return n;
}

// The base's blocks by a hash of their bytes: one slot each (the first block
// keeps a slot that others hash to, so a run of repeated bytes is found at
// its start and copied whole), half the slots free.
//
// A large base is indexed at a stride of several blocks, so the index costs
// about the same for any base (it was most of a commit's delta time for a
// long history): the target finds its way back at the first indexed block
// after an edit, and the bytes between the edit and that block are found by
// extending the copy backwards.
class BlockIndex {
 public:
  explicit BlockIndex(std::string_view base) : base_(base) {
    size_t stride =
        std::min(base.size() / kMaxIndexedBlocks / kBlock * kBlock + kBlock, kMaxIndexStride);
    size_t blocks = base.size() / stride;
    size_t slots = 64;
    while (slots < 2 * blocks) slots <<= 1;
    shift_ = 64 - std::countr_zero(slots);
    slots_.assign(slots, 0);
    for (size_t offset = 0; offset + kBlock <= base.size(); offset += stride) {
      uint32_t& slot = slots_[Slot(base.data() + offset)];
      if (slot == 0) slot = static_cast<uint32_t>(offset + 1);
    }
  }

  // The offset of a block of the base equal to the `kBlock` bytes at `p`, or
  // npos.
  size_t Find(const char* p) const {
    uint32_t entry = slots_[Slot(p)];
    if (entry == 0) return std::string_view::npos;
    size_t offset = entry - 1;
    return std::memcmp(p, base_.data() + offset, kBlock) == 0 ? offset : std::string_view::npos;
  }

 private:
  size_t Slot(const char* p) const {
    uint64_t hash = Load64(p) * 0x9E3779B185EBCA87ull + Load64(p + 8) * 0xC2B2AE3D27D4EB4Full +
                    Load64(p + 16) * 0x165667B19E3779F9ull + Load64(p + 24) * 0x27D4EB2F165667C5ull;
    return hash >> shift_;
  }

  std::string_view base_;
  int shift_ = 0;
  std::vector<uint32_t> slots_;
};

void AppendVarint(std::string* out, uint64_t value) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

bool ConsumeVarint(std::string_view* in, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64 && !in->empty(); shift += 7) {
    auto byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    if (shift == 63 && byte > 1) return false;  // beyond 64 bits
    *value |= uint64_t{byte & 0x7Fu} << shift;
    if (byte < 0x80) return true;
  }
  return false;
}

}  // namespace

namespace {

// Appends to `out` the ops that make `target` from `base`, whose first byte
// is byte `base_offset` of the whole base the copies address; counts the
// bytes inserted into `*inserted`. False once more than `max_insert_bytes`
// are inserted in all (the search stops there).
bool AppendCopyDelta(std::string* out, std::string_view base, size_t base_offset,
                     std::string_view target, size_t max_insert_bytes, size_t* inserted) {
  std::optional<BlockIndex> index;  // built at the first edit
  size_t at = 0;                    // in target: what precedes is encoded
  size_t from = 0;                  // in base: where target[at] may continue
  while (at < target.size()) {
    size_t run = from < base.size() ? CommonLength(target.data() + at, base.data() + from,
                                                   std::min(target.size() - at, base.size() - from))
                                    : 0;
    if (run >= kMinCopy || (run > 0 && at + run == target.size())) {
      AppendVarint(out, run << 1 | kCopy);
      AppendVarint(out, base_offset + from);
      at += run;
      from += run;
      continue;
    }
    // An edit: find where target continues in base.
    if (!index) index.emplace(base);
    size_t next = at;
    size_t found = std::string_view::npos;
    for (; next + kBlock <= target.size(); ++next) {
      if (next - at + *inserted > max_insert_bytes) return false;
      found = index->Find(target.data() + next);
      if (found != std::string_view::npos) break;
    }
    if (found == std::string_view::npos) {
      next = target.size();
    } else {
      while (next > at && found > 0 && target[next - 1] == base[found - 1]) --next, --found;
    }
    if (next > at) {
      *inserted += next - at;
      if (*inserted > max_insert_bytes) return false;
      AppendVarint(out, (next - at) << 1 | kInsert);
      out->append(target.substr(at, next - at));
    }
    at = next;
    from = found == std::string_view::npos ? base.size() : found;
  }
  return true;
}

}  // namespace

std::string EncodeCopyDelta(std::string_view base, std::string_view target,
                            size_t max_insert_bytes) {
  if (base.size() >= std::numeric_limits<uint32_t>::max()) return {};
  std::string out;
  size_t inserted = 0;
  if (!AppendCopyDelta(&out, base, 0, target, max_insert_bytes, &inserted)) return {};
  return out;
}

std::string EncodeCopyDeltaAlong(std::string_view base, std::string_view target,
                                 const std::vector<CopySpan>& copied, size_t max_insert_bytes) {
  if (base.size() >= std::numeric_limits<uint32_t>::max()) return {};
  size_t target_end = 0;
  size_t base_end = 0;
  for (const CopySpan& span : copied) {
    bool fits = span.target >= target_end && span.base >= base_end &&
                span.length <= target.size() - std::min(target.size(), span.target) &&
                span.length <= base.size() - std::min(base.size(), span.base) &&
                span.target <= target.size() && span.base <= base.size();
    if (!fits) return EncodeCopyDelta(base, target, max_insert_bytes);
    target_end = span.target + span.length;
    base_end = span.base + span.length;
  }
  std::string out;
  size_t inserted = 0;
  size_t at = 0;    // in target
  size_t from = 0;  // in base
  auto gap_to = [&](size_t target_stop, size_t base_stop) {
    return AppendCopyDelta(&out, base.substr(from, base_stop - from), from,
                           target.substr(at, target_stop - at), max_insert_bytes, &inserted);
  };
  for (const CopySpan& span : copied) {
    if (!gap_to(span.target, span.base)) return {};
    if (span.length > 0) {
      AppendVarint(&out, span.length << 1 | kCopy);
      AppendVarint(&out, span.base);
    }
    at = span.target + span.length;
    from = span.base + span.length;
  }
  if (!gap_to(target.size(), base.size())) return {};
  return out;
}

Result<std::string> ApplyCopyDelta(std::string_view delta, std::string_view base, size_t size) {
  auto corrupt = [](std::string_view what) { return Corruption("Invalid copy delta: ", what); };
  std::string out;
  // `size` is only what the delta claims: reserve no more than the bytes a
  // delta of this length plausibly makes, and grow if it makes more.
  out.reserve(std::min(size, base.size() + delta.size()));
  while (!delta.empty()) {
    uint64_t tag = 0;
    if (!ConsumeVarint(&delta, &tag)) return corrupt("a truncated or overlong op");
    uint64_t length = tag >> 1;
    if (length > size - out.size()) return corrupt("more bytes than the recorded size");
    if ((tag & 1) == kInsert) {
      if (length > delta.size()) return corrupt("a truncated insert");
      out.append(delta.substr(0, length));
      delta.remove_prefix(length);
      continue;
    }
    uint64_t offset = 0;
    if (!ConsumeVarint(&delta, &offset)) return corrupt("a truncated copy");
    if (offset > base.size() || length > base.size() - offset) {
      return corrupt("a copy beyond the end of its base");
    }
    out.append(base.substr(offset, length));
  }
  if (out.size() != size) return corrupt("fewer bytes than the recorded size");
  return out;
}

}  // namespace skade
