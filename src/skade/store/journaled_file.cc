#include "skade/store/journaled_file.h"

#include "skade/util/copy_delta.h"
#include "skade/util/zstd.h"

namespace skade::store {

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
