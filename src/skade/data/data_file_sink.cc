#include "skade/data/data_file_sink.h"

namespace skade::data {

OpenDataFileSink SinksThrough(std::shared_ptr<io::FileIO> io, bool durable,
                              NextLocation next_location) {
  return [io = std::move(io), durable, next_location = std::move(next_location)](
             const std::vector<spec::Literal>& partition) -> Result<DataFileSink> {
    DataFileSink sink;
    SKADE_ASSIGN_OR_RAISE(sink.location, next_location(partition));
    SKADE_ASSIGN_OR_RAISE(sink.file, io->NewOutputFile(sink.location, durable));
    return sink;
  };
}

}  // namespace skade::data
