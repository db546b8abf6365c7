#include <gtest/gtest.h>

#include "skade/table/conflict_validator_internal.h"
#include "spec_commit/commit_test_util.h"
#include "testing/matchers.h"
#include "testing/memory_file_io.h"

namespace skade::table {
namespace {

using skade::testing::IsErrorWithMessage;
using namespace skade::spec::testing;  // NOLINT

TEST(ConflictValidatorTest, ParentsThatFormACycleEndTheWalkWithAConflict) {
  // Any writer may name any parent: 1's parent is 2 and 2's is 1, main at 2.
  auto table = Commit(NewTable(), {spec::AddSnapshot{MakeSnapshot(1, 2, 1, 1000)},
                                   spec::AddSnapshot{MakeSnapshot(2, 1, 2, 2000)},
                                   spec::SetSnapshotRef{spec::kMainBranch, Branch(2)}});
  // An operation that started from a snapshot the walk never reaches.
  ConflictValidator validator(99, PartitionFilter::All(), IsolationLevel::kSerializable);
  skade::testing::MemoryFileIO io;
  EXPECT_THAT(validator.Validate(*table, io),
              IsErrorWithMessage(ErrorKind::kCommitFailed, "snapshots form a cycle"));
}

}  // namespace
}  // namespace skade::table
