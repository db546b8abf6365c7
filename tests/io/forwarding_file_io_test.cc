// ForwardingFileIO passes every call, unchanged, to its inner FileIO.
#include "skade/io/forwarding_file_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "skade/util/strings.h"
#include "testing/matchers.h"

namespace skade::io {
namespace {

using ::testing::ElementsAre;

// Records "Call(argument)" for each call and answers with a marker.
class RecordingFileIO : public FileIO {
 public:
  std::vector<std::string> calls;

  Result<std::string> ReadFile(std::string_view location) override {
    return Record("ReadFile", location);
  }
  Result<std::string> ReadFileUpTo(std::string_view location, uint64_t max_bytes) override {
    return Record("ReadFileUpTo", StrCat(location, ",", max_bytes));
  }
  Status WriteFile(std::string_view location, std::string_view contents, bool durable) override {
    Record("WriteFile", StrCat(location, ",", contents, ",", durable));
    return OkStatus();
  }
  Result<std::unique_ptr<OutputFile>> NewOutputFile(std::string_view location,
                                                    bool durable) override {
    Record("NewOutputFile", StrCat(location, ",", durable));
    return Unsupported("marker");
  }
  Status DeleteFile(std::string_view location) override {
    Record("DeleteFile", location);
    return OkStatus();
  }
  Result<bool> Exists(std::string_view location) override {
    Record("Exists", location);
    return true;
  }
  Result<int64_t> FileSize(std::string_view location) override {
    Record("FileSize", location);
    return 42;
  }
  Result<std::vector<std::string>> ListDirectory(std::string_view location) override {
    return std::vector<std::string>{Record("ListDirectory", location)};
  }
  Status RemoveEmptyDirectory(std::string_view location) override {
    Record("RemoveEmptyDirectory", location);
    return OkStatus();
  }
  Status CreateDirectories(std::string_view location) override {
    Record("CreateDirectories", location);
    return OkStatus();
  }
  Status SyncFile(std::string_view location) override {
    Record("SyncFile", location);
    return OkStatus();
  }
  Status SyncDirectory(std::string_view location) override {
    Record("SyncDirectory", location);
    return OkStatus();
  }
  Status CheckLocation(const Location& location) const override {
    Record("CheckLocation", location.ToString());
    return InvalidArgument("marker");
  }
  Result<Location> ResolveLocation(const Location& location) const override {
    Record("ResolveLocation", location.ToString());
    return Location{"file", "", "/resolved"};
  }
  Result<std::string> ReadCheckedFileUpTo(std::string_view location, const Location& resolved,
                                          uint64_t max_bytes) override {
    return Record("ReadCheckedFileUpTo", StrCat(location, ",", resolved.path, ",", max_bytes));
  }

 private:
  std::string Record(std::string_view call, std::string_view argument) const {
    std::string entry = StrCat(call, "(", argument, ")");
    const_cast<RecordingFileIO*>(this)->calls.push_back(entry);
    return entry;
  }
};

TEST(ForwardingFileIOTest, ForwardsEveryCall) {
  auto inner = std::make_shared<RecordingFileIO>();
  ForwardingFileIO io(inner);
  Location location{"s3", "b", "/k"};
  EXPECT_EQ(*io.ReadFile("r"), "ReadFile(r)");
  EXPECT_EQ(*io.ReadFileUpTo("u", 7), "ReadFileUpTo(u,7)");
  EXPECT_TRUE(io.WriteFile("w", "data", true));
  EXPECT_EQ(io.NewOutputFile("o", false).error().message, "marker");
  EXPECT_TRUE(io.DeleteFile("d"));
  EXPECT_TRUE(*io.Exists("e"));
  EXPECT_EQ(*io.FileSize("s"), 42);
  EXPECT_EQ(io.ListDirectory("l")->front(), "ListDirectory(l)");
  EXPECT_TRUE(io.RemoveEmptyDirectory("rd"));
  EXPECT_TRUE(io.CreateDirectories("cd"));
  EXPECT_TRUE(io.SyncFile("sf"));
  EXPECT_TRUE(io.SyncDirectory("sd"));
  EXPECT_EQ(io.CheckLocation(location).error().message, "marker");
  EXPECT_EQ(io.ResolveLocation(location)->path, "/resolved");
  EXPECT_EQ(*io.ReadCheckedFileUpTo("c", Location{"file", "", "/r"}, 9),
            "ReadCheckedFileUpTo(c,/r,9)");
  EXPECT_THAT(inner->calls,
              ElementsAre("ReadFile(r)", "ReadFileUpTo(u,7)", "WriteFile(w,data,true)",
                          "NewOutputFile(o,false)", "DeleteFile(d)", "Exists(e)", "FileSize(s)",
                          "ListDirectory(l)", "RemoveEmptyDirectory(rd)", "CreateDirectories(cd)",
                          "SyncFile(sf)", "SyncDirectory(sd)", "CheckLocation(s3://b/k)",
                          "ResolveLocation(s3://b/k)", "ReadCheckedFileUpTo(c,/r,9)"));
}

// SyncFiles is made of the wrapper's own SyncFile and SyncDirectory calls,
// so a wrapper that changes those (fault injection) sees every sync.
TEST(ForwardingFileIOTest, SyncFilesGoesThroughTheWrappersSingleSyncs) {
  auto inner = std::make_shared<RecordingFileIO>();
  ForwardingFileIO io(inner);
  EXPECT_TRUE(io.SyncFiles({"/d/a", "/d/b", "/e/c"}));
  EXPECT_THAT(inner->calls, ElementsAre("SyncFile(/d/a)", "SyncFile(/d/b)", "SyncFile(/e/c)",
                                        "SyncDirectory(/d)", "SyncDirectory(/e)"));
}

}  // namespace
}  // namespace skade::io
