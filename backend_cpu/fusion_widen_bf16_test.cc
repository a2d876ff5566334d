// What WidenBf16Chains rewrites (fusion_widen_bf16.h); that the rewritten
// fusions compute the same bits is checked in fusion_exec_test.cc.
#include "backend_cpu/fusion_widen_bf16.h"

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "backend_cpu/fusion_exec.h"
#include "parser/parser.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

// The widened form of the entry root's fused computation, as
// "name:opcode:type" words in post order ("null" when not widened).
// `before`: computations the fused one calls.
std::string Widened(const std::string& fused_body, const std::string& entry, const std::string& before = "") {
  absl::StatusOr<std::unique_ptr<Module>> module =
      ParseModule("HloModule m\n" + before + "f {\n" + fused_body + "}\nENTRY e {\n" + entry + "}\n");
  if (!module.ok()) return module.status().ToString();
  const Computation* fused = (*module)->entry()->root()->AttrOr<Computation*>("calls", nullptr);
  std::unique_ptr<Computation> widened = WidenBf16Chains(*fused);
  if (widened == nullptr) return "null";
  if (widened->root()->shape() != fused->root()->shape()) return "root shape changed";
  if (widened->num_parameters() != fused->num_parameters()) return "parameters changed";
  std::string out;
  for (const Instruction* i : widened->MakePostOrder()) {
    if (!out.empty()) out += ' ';
    out += i->name() + ":" + std::string(OpcodeName(i->opcode())) + ":" +
           std::string(PrimitiveTypeName(i->shape().element_type()));
  }
  return out;
}

// The convolution's f32 result goes through ReLU6 unrounded: maximum and
// minimum commute with rounding, and the final convert rounds.
TEST(FusionWidenBf16Test, ConvolutionUnderReluSixComputesInF32) {
  EXPECT_EQ(Widened(R"(
  x = bf16[1,8,8,4] parameter(0)
  w = bf16[1,1,4,4] parameter(1)
  c = bf16[1,8,8,4] convolution(x, w), window={size=1x1}, dim_labels=b01f_01io->b01f
  z = bf16[] constant(0)
  zb = bf16[1,8,8,4] broadcast(z), dimensions={}
  mx = bf16[1,8,8,4] maximum(c, zb)
  six = bf16[] constant(6)
  sb = bf16[1,8,8,4] broadcast(six), dimensions={}
  ROOT mn = bf16[1,8,8,4] minimum(mx, sb)
)", R"(
  x = bf16[1,8,8,4] parameter(0)
  w = bf16[1,1,4,4] parameter(1)
  ROOT r = bf16[1,8,8,4] fusion(x, w), kind=kOutput, calls=f
)"),
            "x:parameter:bf16 w:parameter:bf16 c:convolution:f32 z:constant:bf16 z.f32:convert:f32 "
            "zb:broadcast:f32 mx:maximum:f32 six:constant:bf16 six.f32:convert:f32 sb:broadcast:f32 "
            "mn:minimum:f32 mn.bf16:convert:bf16");
}

// An inexact op's operand is rounded first (exp's result before the
// multiply); the reduction reads bf16, which the convert rounds.
TEST(FusionWidenBf16Test, InexactOpsAreRoundedAndReductionsReadBf16) {
  EXPECT_EQ(Widened(R"(
  p = bf16[4,64] parameter(0)
  e = bf16[4,64] exponential(p)
  m = bf16[4,64] multiply(e, p)
  z = bf16[] constant(0)
  ROOT s = bf16[4] reduce(m, z), dimensions={1}, to_apply=ad
)", R"(
  p = bf16[4,64] parameter(0)
  ROOT r = bf16[4] fusion(p), kind=kInput, calls=f
)", "ad {\n  x = bf16[] parameter(0)\n  y = bf16[] parameter(1)\n  ROOT a = bf16[] add(x, y)\n}\n"),
            "p:parameter:bf16 p.f32:convert:f32 e:exponential:f32 e.rounded:reduce-precision:f32 "
            "m:multiply:f32 m.bf16:convert:bf16 z:constant:bf16 s:reduce:bf16");
}

TEST(FusionWidenBf16Test, OneOpF16AndWideConvertsAreLeftAlone) {
  // A single bf16 op: the converts would cost what they save.
  EXPECT_EQ(Widened("  p = bf16[64] parameter(0)\n  ROOT n = bf16[64] negate(p)\n",
                    "  p = bf16[64] parameter(0)\n  ROOT r = bf16[64] fusion(p), kind=kLoop, calls=f\n"),
            "null");
  // f16: reduce-precision would flush its subnormals.
  EXPECT_EQ(Widened("  p = f16[64] parameter(0)\n  n = f16[64] negate(p)\n  ROOT a = f16[64] abs(n)\n",
                    "  p = f16[64] parameter(0)\n  ROOT r = f16[64] fusion(p), kind=kLoop, calls=f\n"),
            "null");
  // f64 -> bf16 rounds once; through f32 it would round twice: the convert
  // stays and its result is widened by an exact convert.
  EXPECT_EQ(Widened(R"(
  p = f64[64] parameter(0)
  c = bf16[64] convert(p)
  n = bf16[64] negate(c)
  ROOT a = bf16[64] abs(n)
)", "  p = f64[64] parameter(0)\n  ROOT r = bf16[64] fusion(p), kind=kLoop, calls=f\n"),
            "p:parameter:f64 c:convert:bf16 c.f32:convert:f32 n:negate:f32 a:abs:f32 a.bf16:convert:bf16");
}

// A dot keeps its bf16 result; its epilogue reads it converted. The copy
// of every instruction maps back to its original, by which the dot finds
// its decoded constant operands (decoded_constants.h).
TEST(FusionWidenBf16Test, DotEpiloguesComputeInF32AndCopiesMapToTheirOriginals) {
  const std::string text = R"(
HloModule m
f {
  a = bf16[4,64] parameter(0)
  w = bf16[64,64] parameter(1)
  d = bf16[4,64] dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  n = bf16[4,64] negate(d)
  ROOT m = bf16[4,64] maximum(n, a)
}
ENTRY e {
  a = bf16[4,64] parameter(0)
  w = bf16[64,64] parameter(1)
  ROOT r = bf16[4,64] fusion(a, w), kind=kOutput, calls=f
}
)";
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const Computation* fused = (*module)->entry()->root()->AttrOr<Computation*>("calls", nullptr);
  absl::flat_hash_map<const Instruction*, const Instruction*> origins;
  std::unique_ptr<Computation> widened = WidenBf16Chains(*fused, &origins);
  ASSERT_NE(widened, nullptr);
  std::string order;
  const Instruction* dot_copy = nullptr;
  for (const Instruction* i : widened->MakePostOrder()) {
    if (!order.empty()) order += ' ';
    order += i->name() + ":" + std::string(PrimitiveTypeName(i->shape().element_type()));
    if (i->opcode() == Opcode::kDot) dot_copy = i;
  }
  EXPECT_EQ(order, "a:bf16 w:bf16 d:bf16 d.f32:f32 n:f32 a.f32:f32 m:f32 m.bf16:bf16");
  ASSERT_NE(dot_copy, nullptr);
  const Instruction* dot = fused->root()->operand(0)->operand(0);
  ASSERT_EQ(dot->opcode(), Opcode::kDot);
  EXPECT_EQ(origins.at(dot_copy), dot);
  // The module's plans answer the same.
  const FusionPlans plans(**module);
  const FusionPlan* plan = plans.Find(fused);
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(plans.OriginalOf(dot), dot);  // an instruction of the module is its own original
}

TEST(FusionWidenBf16Test, BigOperandsMoveInBf16) {
  // The transpose of a big parameter copies bf16 (half the bytes) and is
  // widened after the move; a small bias vector is widened before its
  // broadcast.
  EXPECT_EQ(Widened(R"(
  p = bf16[512,512] parameter(0)
  b = bf16[512] parameter(1)
  t = bf16[512,512] transpose(p), dimensions={1,0}
  bb = bf16[512,512] broadcast(b), dimensions={1}
  a = bf16[512,512] add(t, bb)
  ROOT m = bf16[512,512] maximum(a, t)
)", R"(
  p = bf16[512,512] parameter(0)
  b = bf16[512] parameter(1)
  ROOT r = bf16[512,512] fusion(p, b), kind=kLoop, calls=f
)"),
            "p:parameter:bf16 t:transpose:bf16 t.f32:convert:f32 b:parameter:bf16 b.f32:convert:f32 "
            "bb:broadcast:f32 a:add:f32 m:maximum:f32 m.bf16:convert:bf16");
}

// Rounding deferred through select and negate is done once, where a
// convert to f32 needs the bf16 value.
TEST(FusionWidenBf16Test, ConvertToF32ReadsTheRoundedValue) {
  EXPECT_EQ(Widened(R"(
  p = bf16[64] parameter(0)
  q = bf16[64] parameter(1)
  s = bf16[64] add(p, q)
  lt = pred[64] compare(p, q), direction=LT
  c = bf16[64] select(lt, s, q)
  n = bf16[64] negate(c)
  ROOT f = f32[64] convert(n)
)", R"(
  p = bf16[64] parameter(0)
  q = bf16[64] parameter(1)
  ROOT r = f32[64] fusion(p, q), kind=kLoop, calls=f
)"),
            "p:parameter:bf16 p.f32:convert:f32 q:parameter:bf16 q.f32:convert:f32 lt:compare:pred "
            "s:add:f32 c:select:f32 n:negate:f32 n.rounded:reduce-precision:f32");
}

}  // namespace
}  // namespace hlo::cpu
