#include "skade/cli/config_sources.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "skade/cli/commands.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"

namespace skade::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Sets environment variables for one test, and unsets them after.
class Environment {
 public:
  ~Environment() {
    for (const auto& name : names_) unsetenv(name.c_str());
  }
  void Set(const std::string& name, const std::string& value) {
    setenv(name.c_str(), value.c_str(), 1);
    names_.push_back(name);
  }

 private:
  std::vector<std::string> names_;
};

// A small CLI shaped like skade's: global options, and a `serve` with its own.
struct Cli {
  std::string warehouse = "default-wh";
  std::vector<std::string> io;
  bool group_commit = true;
  int port = 8181;
  bool quiet = false;
  std::vector<std::string> clients;
  CLI::App app{"test"};

  Cli() {
    app.add_option("--warehouse,-w", warehouse);
    app.add_option("--io", io);
    app.add_flag("!--no-group-commit", group_commit);
    auto* serve = app.add_subcommand("serve");
    serve->add_option("--port", port);
    serve->add_flag("--quiet,-q", quiet);
    serve->add_option("--oauth-client", clients);
    app.fallthrough();
    EXPECT_THAT(InstallConfigSources(app), testing::IsOk());
  }

  void Parse(const std::string& command_line) { app.parse(command_line, false); }
};

class ConfigSourcesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The tests' own process may have any of these; each test sets what it needs.
    for (const char* name : {"SKADE_CONFIG", "SKADE_WAREHOUSE", "SKADE_IO", "SKADE_PORT",
                             "SKADE_QUIET", "SKADE_NO_GROUP_COMMIT", "SKADE_OAUTH_CLIENT"}) {
      unsetenv(name);
    }
  }

  std::string File(const std::string& text) {
    std::string path = dir_.Sub("skade-" + std::to_string(files_++) + ".toml");
    std::ofstream(path) << text;
    return path;
  }

  testing::TempDir dir_;
  int files_ = 0;
  Environment env_;
};

TEST_F(ConfigSourcesTest, NamesVariablesAfterTheLongFlag) {
  EXPECT_EQ(EnvironmentVariableFor("port"), "SKADE_PORT");
  EXPECT_EQ(EnvironmentVariableFor("commit-log-retention"), "SKADE_COMMIT_LOG_RETENTION");
  EXPECT_EQ(EnvironmentVariableFor("s3-path-style-access"), "SKADE_S3_PATH_STYLE_ACCESS");
}

TEST_F(ConfigSourcesTest, DefaultsWhenNothingIsSet) {
  Cli cli;
  cli.Parse("serve");
  EXPECT_EQ(cli.warehouse, "default-wh");
  EXPECT_EQ(cli.port, 8181);
  EXPECT_TRUE(cli.group_commit);
}

TEST_F(ConfigSourcesTest, FileSetsGlobalAndSectionOptions) {
  Cli cli;
  cli.Parse("--config " +
            File("warehouse = 'file-wh'\nio = ['a=1', 'b=2']\nno-group-commit = true\n"
                 "[serve]\nport = 1\nquiet = true\noauth-client = ['x:y']\n") +
            " serve");
  EXPECT_EQ(cli.warehouse, "file-wh");
  EXPECT_THAT(cli.io, ElementsAre("a=1", "b=2"));
  EXPECT_FALSE(cli.group_commit);
  EXPECT_EQ(cli.port, 1);
  EXPECT_TRUE(cli.quiet);
  EXPECT_THAT(cli.clients, ElementsAre("x:y"));
}

TEST_F(ConfigSourcesTest, EnvironmentBeatsFileAndCommandLineBeatsBoth) {
  std::string file = File("warehouse = 'file-wh'\nio = ['f=1']\n[serve]\nport = 1\nquiet = true\n");
  env_.Set("SKADE_PORT", "2");
  env_.Set("SKADE_QUIET", "false");
  env_.Set("SKADE_IO", R"(["e=1", "e=2"])");
  env_.Set("SKADE_WAREHOUSE", "env-wh");
  {
    Cli cli;
    cli.Parse("--config " + file + " serve");
    EXPECT_EQ(cli.warehouse, "env-wh");
    EXPECT_EQ(cli.port, 2);
    EXPECT_FALSE(cli.quiet);
    EXPECT_THAT(cli.io, ElementsAre("e=1", "e=2"));
  }
  {
    Cli cli;
    cli.Parse("--config " + file + " -w cli-wh --io c=1 serve --port 3 -q");
    EXPECT_EQ(cli.warehouse, "cli-wh");
    EXPECT_EQ(cli.port, 3);
    EXPECT_TRUE(cli.quiet);
    EXPECT_THAT(cli.io, ElementsAre("c=1"));
  }
}

TEST_F(ConfigSourcesTest, EnvironmentAppliesWithoutAFile) {
  env_.Set("SKADE_PORT", "4");
  env_.Set("SKADE_NO_GROUP_COMMIT", "true");
  env_.Set("SKADE_OAUTH_CLIENT", "one:secret");
  env_.Set("SKADE_IO", "single=value,with,commas");
  Cli cli;
  cli.Parse("serve");
  EXPECT_EQ(cli.port, 4);
  // A negated flag's variable says what the flag says (CLI11's own environment pass would set
  // group_commit to true here).
  EXPECT_FALSE(cli.group_commit);
  EXPECT_THAT(cli.clients, ElementsAre("one:secret"));
  EXPECT_THAT(cli.io, ElementsAre("single=value,with,commas"));
}

TEST_F(ConfigSourcesTest, EmptyVariablesCountAsUnset) {
  env_.Set("SKADE_PORT", "");
  Cli cli;
  cli.Parse("--config " + File("[serve]\nport = 5\n") + " serve");
  EXPECT_EQ(cli.port, 5);
}

TEST_F(ConfigSourcesTest, SkadeConfigNamesTheFile) {
  env_.Set("SKADE_CONFIG", File("[serve]\nport = 6\n"));
  Cli cli;
  cli.Parse("serve");
  EXPECT_EQ(cli.port, 6);
}

std::string ParseError(Cli& cli, const std::string& command_line) {
  try {
    cli.Parse(command_line);
  } catch (const CLI::ParseError& error) {
    std::ostringstream out;
    std::ostringstream err;
    cli.app.exit(error, out, err);
    return err.str();
  }
  return "parsed";
}

TEST_F(ConfigSourcesTest, UnknownKeysAndBadTomlNameTheFileAndLine) {
  std::string file = File("[serve]\nprot = 1\n");
  Cli cli;
  EXPECT_THAT(ParseError(cli, "--config " + file + " serve"),
              HasSubstr(file + ":2: unknown key 'serve.prot'"));
  std::string top = File("port = 1\n");
  Cli cli2;
  EXPECT_THAT(
      ParseError(cli2, "--config " + top + " serve"),
      HasSubstr("unknown key 'port' (--port is an option of 'serve': set it under [serve])"));
  std::string bad = File("\n[serve\n");
  Cli cli3;
  EXPECT_THAT(ParseError(cli3, "--config " + bad + " serve"),
              HasSubstr(bad + ": line 2: expected ']'"));
  Cli cli4;
  EXPECT_THAT(ParseError(cli4, "--config " + dir_.Sub("missing.toml") + " serve"),
              HasSubstr("missing.toml"));
}

TEST_F(ConfigSourcesTest, BadValuesNameTheirSource) {
  std::string file = File("[serve]\n\nport = 'x'\n");
  {
    Cli cli;
    EXPECT_THAT(ParseError(cli, "--config " + file + " serve"),
                HasSubstr("--port is from 'serve.port' in " + file + ":3"));
    EXPECT_THAT(ConfigSourceNote("Invalid --port 70000"),
                HasSubstr("--port is from 'serve.port' in " + file + ":3"));
  }
  env_.Set("SKADE_PORT", "y");
  {
    Cli cli;
    EXPECT_THAT(ParseError(cli, "--config " + file + " serve"),
                HasSubstr("--port is from environment variable SKADE_PORT"));
  }
  {
    Cli cli;
    EXPECT_EQ(ParseError(cli, "serve --port 7"), "parsed");
    EXPECT_EQ(ConfigSourceNote("Invalid --port 7"), "");
  }
}

TEST_F(ConfigSourcesTest, ClashingVariablesAreRefused) {
  CLI::App app;
  int a = 0;
  int b = 0;
  app.add_option("--port", a);
  app.add_subcommand("serve")->add_option("--port", b);
  EXPECT_THAT(InstallConfigSources(app),
              testing::IsErrorWithMessage(ErrorKind::kInvalidArgument, "SKADE_PORT"));
}

// Every option of the real CLI gets its own key and variable: an option added with a name that
// clashes fails here (and every run of skade).
TEST_F(ConfigSourcesTest, TheRealCommandsInstall) {
  CliContext context;
  CLI::App app;
  app.add_option("--warehouse,-w", context.warehouse);
  app.add_option("--store", context.store);
  AddNamespaceCommands(app, context);
  AddTableCommands(app, context);
  AddServeCommand(app, context);
  AddChangesCommand(app, context);
  AddBackupCommands(app, context);
#ifdef SKADE_WITH_INGEST
  AddIngestCommand(app, context);
  AddScanCommand(app, context);
#endif
  EXPECT_THAT(InstallConfigSources(app), testing::IsOk());
  EXPECT_EQ(app.get_subcommand("serve")->get_option("--port")->get_envname(), "SKADE_PORT");
  EXPECT_EQ(app.get_option("--store")->get_envname(), "SKADE_STORE");
}

}  // namespace
}  // namespace skade::cli
