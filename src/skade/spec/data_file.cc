#include "skade/spec/data_file.h"

#include "skade/util/strings.h"

namespace skade::spec {

std::string_view FileFormatName(FileFormat format) {
  switch (format) {
    case FileFormat::kParquet:
      return "PARQUET";
    case FileFormat::kAvro:
      return "AVRO";
    case FileFormat::kOrc:
      return "ORC";
    case FileFormat::kPuffin:
      return "PUFFIN";
  }
  return "PARQUET";
}

Result<FileFormat> ParseFileFormat(std::string_view name) {
  std::string upper = AsciiLower(name);
  if (upper == "parquet") return FileFormat::kParquet;
  if (upper == "avro") return FileFormat::kAvro;
  if (upper == "orc") return FileFormat::kOrc;
  if (upper == "puffin") return FileFormat::kPuffin;
  return InvalidArgument("Unknown file format: ", name);
}

}  // namespace skade::spec
