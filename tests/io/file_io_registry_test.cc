// FileIORegistry picks the FileIO by the location's scheme.
#include "skade/io/file_io_registry.h"

#include <gtest/gtest.h>

#include "skade/io/forwarding_file_io.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::io {
namespace {

using testing::IsError;
using testing::IsErrorWithMessage;
using testing::IsOk;

// A FileIO that remembers the properties it was made with.
class MadeWith : public ForwardingFileIO {
 public:
  MadeWith(std::string scheme, FileIOProperties properties)
      : ForwardingFileIO(NewLocalFileIO()),
        scheme(std::move(scheme)),
        properties(std::move(properties)) {}
  std::string scheme;
  FileIOProperties properties;
};

FileIOFactory Factory(std::string scheme) {
  return [scheme](const FileIOProperties& properties) -> Result<std::shared_ptr<FileIO>> {
    return std::make_shared<MadeWith>(scheme, properties);
  };
}

std::string SchemeOf(const Result<std::shared_ptr<FileIO>>& io) {
  if (!io) return "error: " + io.error().ToString();
  auto* made = dynamic_cast<MadeWith*>(io->get());
  return made ? made->scheme : "other";
}

TEST(FileIORegistryTest, PicksTheFactoryOfTheScheme) {
  FileIORegistry registry;
  registry.Register("file", Factory("file"));
  registry.Register("S3", Factory("s3"));
  registry.Register("mem", Factory("mem"));
  EXPECT_EQ(SchemeOf(registry.Create("s3://bucket/wh")), "s3");
  EXPECT_EQ(SchemeOf(registry.Create("S3://bucket/wh")), "s3");
  EXPECT_EQ(SchemeOf(registry.Create("mem:/x")), "mem");
  EXPECT_EQ(SchemeOf(registry.Create("file:///wh")), "file");
  EXPECT_EQ(SchemeOf(registry.Create("/wh")), "file");
  EXPECT_EQ(SchemeOf(registry.Create("relative/wh")), "file");
  EXPECT_EQ(registry.schemes(), (std::vector<std::string>{"file", "mem", "s3"}));
}

TEST(FileIORegistryTest, PassesThePropertiesToTheFactory) {
  FileIORegistry registry;
  registry.Register("s3", Factory("s3"));
  auto io = registry.Create("s3://bucket/wh", {{"s3.endpoint", "http://localhost:9000"}});
  ASSERT_THAT(io, IsOk());
  EXPECT_EQ(dynamic_cast<MadeWith&>(**io).properties.at("s3.endpoint"), "http://localhost:9000");
}

TEST(FileIORegistryTest, ALaterRegistrationReplacesAnEarlierOne) {
  FileIORegistry registry;
  registry.Register("s3", Factory("first"));
  registry.Register("s3", Factory("second"));
  EXPECT_EQ(SchemeOf(registry.Create("s3://b/x")), "second");
}

TEST(FileIORegistryTest, AnUnknownSchemeIsUnsupportedAndNamed) {
  FileIORegistry registry;
  registry.Register("file", Factory("file"));
  EXPECT_THAT(registry.Create("gs://bucket/wh"),
              IsErrorWithMessage(ErrorKind::kUnsupported, "'gs'"));
  EXPECT_THAT(registry.Create("s3:relative"), IsError(ErrorKind::kInvalidArgument));
}

TEST(FileIORegistryTest, TheDefaultServesLocalFilesOnly) {
  const FileIORegistry& registry = FileIORegistry::Default();
  EXPECT_EQ(registry.schemes(), std::vector<std::string>{"file"});
  testing::TempDir dir;
  for (const std::string& location : {dir.path(), "file://" + dir.path()}) {
    auto io = registry.Create(location);
    ASSERT_THAT(io, IsOk());
    ASSERT_THAT((*io)->WriteFile(location + "/f", "x", /*durable=*/false), IsOk());
    EXPECT_EQ(*(*io)->ReadFile(location + "/f"), "x");
    ASSERT_THAT((*io)->DeleteFile(location + "/f"), IsOk());
  }
  EXPECT_THAT(registry.Create("s3://bucket/wh"),
              IsErrorWithMessage(ErrorKind::kUnsupported, "'s3'"));
}

}  // namespace
}  // namespace skade::io
