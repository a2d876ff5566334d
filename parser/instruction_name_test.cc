// XLA's rule for instruction names in the parser: a name XLA's sanitizer
// would change is an error at the name; computation names and signature
// names are not instruction names and are not checked (as in XLA); auto
// parameters of single-instruction mode are renamed instead (as in XLA).
// Every expectation was checked against jaxlib 0.10's parser.
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "parser/parser.h"
#include "parser/parser_test_util.h"

namespace hlo {
namespace {

TEST(InstructionNameTest, TypeNameIsAnErrorAtTheName) {
  std::string e = ParseError(
      "HloModule m\nENTRY e {\n  %x = f32[] parameter(0)\n  ROOT %pred = f32[] negate(%x)\n}\n");
  EXPECT_TRUE(absl::StrContains(
      e, "t.hlo:4:8: error: illegal instruction name: pred; suggest renaming to: pred_"))
      << e;
}

TEST(InstructionNameTest, EveryKindOfIllegalName) {
  const std::pair<const char*, const char*> cases[] = {
      {"s32", "s32_"}, {"u1", "u1_"},     {"token", "token_"},
      {"opaque", "opaque_"}, {"f6e3m2fn", "f6e3m2fn_"}, {"__x", "a_x"}};
  for (const auto& [name, want] : cases) {
    // A parameter is an instruction like any other.
    std::string text = absl::StrCat("HloModule m\nENTRY e {\n  %", name,
                                    " = f32[] parameter(0)\n  ROOT %r = f32[] negate(%", name, ")\n}\n");
    std::string e = ParseError(text);
    EXPECT_TRUE(absl::StrContains(e, absl::StrCat("t.hlo:3:3: error: illegal instruction name: ",
                                                  name, "; suggest renaming to: ", want)))
        << e;
  }
}

TEST(InstructionNameTest, ExemptNamesParse) {
  for (const char* name : {"tuple", "opaque_type", "pred_", "s32.1", "__xla_x", "_"}) {
    std::string text = absl::StrCat("HloModule m\nENTRY e {\n  %", name,
                                    " = f32[] parameter(0)\n  ROOT %r = f32[] negate(%", name, ")\n}\n");
    EXPECT_TRUE(ParseModule(text).ok()) << name;
  }
}

// XLA checks the name after building the instruction: a shape inference
// error comes first, a duplicate name after.
TEST(InstructionNameTest, OrderOfErrors) {
  std::string e = ParseError(
      "HloModule m\nENTRY e {\n  %x = f32[] parameter(0)\n  %y = s32[] parameter(1)\n"
      "  ROOT %pred = add(%x, %y)\n}\n");
  EXPECT_TRUE(absl::StrContains(e, "failed to infer shape")) << e;
  e = ParseError(
      "HloModule m\nENTRY e {\n  %pred = f32[] parameter(0)\n  ROOT %pred = f32[] negate(%pred)\n}\n");
  EXPECT_TRUE(absl::StrContains(e, "t.hlo:3:3: error: illegal instruction name: pred")) << e;
}

TEST(InstructionNameTest, ComputationAndSignatureNamesAreNotChecked) {
  auto m = ParseModule(R"(HloModule m
%pred (s32: f32[]) -> f32[] {
  ROOT %a = f32[] parameter(0)
}
ENTRY %__s32 (token: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  ROOT %r = f32[] call(%x), to_apply=%pred
}
)");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ((*m)->entry()->name(), "__s32");
}

TEST(InstructionNameTest, SingleInstructionMode) {
  std::string e = ParseError("%s64 = f32[] negate(f32[] %x)");
  EXPECT_TRUE(absl::StrContains(e, "t.hlo:1:1: error: illegal instruction name: s64; suggest renaming to: s64_"))
      << e;
  // Operands that become parameters get XLA's sanitized names; the text
  // still refers to them by the names it used.
  auto m = ParseModule("%r = f32[] add(f32[] %pred, f32[] %__x)");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ((*m)->entry()->parameter(0)->name(), "pred_");
  EXPECT_EQ((*m)->entry()->parameter(1)->name(), "a_x");
  m = ParseModule("%r = f32[] add(f32[] %pred, f32[] %pred)");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ((*m)->entry()->num_parameters(), 1);
  // `%pred_` is another operand than `%pred` renamed to pred_.
  m = ParseModule("%r = f32[] add(f32[] %pred, f32[] %pred_)");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ((*m)->entry()->num_parameters(), 2);
  EXPECT_EQ((*m)->entry()->parameter(0)->name(), "pred_");
  EXPECT_EQ((*m)->entry()->parameter(1)->name(), "pred_.1");
}

}  // namespace
}  // namespace hlo
