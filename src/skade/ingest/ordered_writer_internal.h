// WriteInOrder: the write stage of the ingest pipelines. Stores encoded
// files through FileIO with at most `depth` writes in flight and hands
// them on in submission order.
//
// `depth` writer threads claim files in index order, but never more than
// `depth` beyond the last one delivered; completions wait in a reorder
// buffer (≤ depth held) until every earlier file is delivered. `deliver` is
// called on the calling thread, in index order; while it blocks (e.g. on a
// full queue to the committer) no new writes start — that is the
// backpressure.
//
// Failure: the first failed write in index order is returned after every
// earlier file was delivered; no file after it is started. A `deliver`
// error, or a stop request, ends the stage the same way. Writes in flight
// finish before WriteInOrder returns, so no thread touches `files`
// afterwards. Files already stored stay (the caller cleans up): `stored`
// (resized to the number of files) tells which writes succeeded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "skade/io/file_io.h"
#include "skade/util/result.h"

namespace skade::ingest {

struct FileToWrite {
  std::string location;
  const std::string* bytes;  // not owned; must outlive WriteInOrder
};

Status WriteInOrder(io::FileIO& io, bool durable, const std::vector<FileToWrite>& files, int depth,
                    std::stop_token stop, const std::function<Status(size_t)>& deliver,
                    std::vector<uint8_t>* stored);

}  // namespace skade::ingest
