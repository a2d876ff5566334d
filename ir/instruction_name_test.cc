#include "ir/instruction_name.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ir/element_type.h"

namespace hlo {
namespace {

// Expected values are what jaxlib 0.10's parser suggests in its
// "illegal instruction name" error for the same name.
TEST(InstructionNameTest, SanitizesLikeXla) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"pred", "pred_"},         {"s1", "s1_"},           {"u2", "u2_"},
      {"bf16", "bf16_"},         {"c128", "c128_"},       {"f8e4m3b11fnuz", "f8e4m3b11fnuz_"},
      {"f4e2m1fn", "f4e2m1fn_"}, {"f6e2m3fn", "f6e2m3fn_"}, {"f6e3m2fn", "f6e3m2fn_"},
      {"token", "token_"},       {"opaque", "opaque_"},   {"__foo", "a_foo"},
      {"__", "a_"},              {"__xla", "a_xla"},      {"1x", "_x"},
      {"a/b:c", "a_b_c"},        {"1_x", "a_x"},          {"", ""},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(SanitizedInstructionName(in), want) << in;
}

TEST(InstructionNameTest, LegalNamesStay) {
  for (const char* name : {"tuple", "opaque_type", "invalid", "pred_", "s32.1", "f32-x", "_",
                           "_0", "__xla_foo", "PRED", "x.1", "add.anon", "s0", "u0", "i32"}) {
    EXPECT_TRUE(IsLegalInstructionName(name)) << name;
    EXPECT_EQ(SanitizedInstructionName(name), name) << name;
  }
  EXPECT_FALSE(IsLegalInstructionName(""));
}

// The parser's allocation-free check and the sanitizer must agree, for
// every element type name and for names one step away from the rule.
TEST(InstructionNameTest, LegalIffUnchanged) {
  std::vector<std::string> names = {"f6e2m3fn", "__", "_", "a b", "-x", ".x", "x-", "__xla_",
                                    "__x", "tuple_", "token.1"};
  for (int i = 0; i < kNumPrimitiveTypes; ++i) {
    std::string t(PrimitiveTypeName(static_cast<PrimitiveType>(i)));
    names.insert(names.end(), {t, t + "_", t + ".1", "_" + t, "__" + t});
    EXPECT_TRUE(IsReservedTypeName(t)) << t;
    EXPECT_FALSE(IsLegalInstructionName(t)) << t;
  }
  for (const std::string& n : names)
    EXPECT_EQ(IsLegalInstructionName(n), SanitizedInstructionName(n) == n) << n;
}

}  // namespace
}  // namespace hlo
