#include "tools/cli_flags.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlo {
namespace cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

struct Fixture {
  bool verbose = false;
  bool split = true;
  std::string out = "-";
  std::string passes;
  FlagParser parser{"tool", "tool [flags] FILE", "Does things."};
  Fixture() {
    parser.AddBool("verbose", &verbose, "talk more");
    parser.AddBool("split-input-file", &split, "split");
    parser.AddString("o", &out, "FILE", "output file");
    parser.AddString("passes", &passes, "LIST", "passes to run\nsecond line");
    parser.AddAlias("v", "verbose");
  }
};

TEST(FlagParserTest, DefaultsAreKept) {
  Fixture f;
  ASSERT_TRUE(f.parser.Parse(std::vector<std::string>{}).ok());
  EXPECT_FALSE(f.verbose);
  EXPECT_TRUE(f.split);
  EXPECT_EQ(f.out, "-");
  EXPECT_THAT(f.parser.positional(), IsEmpty());
  EXPECT_FALSE(f.parser.WasSet("o"));
}

TEST(FlagParserTest, RepeatedFlagCollectsEveryValue) {
  std::vector<std::string> inputs;
  FlagParser parser("tool", "tool");
  parser.AddRepeated("input", &inputs, "SPEC", "an input");
  ASSERT_TRUE(parser.Parse({"--input=a", "--input", "b c", "-input=", "x"}).ok());
  EXPECT_THAT(inputs, ElementsAre("a", "b c", ""));
  EXPECT_THAT(parser.positional(), ElementsAre("x"));
}

TEST(FlagParserTest, OptionalValueNeverTakesTheNextArgument) {
  std::string seed = "unset";
  FlagParser parser("tool", "tool");
  parser.AddOptionalValue("random-inputs", &seed, "SEED", "0", "random");
  ASSERT_TRUE(parser.Parse({"--random-inputs", "file.hlo"}).ok());
  EXPECT_EQ(seed, "0");
  EXPECT_THAT(parser.positional(), ElementsAre("file.hlo"));
  ASSERT_TRUE(parser.Parse({"--random_inputs=42"}).ok());
  EXPECT_EQ(seed, "42");
  EXPECT_THAT(parser.Usage(), HasSubstr("--random-inputs[=SEED]"));
}

TEST(FlagParserTest, BoolSpellings) {
  Fixture f;
  ASSERT_TRUE(f.parser.Parse({"--verbose", "--split-input-file=false"}).ok());
  EXPECT_TRUE(f.verbose);
  EXPECT_FALSE(f.split);
  Fixture g;
  ASSERT_TRUE(g.parser.Parse({"-v", "--split_input_file=0"}).ok());
  EXPECT_TRUE(g.verbose);
  EXPECT_FALSE(g.split);
  EXPECT_TRUE(g.parser.WasSet("verbose"));
  Fixture h;
  ASSERT_TRUE(h.parser.Parse({"-verbose=TRUE"}).ok());
  EXPECT_TRUE(h.verbose);
}

TEST(FlagParserTest, BadBoolValue) {
  Fixture f;
  absl::Status st = f.parser.Parse({"--verbose=yes please"});
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()), HasSubstr("--verbose"));
}

TEST(FlagParserTest, ValueSpellings) {
  Fixture f;
  ASSERT_TRUE(f.parser.Parse({"-o", "out.hlo", "in.hlo"}).ok());
  EXPECT_EQ(f.out, "out.hlo");
  EXPECT_THAT(f.parser.positional(), ElementsAre("in.hlo"));
  Fixture g;
  ASSERT_TRUE(g.parser.Parse({"-o=x", "--passes=a,b"}).ok());
  EXPECT_EQ(g.out, "x");
  EXPECT_EQ(g.passes, "a,b");
  Fixture h;
  ASSERT_TRUE(h.parser.Parse({"--o", "-", "--passes", ""}).ok());
  EXPECT_EQ(h.out, "-");
  EXPECT_EQ(h.passes, "");
}

TEST(FlagParserTest, ValueMayStartWithDash) {
  Fixture f;
  ASSERT_TRUE(f.parser.Parse({"-o", "-"}).ok());
  EXPECT_EQ(f.out, "-");
  EXPECT_THAT(f.parser.positional(), IsEmpty());
}

TEST(FlagParserTest, MissingValue) {
  Fixture f;
  absl::Status st = f.parser.Parse({"in.hlo", "-o"});
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()), HasSubstr("requires a value"));
}

TEST(FlagParserTest, PositionalsAndStdin) {
  Fixture f;
  ASSERT_TRUE(f.parser.Parse({"a", "-", "--", "--verbose", "-o"}).ok());
  EXPECT_FALSE(f.verbose);
  EXPECT_THAT(f.parser.positional(), ElementsAre("a", "-", "--verbose", "-o"));
}

TEST(FlagParserTest, UnknownFlagWithSuggestion) {
  Fixture f;
  absl::Status st = f.parser.Parse({"--verbsoe"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "unknown flag '--verbsoe' (did you mean '--verbose'?)");
  Fixture g;
  st = g.parser.Parse({"--split"});
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()), HasSubstr("did you mean '--split-input-file'"));
  Fixture h;
  st = h.parser.Parse({"--completely-different=3"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "unknown flag '--completely-different'");
}

TEST(FlagParserTest, MalformedFlags) {
  Fixture f;
  EXPECT_FALSE(f.parser.Parse({"---verbose"}).ok());
  Fixture g;
  EXPECT_FALSE(g.parser.Parse({"--=x"}).ok());
}

TEST(FlagParserTest, UsageListsEverything) {
  Fixture f;
  f.parser.SetEpilogue("EXAMPLES: none");
  std::string usage = f.parser.Usage();
  EXPECT_THAT(usage, HasSubstr("USAGE: tool [flags] FILE"));
  EXPECT_THAT(usage, HasSubstr("Does things."));
  EXPECT_THAT(usage, HasSubstr("--verbose, -v"));
  EXPECT_THAT(usage, HasSubstr("-o FILE"));
  EXPECT_THAT(usage, HasSubstr("--passes=LIST"));
  EXPECT_THAT(usage, HasSubstr("second line"));
  EXPECT_THAT(usage, HasSubstr("EXAMPLES: none"));
}

TEST(SplitListTest, DropsEmptyItems) {
  EXPECT_THAT(SplitList("a, b,,c ,"), ElementsAre("a", "b", "c"));
  EXPECT_THAT(SplitList(""), IsEmpty());
}

}  // namespace
}  // namespace cli
}  // namespace hlo
