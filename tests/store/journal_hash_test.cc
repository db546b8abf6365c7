#include <gtest/gtest.h>
#include <xxhash.h>

#include <string>

#include "skade/store/journaled_file.h"

namespace skade::store {
namespace {

// Journals written before keep their hashes: the dispatching entry point
// (AVX2 or AVX-512 where the CPU has them) must give the plain XXH3-64 for
// every length and alignment — the short-input branches, the stripes, the
// last partial block.
TEST(JournalHashTest, IsTheLibrarysXxh3ForEveryLengthAndAlignment) {
  std::string bytes(600'000, '\0');
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (char& byte : bytes) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    byte = static_cast<char>(state >> 56);
  }
  EXPECT_EQ(JournalHash(""), 0x2D06800538D394C2ull);  // XXH3-64 of nothing
  for (size_t offset : {0, 1, 7, 31}) {
    for (size_t size :
         {1, 3, 4, 8, 16, 17, 128, 129, 240, 241, 1023, 1024, 1025, 4096, 65'537, 500'000}) {
      std::string_view slice(bytes.data() + offset, size);
      EXPECT_EQ(JournalHash(slice), XXH3_64bits(slice.data(), slice.size()))
          << "offset " << offset << ", size " << size;
    }
  }
}

}  // namespace
}  // namespace skade::store
