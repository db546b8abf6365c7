#include "skade/store/journaled_file.h"

#include <xxhash.h>
#ifdef SKADE_HAVE_XXH3_DISPATCH
#include <xxh_x86dispatch.h>
#endif

#include "skade/util/copy_delta.h"
#include "skade/util/zstd.h"

namespace skade::store {

// Every commit hashes its whole new metadata file, hundreds of KB on a long
// history. Debian builds libxxhash's plain entry points for the x86-64
// baseline (SSE2); its _dispatch ones pick AVX2 or AVX-512 at run time:
// 10 vs 30 µs for 500 KB here. XXH3 gives the same value on every path.
uint64_t JournalHash(std::string_view contents) {
#ifdef SKADE_HAVE_XXH3_DISPATCH
  return XXH3_64bits_dispatch(contents.data(), contents.size());
#else
  return XXH3_64bits(contents.data(), contents.size());
#endif
}

bool Holds(const JournaledFile& file, std::string_view bytes) {
  if (!file.delta) return bytes == file.bytes();
  return bytes.size() == file.delta->size && JournalHash(bytes) == file.delta->hash;
}

Result<std::string> DeltaContents(const JournaledFile& file, std::string_view base_text) {
  if (!file.delta) return std::string(file.bytes());
  const JournaledFile::Delta& delta = *file.delta;
  auto contents = delta.format == JournaledFile::Delta::Format::kCopy
                      ? ApplyCopyDelta(delta.bytes, base_text, delta.size)
                      : ZstdDecompressWithPrefix(delta.bytes, base_text, delta.size);
  const std::string base = file.base ? file.base->location : std::string();
  if (!contents) {
    return Corruption("Cannot restore journaled file ", file.location, " from its difference to ",
                      base, ": ", contents.error().message);
  }
  if (!Holds(file, *contents)) {
    return Corruption("Cannot restore journaled file ", file.location, " from its difference to ",
                      base, ": the result does not match its recorded size and hash");
  }
  return contents;
}

}  // namespace skade::store
