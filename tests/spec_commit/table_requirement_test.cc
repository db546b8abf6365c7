#include "skade/spec/table_requirement.h"

#include <gtest/gtest.h>

#include "spec_commit/commit_test_util.h"
#include "testing/matchers.h"

namespace skade::spec {
namespace {

using skade::testing::IsError;
using skade::testing::IsOk;
using namespace skade::spec::testing;  // NOLINT

// The full failure message, which Iceberg clients and the REST compatibility
// kit match on; failures are never retryable because the client must refresh.
std::string FailureMessage(const TableRequirement& requirement, const TableMetadata* current) {
  auto status = requirement.Validate(current);
  if (status) return "<passed>";
  EXPECT_EQ(status.error().kind, ErrorKind::kCommitFailed) << status.error().ToString();
  EXPECT_FALSE(status.error().retryable);
  return status.error().message;
}

class TableRequirementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A table with a current snapshot 10 (main), a branch "dev" at 10 and a
    // tag "v1" at 10, a second schema, and a partitioned default spec.
    auto base = NewTable(2);
    table_ = Commit(
        base, {spec::AddSchema{WiderSchema(), std::nullopt}, spec::SetCurrentSchema{kLastAdded},
               spec::AddPartitionSpec{Spec({PartitionBy(3, 0, "ts_day", Transform::Day())})},
               spec::SetDefaultSpec{kLastAdded}, spec::AddSortOrder{Order({SortBy(1)})},
               spec::SetDefaultSortOrder{kLastAdded},
               spec::AddSnapshot{MakeSnapshot(10, std::nullopt, 1, 1000)},
               spec::SetSnapshotRef{"main", Branch(10)}, spec::SetSnapshotRef{"dev", Branch(10)},
               spec::SetSnapshotRef{"v1", Tag(10)}});
    ASSERT_NE(table_, nullptr);
  }

  TableMetadataPtr table_;
};

TEST_F(TableRequirementTest, TypeNames) {
  EXPECT_EQ(TableRequirement(AssertCreate{}).type(), "assert-create");
  EXPECT_EQ(TableRequirement(AssertTableUuid{"x"}).type(), "assert-table-uuid");
  EXPECT_EQ(TableRequirement(AssertRefSnapshotId{"main", 1}).type(), "assert-ref-snapshot-id");
  EXPECT_EQ(TableRequirement(AssertLastAssignedFieldId{1}).type(), "assert-last-assigned-field-id");
  EXPECT_EQ(TableRequirement(AssertCurrentSchemaId{1}).type(), "assert-current-schema-id");
  EXPECT_EQ(TableRequirement(AssertLastAssignedPartitionId{1}).type(),
            "assert-last-assigned-partition-id");
  EXPECT_EQ(TableRequirement(AssertDefaultSpecId{1}).type(), "assert-default-spec-id");
  EXPECT_EQ(TableRequirement(AssertDefaultSortOrderId{1}).type(), "assert-default-sort-order-id");
}

TEST_F(TableRequirementTest, AssertCreate) {
  EXPECT_THAT(TableRequirement(AssertCreate{}).Validate(nullptr), IsOk());
  EXPECT_EQ(FailureMessage(AssertCreate{}, table_.get()),
            "Requirement failed: table already exists");
}

TEST_F(TableRequirementTest, AssertTableUuid) {
  EXPECT_THAT(TableRequirement(AssertTableUuid{table_->table_uuid}).Validate(table_.get()), IsOk());
  std::string upper = table_->table_uuid;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_THAT(TableRequirement(AssertTableUuid{upper}).Validate(table_.get()), IsOk());
  EXPECT_EQ(FailureMessage(AssertTableUuid{"d3c6a3c0-0000-4000-8000-000000000000"}, table_.get()),
            "Requirement failed: UUID does not match: expected " + table_->table_uuid +
                " != d3c6a3c0-0000-4000-8000-000000000000");
}

TEST_F(TableRequirementTest, AssertRefSnapshotIdMatches) {
  EXPECT_THAT(TableRequirement(AssertRefSnapshotId{"main", 10}).Validate(table_.get()), IsOk());
  EXPECT_THAT(TableRequirement(AssertRefSnapshotId{"v1", 10}).Validate(table_.get()), IsOk());
  EXPECT_THAT(TableRequirement(AssertRefSnapshotId{"new", std::nullopt}).Validate(table_.get()),
              IsOk());
}

TEST_F(TableRequirementTest, AssertRefSnapshotIdFailures) {
  EXPECT_EQ(FailureMessage(AssertRefSnapshotId{"main", std::nullopt}, table_.get()),
            "Requirement failed: branch main was created concurrently");
  EXPECT_EQ(FailureMessage(AssertRefSnapshotId{"v1", std::nullopt}, table_.get()),
            "Requirement failed: tag v1 was created concurrently");
  EXPECT_EQ(FailureMessage(AssertRefSnapshotId{"main", 9}, table_.get()),
            "Requirement failed: branch main has changed: expected id 9 != 10");
  EXPECT_EQ(FailureMessage(AssertRefSnapshotId{"v1", 9}, table_.get()),
            "Requirement failed: tag v1 has changed: expected id 9 != 10");
  EXPECT_EQ(FailureMessage(AssertRefSnapshotId{"gone", 9}, table_.get()),
            "Requirement failed: branch or tag gone is missing, expected 9");
}

TEST_F(TableRequirementTest, AssertLastAssignedFieldId) {
  EXPECT_THAT(TableRequirement(AssertLastAssignedFieldId{4}).Validate(table_.get()), IsOk());
  EXPECT_EQ(FailureMessage(AssertLastAssignedFieldId{3}, table_.get()),
            "Requirement failed: last assigned field id changed: expected id 3 != 4");
}

TEST_F(TableRequirementTest, AssertCurrentSchemaId) {
  EXPECT_THAT(TableRequirement(AssertCurrentSchemaId{1}).Validate(table_.get()), IsOk());
  EXPECT_EQ(FailureMessage(AssertCurrentSchemaId{0}, table_.get()),
            "Requirement failed: current schema changed: expected id 0 != 1");
}

TEST_F(TableRequirementTest, AssertLastAssignedPartitionId) {
  EXPECT_THAT(TableRequirement(AssertLastAssignedPartitionId{1000}).Validate(table_.get()), IsOk());
  EXPECT_EQ(FailureMessage(AssertLastAssignedPartitionId{999}, table_.get()),
            "Requirement failed: last assigned partition id changed: expected id 999 != 1000");
}

TEST_F(TableRequirementTest, AssertDefaultSpecId) {
  EXPECT_THAT(TableRequirement(AssertDefaultSpecId{1}).Validate(table_.get()), IsOk());
  EXPECT_EQ(FailureMessage(AssertDefaultSpecId{0}, table_.get()),
            "Requirement failed: default partition spec changed: expected id 0 != 1");
}

TEST_F(TableRequirementTest, AssertDefaultSortOrderId) {
  EXPECT_THAT(TableRequirement(AssertDefaultSortOrderId{1}).Validate(table_.get()), IsOk());
  EXPECT_EQ(FailureMessage(AssertDefaultSortOrderId{0}, table_.get()),
            "Requirement failed: default sort order changed: expected id 0 != 1");
}

TEST_F(TableRequirementTest, EveryRequirementButAssertCreateFailsOnMissingTable) {
  std::vector<TableRequirement> requirements = {
      AssertTableUuid{"x"},           AssertRefSnapshotId{"main", std::nullopt},
      AssertRefSnapshotId{"main", 1}, AssertLastAssignedFieldId{0},
      AssertCurrentSchemaId{0},       AssertLastAssignedPartitionId{999},
      AssertDefaultSpecId{0},         AssertDefaultSortOrderId{0},
  };
  for (const auto& requirement : requirements) {
    EXPECT_EQ(FailureMessage(requirement, nullptr), "Requirement failed: table does not exist")
        << requirement.type();
  }
}

TEST_F(TableRequirementTest, EqualityComparesKindAndFields) {
  EXPECT_EQ(TableRequirement(AssertRefSnapshotId{"main", 1}),
            TableRequirement(AssertRefSnapshotId{"main", 1}));
  EXPECT_NE(TableRequirement(AssertRefSnapshotId{"main", 1}),
            TableRequirement(AssertRefSnapshotId{"main", std::nullopt}));
  EXPECT_NE(TableRequirement(AssertCurrentSchemaId{1}), TableRequirement(AssertDefaultSpecId{1}));
}

}  // namespace
}  // namespace skade::spec
