// skade_metadata_roundtrip IN OUT: parses a table metadata file (plain or
// gzip) with skade and writes it back with skade's writer. OUT is gzipped
// when its name says so (`*.gz.metadata.json` or `*.metadata.json.gz`).
// Exits 1 with the error on stderr when reading, parsing or writing fails.
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>

#include "skade/spec/table_metadata_json.h"
#include "skade/util/gzip.h"

namespace {

bool IsGzipName(std::string_view path) {
  return path.ends_with(".gz.metadata.json") || path.ends_with(".metadata.json.gz");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " IN OUT\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "cannot open " << argv[1] << "\n";
    return 1;
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto metadata = skade::spec::TableMetadataFromJson(text);
  if (!metadata) {
    std::cerr << argv[1] << ": " << metadata.error().ToString() << "\n";
    return 1;
  }
  std::string json = skade::spec::TableMetadataToJson(**metadata);
  if (IsGzipName(argv[2])) json = skade::Gzip(json);
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  out << json;
  out.close();
  if (!out) {
    std::cerr << "cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
