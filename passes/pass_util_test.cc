// Names the passes hand out must be names XLA (and our parser) accept:
// the printer writes them as they are.
#include "passes/pass_util.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "ir/printer.h"
#include "parser/parser.h"

namespace hlo {
namespace {

std::unique_ptr<Module> Parse(absl::string_view text) {
  auto m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : nullptr;
}

TEST(NameUniquerTest, SanitizesBasesLikeXla) {
  auto m = Parse("HloModule m\nENTRY e {\n  ROOT %pred_ = f32[] parameter(0)\n}\n");
  ASSERT_NE(m, nullptr);
  passes::NameUniquer names(*m->entry());
  EXPECT_EQ(names.Get("pred"), "pred_.1");  // pred_ is taken
  EXPECT_EQ(names.Get("s32"), "s32_");
  EXPECT_EQ(names.Get("s32"), "s32_.1");
  EXPECT_EQ(names.Get("__t"), "a_t");
  EXPECT_EQ(names.Get("tuple"), "tuple");
  EXPECT_EQ(names.Get("add.3"), "add.3");
}

// An instruction copied under its own name by inlining: a name the parser
// would reject (only reachable by renaming in code) is not printed as is.
TEST(NameUniquerTest, InlinedNamesReparse) {
  auto m = Parse(R"(HloModule m
%f (a: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  ROOT %n = f32[] negate(%a)
}
ENTRY %e (x: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  ROOT %c = f32[] call(%x), to_apply=%f
}
)");
  ASSERT_NE(m, nullptr);
  Computation* f = m->FindComputation("f");
  f->FindInstruction("n")->set_name("token");
  Instruction* call = m->entry()->root();
  auto inlined = passes::InlineCallSite(call, *f, {m->entry()->parameter(0)});
  ASSERT_TRUE(inlined.ok()) << inlined.status();
  ASSERT_TRUE(*inlined);
  passes::RemoveUnreachableComputations(*m);
  std::string text = PrintModule(*m);
  EXPECT_NE(text.find("%token_ = f32[] negate(%x)"), std::string::npos) << text;
  EXPECT_TRUE(ParseModule(text).ok()) << text;
}

}  // namespace
}  // namespace hlo
