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
// (one flag per file claimed; for a vector, resized to its size) tells
// which writes succeeded.
//
// The files come from a vector, or from a FileSource that produces them as
// the writer claims them (the streaming pipelines: nothing is encoded
// before a writer has room for it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
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

/// The next file to write, in index order, or nullopt when there are no
/// more. Called by one writer thread at a time and never with a lock of the
/// stage held, so it may block until a file is ready; the bytes must stay
/// valid until the file is delivered (or WriteInOrder returns).
using FileSource = std::function<std::optional<FileToWrite>()>;

/// `unblock_source` is called once when the stage ends early (failure,
/// stop, `deliver` error), before WriteInOrder waits for its writers: a
/// FileSource blocked waiting must then return nullopt.
Status WriteInOrder(io::FileIO& io, bool durable, const FileSource& next,
                    const std::function<void()>& unblock_source, int depth, std::stop_token stop,
                    const std::function<Status(size_t)>& deliver, std::vector<uint8_t>* stored);

Status WriteInOrder(io::FileIO& io, bool durable, const std::vector<FileToWrite>& files, int depth,
                    std::stop_token stop, const std::function<Status(size_t)>& deliver,
                    std::vector<uint8_t>* stored);

}  // namespace skade::ingest
