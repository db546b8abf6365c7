// DataFileSink: where a data writer puts a file it starts — the location its
// DataFile records and the io::OutputFile its bytes go to.
//
// The writers (ParquetDataWriter, RollingDataWriter, FanoutDataWriter) ask
// for a sink each time they start a file, so the caller decides where the
// bytes go: a file created through a FileIO (SinksThrough), or a buffer in
// memory that the caller stores later (the ingest encoder). The writer owns
// the OutputFile and closes it when the data file is finished; one dropped
// unclosed was never finished (an OutputFile removes itself then).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "skade/io/file_io.h"
#include "skade/spec/literal.h"
#include "skade/util/result.h"

namespace skade::data {

struct DataFileSink {
  /// Recorded as DataFile::file_path; empty for a file named later.
  std::string location;
  std::unique_ptr<io::OutputFile> file;
};

/// Called once per new file with its partition tuple (empty when
/// unpartitioned); an error fails the Write that needed the file.
using OpenDataFileSink =
    std::function<Result<DataFileSink>(const std::vector<spec::Literal>& partition)>;

/// A new file's location, which must not exist yet.
using NextLocation =
    std::function<Result<std::string>(const std::vector<spec::Literal>& partition)>;

/// Sinks that create `next_location(partition)` through `io`, fsynced on
/// close when `durable`.
OpenDataFileSink SinksThrough(std::shared_ptr<io::FileIO> io, bool durable,
                              NextLocation next_location);

}  // namespace skade::data
