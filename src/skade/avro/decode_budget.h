// DecodeBudget: the memory the values read from one manifest or manifest
// list may take (ContainerReaderOptions::max_decoded_bytes).
//
// Entries are small on the wire and large in memory (one of 70 bytes takes
// about 700 parsed), and deflate packs a block of identical entries a
// thousand to one: unbounded, a file of a few MB would make a reader
// allocate GBs. So readers charge what they keep before they make it — a
// block's entries as the block starts, each map node, list element and
// string buffer as it is read — and a file over the budget fails having
// spent at most the budget (plus one inflated block). Charges estimate heap
// use with libstdc++'s sizes on 64-bit, as the manifest cache's weights do.
//
// Not thread-safe: one per read.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "skade/util/result.h"

namespace skade::avro {

class DecodeBudget {
 public:
  /// `what` ("manifest", "manifest list") and `location` (may be empty) name
  /// the file in the error; both must outlive the budget.
  DecodeBudget(size_t max_bytes, std::string_view what, std::string_view location)
      : max_bytes_(max_bytes), what_(what), location_(location) {}

  /// Takes `bytes` more; kInvalidArgument naming the file and the limit if
  /// the read's total would pass the budget.
  Status Charge(size_t bytes);

  /// A std::string of `size` bytes: its heap buffer, if it needs one.
  Status ChargeString(size_t size) { return Charge(size > kInlineString ? size + 1 : 0); }

  /// One node of a std::map<int32_t, V> (the tree's links included).
  template <typename V>
  Status ChargeMapNode() {
    return Charge(sizeof(std::pair<const int32_t, V>) + kMapNodeLinks);
  }

  /// Makes room for `more` elements after those in `values`, growing its
  /// buffer as push_back would (doubling), and charges the growth before it
  /// is allocated.
  template <typename T>
  Status Reserve(std::vector<T>* values, size_t more) {
    const size_t needed = values->size() + more;
    if (needed <= values->capacity()) return OkStatus();
    const size_t grown = std::max(needed, 2 * values->capacity());
    SKADE_RETURN_NOT_OK(Charge((grown - values->capacity()) * sizeof(T)));
    values->reserve(grown);
    return OkStatus();
  }

 private:
  // libstdc++ keeps strings of up to 15 bytes inside the object, and links
  // a map node with three pointers and a color.
  static constexpr size_t kInlineString = 15;
  static constexpr size_t kMapNodeLinks = 32;

  size_t max_bytes_;
  size_t spent_ = 0;  // never more than max_bytes_
  std::string_view what_;
  std::string_view location_;
};

}  // namespace skade::avro
