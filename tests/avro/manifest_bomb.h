// A decompression bomb made of a real manifest: one deflate block holding
// `copies` copies of the manifest's first entry, as the review's bomb
// (review-rp/bomb_lib.py) was made. Identical entries deflate about a
// thousand to one: 236k entries of 71 bytes made a 60 KB file.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skade/avro/container_reader.h"
#include "skade/avro/container_writer.h"
#include "skade/avro/value_reader.h"

namespace skade::avro::testing {

inline std::string ManifestBomb(std::string_view manifest, int64_t copies) {
  auto reader = ContainerReader::Open(manifest);
  EXPECT_TRUE(reader.has_value());
  if (!reader) return {};
  auto block = (*reader)->NextBlock();
  EXPECT_TRUE(block.has_value() && *block) << "the manifest has no entry";
  if (!block || !*block) return {};
  Decoder& decoder = (*reader)->block_decoder();
  Decoder at_entry = decoder;
  EXPECT_TRUE(SkipValue(decoder, *(*reader)->schema()).has_value());
  const std::string entry(*at_entry.ReadFixed(decoder.position() - at_entry.position()));

  std::vector<std::pair<std::string, std::string>> metadata;
  for (const auto& [key, value] : (*reader)->metadata()) {
    if (!key.starts_with("avro.")) metadata.emplace_back(key, value);
  }
  auto writer = ContainerWriter::Make(*(*reader)->schema(), std::move(metadata),
                                      {.codec = Codec::kDeflate,
                                       .compression_level = 1,
                                       .block_size = std::numeric_limits<size_t>::max()});
  EXPECT_TRUE(writer.has_value());
  if (!writer) return {};
  for (int64_t i = 0; i < copies; ++i) {
    (*writer)->encoder().WriteFixed(entry);
    EXPECT_TRUE((*writer)->EndDatum().has_value());
  }
  auto file = (*writer)->Finish();
  EXPECT_TRUE(file.has_value());
  return file.value_or("");
}

}  // namespace skade::avro::testing
