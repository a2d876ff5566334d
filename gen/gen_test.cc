// Every generated module parses, verifies and is reproducible.
#include <string>

#include "gen/hlo_gen.h"
#include "gtest/gtest.h"
#include "ir/verifier.h"
#include "parser/parser.h"

namespace hlo::gen {
namespace {

TEST(HloGen, ThousandsOfSeedsVerify) {
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    GenOptions o;
    o.seed = seed;
    absl::StatusOr<std::string> text = GenerateModule(o);
    ASSERT_TRUE(text.ok()) << text.status();
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(*text);
    ASSERT_TRUE(m.ok()) << "seed " << seed << ": " << m.status() << "\n" << *text;
    absl::Status v = VerifyModule(**m);
    ASSERT_TRUE(v.ok()) << "seed " << seed << ": " << v << "\n" << *text;
  }
}

TEST(HloGen, EveryGroupAloneVerifies) {
  for (const std::string& group : OpGroupNames()) {
    for (uint64_t seed = 0; seed < 40; ++seed) {
      GenOptions o;
      o.seed = seed;
      o.ops = {group};
      o.max_instructions = 8;
      absl::StatusOr<std::string> text = GenerateModule(o);
      ASSERT_TRUE(text.ok()) << text.status();
      absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(*text);
      ASSERT_TRUE(m.ok()) << group << " seed " << seed << ": " << m.status() << "\n" << *text;
      ASSERT_TRUE(VerifyModule(**m).ok()) << group << " seed " << seed << "\n" << *text;
      EXPECT_NE(text->find(group == "layout" ? "copy(" : ""), std::string::npos);
    }
  }
}

TEST(HloGen, SameSeedSameTextOtherSeedOtherText) {
  GenOptions a, b;
  a.seed = b.seed = 17;
  EXPECT_EQ(*GenerateModule(a), *GenerateModule(b));
  b.seed = 18;
  EXPECT_NE(*GenerateModule(a), *GenerateModule(b));
}

TEST(HloGen, BadOptionsAreErrors) {
  GenOptions o;
  o.ops = {"frobnicate"};
  EXPECT_FALSE(GenerateModule(o).ok());
  o.ops.clear();
  o.max_instructions = 0;
  EXPECT_FALSE(GenerateModule(o).ok());
}

}  // namespace
}  // namespace hlo::gen
