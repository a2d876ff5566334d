#include "passes/constant_folding.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "passes/algsimp_test_util.h"

namespace hlo {
namespace {

using passes_test::CountOpcode;
using passes_test::RunAndCompare;

std::string Entry(const std::string& body, const std::string& extra = "") {
  return "HloModule m\n\n" + extra + "ENTRY e {\n" + body + "}\n";
}

// The root's constant value as printed (shape with layout, then values).
std::string RootConstant(const Module& m) {
  const Instruction* r = m.entry()->root();
  if (r->opcode() != Opcode::kConstant) return "not a constant: " + std::string(OpcodeName(r->opcode()));
  return LiteralToString(r->literal());
}

TEST(ConstantFolding, FoldsBinaryOp) {
  auto pass = CreateConstantFoldingPass();
  auto run = RunAndCompare(*pass, Entry("  a = s32[2] constant({1, 2})\n  b = s32[2] constant({3, 4})\n"
                                        "  ROOT r = s32[2] add(a, b)\n"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootConstant(*run.module), "s32[2]{0} {4, 6}");
  EXPECT_EQ(run.module->entry()->instruction_count(), 1) << run.text;
}

TEST(ConstantFolding, FoldsChainsInOneRun) {
  auto pass = CreateConstantFoldingPass();
  auto run = RunAndCompare(*pass, Entry("  a = f32[4] constant({1, -2, 3.5, -4})\n"
                                        "  n = f32[4] negate(a)\n"
                                        "  c = s32[4] convert(n)\n"
                                        "  ROOT r = s32[2,2] reshape(c)\n"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(RootConstant(*run.module), "s32[2,2]{1,0} { { -1, 2 }, { -3, 4 } }");
  EXPECT_EQ(run.module->entry()->instruction_count(), 1) << run.text;
}

TEST(ConstantFolding, FoldsOpsWithCalledComputations) {
  auto pass = CreateConstantFoldingPass();
  const std::string add =
      "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n\n";
  auto run = RunAndCompare(*pass, Entry("  a = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n"
                                        "  z = f32[] constant(0)\n"
                                        "  ROOT r = f32[2] reduce(a, z), dimensions={1}, to_apply=add\n",
                                        add));
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(RootConstant(*run.module), "f32[2]{0} {6, 15}");
  // The reducer is still in the module (removing it is dce's job) and untouched.
  EXPECT_NE(run.module->FindComputation("add"), nullptr);
}

TEST(ConstantFolding, FoldsDotAndKeepsRootLayout) {
  auto pass = CreateConstantFoldingPass();
  auto run = RunAndCompare(*pass, Entry("  a = s32[2,2] constant({{1, 2}, {3, 4}})\n"
                                        "  b = s32[2,2] constant({{5, 6}, {7, 8}})\n"
                                        "  ROOT d = s32[2,2]{0,1} dot(a, b), lhs_contracting_dims={1}, "
                                        "rhs_contracting_dims={0}\n"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(RootConstant(*run.module), "s32[2,2]{0,1} { { 19, 22 }, { 43, 50 } }");
}

TEST(ConstantFolding, SmallIotaAndBroadcastFold) {
  auto pass = CreateConstantFoldingPass();
  auto run = RunAndCompare(*pass, Entry("  i = s32[4] iota(), iota_dimension=0\n"
                                        "  c = s32[] constant(10)\n"
                                        "  b = s32[4] broadcast(c), dimensions={}\n"
                                        "  ROOT r = s32[4] multiply(i, b)\n"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(RootConstant(*run.module), "s32[4]{0} {0, 10, 20, 30}");
}

TEST(ConstantFolding, LeavesNonConstantAndExpensiveThingsAlone) {
  auto pass = CreateConstantFoldingPass();
  // Parameter operand; large broadcast and iota (> 16 elements); rng;
  // an elided constant `{...}` (values unknown); a while loop.
  const std::string cond =
      "cond {\n  s = s32[] parameter(0)\n  k = s32[] constant(3)\n"
      "  ROOT lt = pred[] compare(s, k), direction=LT\n}\n\n"
      "body {\n  s = s32[] parameter(0)\n  one = s32[] constant(1)\n  ROOT n = s32[] add(s, one)\n}\n\n";
  auto run = RunAndCompare(
      *pass,
      Entry("  p = f32[4] parameter(0)\n"
            "  c = f32[] constant(2)\n"
            "  b = f32[4] broadcast(c), dimensions={}\n"
            "  m = f32[4] multiply(p, b)\n"
            "  big = f32[100] broadcast(c), dimensions={}\n"
            "  io = s32[100] iota(), iota_dimension=0\n"
            "  lo = f32[] constant(0)\n"
            "  hi = f32[] constant(1)\n"
            "  rnd = f32[3] rng(lo, hi), distribution=rng_uniform\n"
            "  el = f32[20] constant({...})\n"
            "  ne = f32[20] negate(el)\n"
            "  z = s32[] constant(0)\n"
            "  w = s32[] while(z), condition=cond, body=body\n"
            "  ROOT t = (f32[4], f32[100], s32[100], f32[3], f32[20], s32[]) tuple(m, big, io, rnd, ne, w)\n",
            cond),
      0);
  ASSERT_NE(run.module, nullptr);
  // Only the small broadcast b was folded.
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kBroadcast), 1) << run.text;
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kMultiply), 1);
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kIota), 1);
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kRng), 1);
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kNegate), 1);
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kWhile), 1);
}

TEST(ConstantFolding, RespectsSizeLimit) {
  auto pass = CreateConstantFoldingPass();
  auto parsed = ParseModule(Entry("  a = f32[50000] constant({...})\n  ROOT n = f32[50000] negate(a)\n"));
  ASSERT_TRUE(parsed.ok());
  Module& m = **parsed;
  Instruction* a = m.entry()->FindInstruction("a");
  Literal known(a->shape());  // zeros, not elided
  a->set_literal(std::move(known));
  auto changed = pass->Run(m);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(m.entry()->root()->opcode(), Opcode::kNegate);
}

TEST(ConstantFolding, FoldsInsideCalledComputationsAndMatchesRuntime) {
  auto pass = CreateConstantFoldingPass();
  const std::string body =
      "f {\n  x = f32[3] parameter(0)\n  c = f32[3] constant({0.1, 0.2, 0.3})\n"
      "  e = f32[3] exponential(c)\n  l = f32[3] log(e)\n  s = f32[3] sqrt(l)\n"
      "  ROOT r = f32[3] add(x, s)\n}\n\n";
  auto run = RunAndCompare(*pass, Entry("  p = f32[3] parameter(0)\n  ROOT c = f32[3] call(p), to_apply=f\n", body));
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kExp), 0);
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kSqrt), 0);
}

}  // namespace
}  // namespace hlo
