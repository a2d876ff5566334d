// Fused execution by blocks of rows (fusion_exec.h) against the op-by-op
// run of the same fusions (RunOptions::fused_execution = false): the same
// bits, at 1 and 2 threads, for every kind of row op, scalar splats,
// reshapes, multi-output fusions, narrow and integer types, rows longer
// than a block, and fusions that do not split (they run op by op).
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/fusion_exec.h"
#include "backend_cpu/fusion_widen_bf16.h"
#include "backend_cpu/thread_pool.h"
#include "parser/parser.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

// Deterministic values of every array element: floats in [-4, 4) (bf16 as
// the top half of an f32), integers in [-50, 50), pred alternating.
void Fill(Literal& lit, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  const int64_t n = lit.physical_count();
  for (int64_t i = 0; i < n; ++i) {
    const float f = static_cast<float>(next() % 8000) / 1000.0f - 4.0f;
    switch (lit.shape().element_type()) {
      case PrimitiveType::F32: lit.SetRaw<float>(i, f); break;
      case PrimitiveType::BF16: {
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        lit.SetRaw<uint16_t>(i, static_cast<uint16_t>(bits >> 16));
        break;
      }
      case PrimitiveType::S32: lit.SetRaw<int32_t>(i, static_cast<int32_t>(next() % 100) - 50); break;
      case PrimitiveType::PRED: lit.SetRaw<uint8_t>(i, static_cast<uint8_t>(i % 3 == 0)); break;
      default: FAIL() << "no filler for this type";
    }
  }
}

bool SameBits(const Literal& a, const Literal& b) {
  if (a.IsTuple() != b.IsTuple()) return false;
  if (a.IsTuple()) {
    if (a.tuple_elements().size() != b.tuple_elements().size()) return false;
    for (size_t i = 0; i < a.tuple_elements().size(); ++i)
      if (!SameBits(a.tuple_elements()[i], b.tuple_elements()[i])) return false;
    return true;
  }
  return a.shape().dims() == b.shape().dims() && a.size_bytes() == b.size_bytes() &&
         std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

// Every bf16 bit pattern once per 65536 elements (NaNs, infinities,
// subnormals, rounding ties), in an order set by the seed.
void FillAllBf16Patterns(Literal& lit, uint64_t seed) {
  if (lit.shape().element_type() != PrimitiveType::BF16) return Fill(lit, seed);
  for (int64_t i = 0; i < lit.physical_count(); ++i)
    lit.SetRaw<uint16_t>(i, static_cast<uint16_t>(static_cast<uint64_t>(i) * 40503u + seed * 977u));
}

// Runs `text` fused and op by op at widths 1 and 2; expects equal bits and,
// when `splits`, that every fusion of the module has a row plan.
void ExpectSameAsOpByOp(const char* text, bool splits = true,
                        void (*fill)(Literal&, uint64_t) = &Fill) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  for (const Computation* c : (*module)->computations())
    for (const Instruction* i : c->instructions())
      if (i->opcode() == Opcode::kFusion) {
        const Computation* fused = i->AttrOr<Computation*>("calls", nullptr);
        const absl::Status by_rows = CanRunByRows(*fused);
        EXPECT_EQ(by_rows.ok(), splits) << i->name() << ": " << by_rows;
      }
  std::vector<Literal> args;
  uint64_t seed = 1;
  for (const Instruction* p : (*module)->entry()->parameters()) {
    args.emplace_back(p->shape());
    fill(args.back(), seed++);
  }
  const int old_width = ThreadPoolWidth();
  RunOptions op_by_op;
  op_by_op.fused_execution = false;
  SetThreadPoolWidth(1);
  absl::StatusOr<RunResult> want = RunModule(**module, args, op_by_op);
  ASSERT_TRUE(want.ok()) << want.status();
  for (int width : {1, 2}) {
    SetThreadPoolWidth(width);
    absl::StatusOr<RunResult> got = RunModule(**module, args);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(SameBits(got->results[0], want->results[0])) << "width " << width;
  }
  SetThreadPoolWidth(old_width);
}

// The row ops of the plan of the entry root's fused computation, as
// DescribeFusionPlan writes them ("no plan" when it runs op by op).
std::string DescribeRootPlan(const std::string& hlo) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(hlo);
  if (!module.ok()) return module.status().ToString();
  const FusionPlans plans(**module);
  const FusionPlan* plan = plans.Find((*module)->entry()->root()->AttrOr<Computation*>("calls", nullptr));
  return plan == nullptr ? "no plan" : DescribeFusionPlan(*plan);
}

TEST(FusionExecTest, Bf16SoftmaxWithOddRowCount) {
  ExpectSameAsOpByOp(R"(
HloModule m
mx { x = bf16[] parameter(0)  y = bf16[] parameter(1)  ROOT m = bf16[] maximum(x, y) }
ad { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
f {
  a = bf16[37,300] parameter(0)
  ninf = bf16[] constant(-inf)
  rmax = bf16[37] reduce(a, ninf), dimensions={1}, to_apply=mx
  b = bf16[37,300] broadcast(rmax), dimensions={0}
  s = bf16[37,300] subtract(a, b)
  sf = f32[37,300] convert(s)
  e = f32[37,300] exponential(sf)
  z = f32[] constant(0)
  rs = f32[37] reduce(e, z), dimensions={1}, to_apply=ad
  bs = f32[37,300] broadcast(rs), dimensions={0}
  d = f32[37,300] divide(e, bs)
  ROOT o = bf16[37,300] convert(d)
}
ENTRY e {
  a = bf16[37,300] parameter(0)
  ROOT r = bf16[37,300] fusion(a), kind=kInput, calls=f
})");
}

// Broadcasts of one value per row read only by binary ops with a scalar
// form (sub, div, mul, max, in either operand slot; f32 and f64) are
// row scalars, not spread copies; one also read by exponential stays a
// copy, and rows shorter than 256 keep the copies. Same bits as op by op.
TEST(FusionExecTest, RowScalarsInEitherOperandSlot) {
  const char* text = R"(
HloModule m
mx { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT m = f32[] maximum(x, y) }
ad { x = f64[] parameter(0)  y = f64[] parameter(1)  ROOT s = f64[] add(x, y) }
f {
  a = f32[37,300] parameter(0)
  v = f32[37] parameter(1)
  ninf = f32[] constant(-inf)
  rmax = f32[37] reduce(a, ninf), dimensions={1}, to_apply=mx
  b = f32[37,300] broadcast(rmax), dimensions={0}
  s = f32[37,300] subtract(b, a)
  bv = f32[37,300] broadcast(v), dimensions={0}
  t = f32[37,300] maximum(s, bv)
  u = f32[37,300] divide(bv, t)
  ev = f32[37,300] exponential(bv)
  w = f32[37,300] multiply(u, ev)
  wd = f64[37,300] convert(w)
  z = f64[] constant(0)
  rs = f64[37] reduce(wd, z), dimensions={1}, to_apply=ad
  bs = f64[37,300] broadcast(rs), dimensions={0}
  q = f64[37,300] divide(wd, bs)
  ROOT o = f32[37,300] convert(q)
}
ENTRY e {
  a = f32[37,300] parameter(0)
  v = f32[37] parameter(1)
  ROOT r = f32[37,300] fusion(a, v), kind=kInput, calls=f
})";
  ExpectSameAsOpByOp(text);
  // b and bs are row scalars; bv stays a copy (exponential reads it).
  EXPECT_EQ(DescribeRootPlan(text),
            "copy reduce row-scalar elementwise elementwise elementwise elementwise elementwise "
            "elementwise reduce row-scalar elementwise elementwise");
  // Rows of 100: every broadcast stays a spread copy.
  std::string short_rows = text;
  for (size_t at; (at = short_rows.find(",300]")) != std::string::npos;) short_rows.replace(at, 5, ",100]");
  ExpectSameAsOpByOp(short_rows.c_str());
  const std::string short_plan = DescribeRootPlan(short_rows);
  EXPECT_NE(short_plan.find("copy"), std::string::npos) << short_plan;
  EXPECT_EQ(short_plan.find("row-scalar"), std::string::npos) << short_plan;
}

// Both operands of a subtract are broadcasts of one value per row: only
// one of them can be the kernel's scalar, the other stays a spread copy.
TEST(FusionExecTest, TwoRowScalarsInOneOp) {
  const char* text = R"(
HloModule m
mx { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT m = f32[] maximum(x, y) }
ad { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
f {
  a = f32[21,400] parameter(0)
  ninf = f32[] constant(-inf)
  z = f32[] constant(0)
  rmax = f32[21] reduce(a, ninf), dimensions={1}, to_apply=mx
  rsum = f32[21] reduce(a, z), dimensions={1}, to_apply=ad
  bm = f32[21,400] broadcast(rmax), dimensions={0}
  bs = f32[21,400] broadcast(rsum), dimensions={0}
  d = f32[21,400] subtract(bm, bs)
  ROOT o = f32[21,400] multiply(d, a)
}
ENTRY e {
  a = f32[21,400] parameter(0)
  ROOT r = f32[21,400] fusion(a), kind=kInput, calls=f
})";
  ExpectSameAsOpByOp(text);
  const std::string d = DescribeRootPlan(text);
  EXPECT_NE(d.find("row-scalar"), std::string::npos) << d;
  EXPECT_NE(d.find("copy"), std::string::npos) << d;
}

// A broadcast scalar read by a binary op with a scalar-operand kernel (in
// either slot, f32 and f64) is read as one element; read by a unary op or
// through clamp's scalar form it is still spread. Same bits as op by op.
TEST(FusionExecTest, SpreadScalarsReadAsOneElement) {
  const char* text = R"(
HloModule m
f {
  a = f32[64,512] parameter(0)
  c = f32[] constant(0.5)
  bc = f32[64,512] broadcast(c), dimensions={}
  x = f32[64,512] multiply(a, bc)
  y = f32[64,512] subtract(bc, x)
  lo = f32[] constant(-1)
  hi = f32[] constant(1)
  cl = f32[64,512] clamp(lo, y, hi)
  e = f32[64,512] exponential(bc)
  s = f32[64,512] add(cl, e)
  sd = f64[64,512] convert(s)
  k = f64[] constant(3)
  bk = f64[64,512] broadcast(k), dimensions={}
  q = f64[64,512] divide(sd, bk)
  ROOT o = f32[64,512] convert(q)
}
ENTRY e {
  a = f32[64,512] parameter(0)
  ROOT r = f32[64,512] fusion(a), kind=kLoop, calls=f
})";
  ExpectSameAsOpByOp(text);
  const std::string d = DescribeRootPlan(text);
  int scalar_steps = 0;
  for (size_t at = d.find("elementwise-scalar"); at != std::string::npos; at = d.find("elementwise-scalar", at + 1))
    ++scalar_steps;
  EXPECT_EQ(scalar_steps, 3) << d;  // multiply, subtract, divide
}

TEST(FusionExecTest, LayerNormWithMeanAndVarianceAsExtraOutputs) {
  // Rows of 300 (>= kMinInvariantRow): gamma and beta are read in place
  // for every row, not copied.
  ExpectSameAsOpByOp(R"(
HloModule m
ad { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
f {
  x = f32[19,300] parameter(0)
  g = f32[300] parameter(1)
  b = f32[300] parameter(2)
  z = f32[] constant(0)
  inv = f32[] constant(0.0033333334)
  bi = f32[19] broadcast(inv), dimensions={}
  s = f32[19] reduce(x, z), dimensions={1}, to_apply=ad
  mean = f32[19] multiply(s, bi)
  bm = f32[19,300] broadcast(mean), dimensions={0}
  xc = f32[19,300] subtract(x, bm)
  sq = f32[19,300] multiply(xc, xc)
  ss = f32[19] reduce(sq, z), dimensions={1}, to_apply=ad
  var = f32[19] multiply(ss, bi)
  eps = f32[] constant(1e-5)
  be = f32[19] broadcast(eps), dimensions={}
  ve = f32[19] add(var, be)
  rstd = f32[19] rsqrt(ve)
  br = f32[19,300] broadcast(rstd), dimensions={0}
  xn = f32[19,300] multiply(xc, br)
  bg = f32[19,300] broadcast(g), dimensions={1}
  bb = f32[19,300] broadcast(b), dimensions={1}
  y0 = f32[19,300] multiply(xn, bg)
  y = f32[19,300] add(y0, bb)
  ROOT t = (f32[19,300], f32[19], f32[19]) tuple(y, mean, var)
}
ENTRY e {
  x = f32[19,300] parameter(0)
  g = f32[300] parameter(1)
  b = f32[300] parameter(2)
  ROOT r = (f32[19,300], f32[19], f32[19]) fusion(x, g, b), kind=kInput, calls=f
})");
}

TEST(FusionExecTest, ScalarSplatsSelectsConvertsAndReshapes) {
  ExpectSameAsOpByOp(R"(
HloModule m
f {
  a = f32[6,10,7] parameter(0)
  n = s32[6,10,7] parameter(1)
  lo = f32[] constant(-1.5)
  hi = f32[] constant(2.25)
  c = f32[6,10,7] clamp(lo, a, hi)
  k = s32[] constant(3)
  bk = s32[6,10,7] broadcast(k), dimensions={}
  gt = pred[6,10,7] compare(n, bk), direction=GT
  ci = s32[6,10,7] convert(c)
  m = s32[6,10,7] multiply(ci, n)
  sel = s32[6,10,7] select(gt, m, n)
  ROOT r = s32[6,70] reshape(sel)
}
ENTRY e {
  a = f32[6,10,7] parameter(0)
  n = s32[6,10,7] parameter(1)
  ROOT r = s32[6,70] fusion(a, n), kind=kLoop, calls=f
})");
}

TEST(FusionExecTest, DotUnderItsEpilogue) {
  ExpectSameAsOpByOp(R"(
HloModule m
f {
  x = f32[33,40] parameter(0)
  w = f32[40,24] parameter(1)
  b = f32[24] parameter(2)
  d = f32[33,24] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[33,24] broadcast(b), dimensions={1}
  s = f32[33,24] add(d, bb)
  z = f32[] constant(0)
  bz = f32[33,24] broadcast(z), dimensions={}
  ROOT r = f32[33,24] maximum(s, bz)
}
ENTRY e {
  x = f32[33,40] parameter(0)
  w = f32[40,24] parameter(1)
  b = f32[24] parameter(2)
  ROOT r = f32[33,24] fusion(x, w, b), kind=kOutput, calls=f
})");
}

TEST(FusionExecTest, ThreeDimensionsTwoOuterAndRowsLongerThanABlock) {
  // k = 2 for the first fusion (reduce of the last dim, a broadcast keeping
  // both outer dims); the second has one row of 100000 elements, reduced in
  // the typed kernel's parallel chunks.
  ExpectSameAsOpByOp(R"(
HloModule m
ad { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
f1 {
  a = f32[5,6,50] parameter(0)
  z = f32[] constant(0)
  r = f32[5,6] reduce(a, z), dimensions={2}, to_apply=ad
  b = f32[5,6,50] broadcast(r), dimensions={0,1}
  ROOT d = f32[5,6,50] subtract(a, b)
}
f2 {
  a = f32[1,100000] parameter(0)
  t = f32[1,100000] tanh(a)
  z = f32[] constant(0)
  r = f32[1] reduce(t, z), dimensions={1}, to_apply=ad
  b = f32[1,100000] broadcast(r), dimensions={0}
  ROOT d = f32[1,100000] multiply(t, b)
}
ENTRY e {
  a = f32[5,6,50] parameter(0)
  c = f32[1,100000] parameter(1)
  x = f32[5,6,50] fusion(a), kind=kInput, calls=f1
  y = f32[1,100000] fusion(c), kind=kInput, calls=f2
  ROOT t = (f32[5,6,50], f32[1,100000]) tuple(x, y)
})");
}

TEST(FusionExecTest, TransposeSliceAndReverseInsideRows) {
  ExpectSameAsOpByOp(R"(
HloModule m
f {
  a = f32[4,6,5,3] parameter(0)
  t = f32[4,3,6,5] transpose(a), dimensions={0,3,1,2}
  s = f32[4,3,2,5] slice(t), slice={[0:4], [0:3], [1:5:2], [0:5]}
  r = f32[4,3,2,5] reverse(s), dimensions={1,3}
  e = f32[4,3,2,5] exponential(r)
  ROOT n = f32[4,3,2,5] negate(e)
}
ENTRY e {
  a = f32[4,6,5,3] parameter(0)
  ROOT r = f32[4,3,2,5] fusion(a), kind=kLoop, calls=f
})");
}

TEST(FusionExecTest, LargeOutputsWithStreamingStores) {
  // 3 x 4200001 f32 outputs (over 16 MB in all: written from scratch with
  // streaming stores), rows of an odd byte length so blocks start unaligned.
  ExpectSameAsOpByOp(R"(
HloModule m
f {
  a = f32[3,1400001] parameter(0)
  b = f32[3,1400001] parameter(1)
  s = f32[3,1400001] add(a, b)
  t = f32[3,1400001] tanh(s)
  m = f32[3,1400001] multiply(t, a)
  ROOT r = (f32[3,1400001], f32[3,1400001]) tuple(m, s)
}
ENTRY e {
  a = f32[3,1400001] parameter(0)
  b = f32[3,1400001] parameter(1)
  ROOT r = (f32[3,1400001], f32[3,1400001]) fusion(a, b), kind=kLoop, calls=f
})");
}

// The plan of the entry root's fused computation's blocks.
FusionPlanBlocks RootPlanBlocks(const std::string& hlo) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(hlo);
  if (!module.ok()) return {};
  const FusionPlans plans(**module);
  const FusionPlan* plan = plans.Find((*module)->entry()->root()->AttrOr<Computation*>("calls", nullptr));
  return plan == nullptr ? FusionPlanBlocks{} : DescribeFusionBlocks(*plan);
}

// An Adam step: three outputs, spread scalars, a scalar parameter; 16 MB
// of outputs (streamed) and an element count that is no whole number of
// blocks or cache lines.
constexpr char kAdamStep[] = R"(
HloModule m
f {
  p = f32[1400003] parameter(0)
  g = f32[1400003] parameter(1)
  m = f32[1400003] parameter(2)
  v = f32[1400003] parameter(3)
  lr = f32[] parameter(4)
  b1 = f32[] constant(0.9)
  c1 = f32[] constant(0.1)
  eps = f32[] constant(1e-08)
  bb1 = f32[1400003] broadcast(b1), dimensions={}
  bc1 = f32[1400003] broadcast(c1), dimensions={}
  beps = f32[1400003] broadcast(eps), dimensions={}
  blr = f32[1400003] broadcast(lr), dimensions={}
  m1 = f32[1400003] multiply(bb1, m)
  m2 = f32[1400003] multiply(bc1, g)
  mn = f32[1400003] add(m1, m2)
  g2 = f32[1400003] multiply(g, g)
  vn = f32[1400003] add(v, g2)
  sv = f32[1400003] sqrt(vn)
  den = f32[1400003] add(sv, beps)
  ratio = f32[1400003] divide(mn, den)
  step = f32[1400003] multiply(blr, ratio)
  pn = f32[1400003] subtract(p, step)
  ROOT r = (f32[1400003], f32[1400003], f32[1400003]) tuple(pn, mn, vn)
}
ENTRY e {
  p = f32[1400003] parameter(0)
  g = f32[1400003] parameter(1)
  m = f32[1400003] parameter(2)
  v = f32[1400003] parameter(3)
  lr = f32[] parameter(4)
  ROOT r = (f32[1400003], f32[1400003], f32[1400003]) fusion(p, g, m, v, lr), kind=kLoop, calls=f
})";

TEST(FusionExecTest, ElementwiseChainsRunLeanInWholeCacheLines) {
  const FusionPlanBlocks adam = RootPlanBlocks(kAdamStep);
  EXPECT_TRUE(adam.lean);
  // f32 outputs: blocks of whole 64-byte lines, threads take whole blocks.
  EXPECT_GT(adam.block_rows, 0);
  EXPECT_EQ(adam.block_rows % 16, 0) << adam.block_rows;
  EXPECT_EQ(adam.parallel_rows % adam.block_rows, 0) << adam.parallel_rows;
  EXPECT_GT(adam.parallel_rows, adam.block_rows);
  // A row reduction is not lean.
  EXPECT_FALSE(RootPlanBlocks(R"(
HloModule m
add { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
f {
  a = f32[64,256] parameter(0)
  z = f32[] constant(0)
  s = f32[64] reduce(a, z), dimensions={1}, to_apply=add
  b = f32[64,256] broadcast(s), dimensions={0}
  ROOT d = f32[64,256] divide(a, b)
}
ENTRY e {
  a = f32[64,256] parameter(0)
  ROOT r = f32[64,256] fusion(a), kind=kInput, calls=f
})").lean);
}

TEST(FusionExecTest, LeanMultiOutputStepWithStreamingStores) { ExpectSameAsOpByOp(kAdamStep); }

TEST(FusionExecTest, LeanBlocksWrittenInPlaceWithSelectsConvertsAndReshapes) {
  // Small outputs (written in place, not streamed), odd element counts,
  // narrow and integer types, a reshape (alias) between steps.
  constexpr char kText[] = R"(
HloModule m
f {
  a = f32[3001] parameter(0)
  n = s32[3001] parameter(1)
  k = s32[] constant(3)
  bk = s32[3001] broadcast(k), dimensions={}
  gt = pred[3001] compare(n, bk), direction=GT
  h = bf16[3001] convert(a)
  e = bf16[3001] exponential(h)
  w = f32[3001] convert(e)
  r = f32[1,3001] reshape(w)
  q = f32[3001] reshape(r)
  s = f32[3001] select(gt, q, a)
  ROOT t = (f32[3001], pred[3001]) tuple(s, gt)
}
ENTRY e {
  a = f32[3001] parameter(0)
  n = s32[3001] parameter(1)
  ROOT r = (f32[3001], pred[3001]) fusion(a, n), kind=kLoop, calls=f
})";
  EXPECT_TRUE(RootPlanBlocks(kText).lean);
  ExpectSameAsOpByOp(kText);
}

TEST(FusionExecTest, LeanBlocksOverOutputsOfEveryElementSize) {
  // Outputs of 8, 4, 1 and 2 bytes per element (f64, c64's real part, s8,
  // f16, u16): blocks end on whole lines of all of them.
  constexpr char kText[] = R"(
HloModule m
f {
  a = f32[5001] parameter(0)
  n = s32[5001] parameter(1)
  d = f64[5001] convert(a)
  d2 = f64[5001] multiply(d, d)
  c = c64[5001] complex(a, a)
  c2 = c64[5001] multiply(c, c)
  cr = f32[5001] real(c2)
  b = s8[5001] convert(n)
  b2 = s8[5001] add(b, b)
  h = f16[5001] convert(a)
  h2 = f16[5001] multiply(h, h)
  u = u16[5001] convert(n)
  ROOT t = (f64[5001], f32[5001], s8[5001], f16[5001], u16[5001]) tuple(d2, cr, b2, h2, u)
}
ENTRY e {
  a = f32[5001] parameter(0)
  n = s32[5001] parameter(1)
  ROOT r = (f64[5001], f32[5001], s8[5001], f16[5001], u16[5001]) fusion(a, n), kind=kLoop, calls=f
})";
  const FusionPlanBlocks blocks = RootPlanBlocks(kText);
  EXPECT_TRUE(blocks.lean);
  EXPECT_EQ(blocks.block_rows % 64, 0) << blocks.block_rows;  // a whole line of the s8 output
  ExpectSameAsOpByOp(kText);
}

TEST(FusionExecTest, ScratchSlotsSharedByValuesThatDoNotOverlap) {
  // Values that die early give their slots to later ones: a reshape (an
  // alias of its operand's slot) read at the very end keeps that slot
  // alive, a row reduction's narrow result and the long chain after it
  // reuse freed slots, and outputs whose last reader comes early (t1)
  // keep their slots until the block's end. Both sizes: outputs written in place and, above
  // 16 MB, from scratch with streaming stores.
  for (const char* rows : {"64", "65537"}) {
    std::string text = R"(
HloModule m
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
f {
  a = f32[R,33] parameter(0)
  b = f32[R,33] parameter(1)
  e = f32[R,33] exponential(a)
  keep = f32[R,3,11] reshape(e)
  t1 = f32[R,33] multiply(a, b)
  t2 = f32[R,33] add(t1, b)
  zero = f32[] constant(0)
  red = f32[R] reduce(t2, zero), dimensions={1}, to_apply=sum
  wide = f32[R,33] broadcast(red), dimensions={0}
  t3 = f32[R,33] subtract(t2, wide)
  t4 = f32[R,33] tanh(t3)
  t5 = f32[R,33] multiply(t4, t1)
  t6 = f32[R,33] add(t5, e)
  back = f32[R,33] reshape(keep)
  t7 = f32[R,33] divide(t6, back)
  t8 = f32[R,33] add(t7, t5)
  ROOT r = (f32[R,33], f32[R,33], f32[R,33], f32[R]) tuple(t8, t1, t5, red)
}
ENTRY e {
  a = f32[R,33] parameter(0)
  b = f32[R,33] parameter(1)
  ROOT r = (f32[R,33], f32[R,33], f32[R,33], f32[R]) fusion(a, b), kind=kLoop, calls=f
})";
    for (size_t at = text.find('R'); at != std::string::npos; at = text.find('R', at)) {
      if (at > 0 && text[at - 1] != '[') {
        ++at;
        continue;
      }
      text.replace(at, 1, rows);
    }
    SCOPED_TRACE(rows);
    ExpectSameAsOpByOp(text.c_str());
  }
}

// Replaces every "R" that starts a dimension list ("[R,") with `rows`.
std::string WithRows(std::string text, const std::string& rows) {
  for (size_t at = text.find("[R,"); at != std::string::npos; at = text.find("[R,", at))
    text.replace(at + 1, 1, rows);
  for (size_t at = text.find("[R]"); at != std::string::npos; at = text.find("[R]", at))
    text.replace(at + 1, 1, rows);
  return text;
}

// The same, and every "C" that starts or follows a dimension ("[C]",
// "[R,C]") replaced with `cols`.
std::string WithRowsAndCols(const std::string& text, const std::string& rows, const std::string& cols) {
  std::string module = WithRows(text, rows);
  for (size_t at = module.find('C'); at != std::string::npos; at = module.find('C', at)) {
    if (module[at - 1] == ',' || module[at - 1] == '[') {
      module.replace(at, 1, cols);
    } else {
      ++at;
    }
  }
  return module;
}

TEST(FusionExecTest, LongRowsRunElementwiseStepsChunkByChunk) {
  // Rows of C f32 (four 1024-element chunks and a short one): the
  // centring and squaring run chunk by chunk (xc kept whole for after the
  // second reduction, sq kept for the reduction), the normalisation's tail
  // (row scalar, invariant rows gamma and beta) in chunk-sized slots; with
  // 1001 rows the 16.8 MB output is streamed out chunk by chunk, with 7
  // it is written in place.
  const std::string text = R"(
HloModule m
ad { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
f {
  x = f32[R,C] parameter(0)
  g = f32[C] parameter(1)
  b = f32[C] parameter(2)
  z = f32[] constant(0)
  inv = f32[] constant(0.00023832221)
  bi = f32[R] broadcast(inv), dimensions={}
  s = f32[R] reduce(x, z), dimensions={1}, to_apply=ad
  mean = f32[R] multiply(s, bi)
  bm = f32[R,C] broadcast(mean), dimensions={0}
  xc = f32[R,C] subtract(x, bm)
  sq = f32[R,C] multiply(xc, xc)
  ss = f32[R] reduce(sq, z), dimensions={1}, to_apply=ad
  var = f32[R] multiply(ss, bi)
  eps = f32[] constant(1e-5)
  be = f32[R] broadcast(eps), dimensions={}
  ve = f32[R] add(var, be)
  rstd = f32[R] rsqrt(ve)
  br = f32[R,C] broadcast(rstd), dimensions={0}
  xn = f32[R,C] multiply(xc, br)
  bg = f32[R,C] broadcast(g), dimensions={1}
  bb = f32[R,C] broadcast(b), dimensions={1}
  y0 = f32[R,C] multiply(xn, bg)
  y1 = f32[R,C] add(y0, bb)
  ROOT y = f32[R,C] tanh(y1)
}
ENTRY e {
  x = f32[R,C] parameter(0)
  g = f32[C] parameter(1)
  b = f32[C] parameter(2)
  ROOT r = f32[R,C] fusion(x, g, b), kind=kInput, calls=f
})";
  for (const auto& [rows, cols] : {std::pair{"7", "4196"}, {"1001", "4196"}, {"13", "300"}, {"14001", "300"}}) {
    SCOPED_TRACE(absl::StrCat(rows, "x", cols));
    const std::string module = WithRowsAndCols(text, rows, cols);
    const FusionPlanBlocks blocks = RootPlanBlocks(module);
    EXPECT_FALSE(blocks.lean);
    EXPECT_GE(blocks.chunk_runs, 2);
    // xn, y0, y1 at least; y as well when it is streamed.
    EXPECT_GE(blocks.chunk_local_values, std::string(rows).size() <= 2 ? 3 : 4);
    ExpectSameAsOpByOp(module.c_str());
  }
}

TEST(FusionExecTest, FlatChunkRunsMixElementSizesAndKeepOutputsReadLater) {
  // Short rows (70 elements): the block is one flat range cut into chunks.
  // bf16 and f32 values in one run (chunks of 1024 elements, the widest
  // four bytes), a select on a comparison, a clamp with spread scalars; u
  // is an output that a later reduction also reads (kept in a block slot),
  // w an output only the run reads. In place and, with 60000 rows, streamed.
  const std::string text = R"(
HloModule m
mx { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] maximum(x, y) }
f {
  a = bf16[R,70] parameter(0)
  c = f32[R,70] parameter(1)
  af = f32[R,70] convert(a)
  lo = f32[] constant(-1.5)
  hi = f32[] constant(2.5)
  u = f32[R,70] clamp(lo, af, hi)
  cmp = pred[R,70] compare(u, c), direction=GT
  v = f32[R,70] select(cmp, u, c)
  vb = bf16[R,70] convert(v)
  w = bf16[R,70] multiply(vb, vb)
  z = f32[] constant(-inf)
  m = f32[R] reduce(u, z), dimensions={1}, to_apply=mx
  ROOT t = (f32[R,70], bf16[R,70], f32[R]) tuple(u, w, m)
}
ENTRY e {
  a = bf16[R,70] parameter(0)
  c = f32[R,70] parameter(1)
  ROOT r = (f32[R,70], bf16[R,70], f32[R]) fusion(a, c), kind=kInput, calls=f
})";
  for (const char* rows : {"333", "60000"}) {
    SCOPED_TRACE(rows);
    const std::string module = WithRows(text, rows);
    const FusionPlanBlocks blocks = RootPlanBlocks(module);
    EXPECT_FALSE(blocks.lean);
    EXPECT_GE(blocks.chunk_runs, 1);
    EXPECT_GE(blocks.chunk_local_values, 3);  // af, cmp, v at least
    ExpectSameAsOpByOp(module.c_str());
  }
}

TEST(FusionExecTest, RowReductionsEndChunkRuns) {
  // Softmax rows: the sum of the exponentials ends the run that computes
  // them (folded chunk by chunk in lanes), the maximum of a bf16 copy ends
  // another. Rows of 40 (shorter than the lanes: no run ends in a reduce),
  // 4196 and 33000 (longer than the lanes' rows: blocked partials, the
  // reduce stays outside the run).
  const std::string text = R"(
HloModule m
mx { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] maximum(x, y) }
bmx { x = bf16[] parameter(0)  y = bf16[] parameter(1)  ROOT s = bf16[] maximum(x, y) }
ad { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
f {
  x = f32[R,C] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[R] reduce(x, ninf), dimensions={1}, to_apply=mx
  bm = f32[R,C] broadcast(m), dimensions={0}
  d = f32[R,C] subtract(x, bm)
  e = f32[R,C] exponential(d)
  z = f32[] constant(0)
  s = f32[R] reduce(e, z), dimensions={1}, to_apply=ad
  bs = f32[R,C] broadcast(s), dimensions={0}
  y = f32[R,C] divide(e, bs)
  yh = f32[R,C] multiply(y, y)
  yb = bf16[R,C] convert(yh)
  bz = bf16[] constant(-inf)
  ym = bf16[R] reduce(yb, bz), dimensions={1}, to_apply=bmx
  ROOT t = (f32[R,C], bf16[R]) tuple(y, ym)
}
ENTRY e {
  x = f32[R,C] parameter(0)
  ROOT r = (f32[R,C], bf16[R]) fusion(x), kind=kInput, calls=f
})";
  for (const auto& [rows, cols] : {std::pair{"37", "40"}, {"5", "4196"}, {"3", "33000"}}) {
    SCOPED_TRACE(absl::StrCat(rows, "x", cols));
    const std::string module = WithRowsAndCols(text, rows, cols);
    const FusionPlanBlocks blocks = RootPlanBlocks(module);
    if (std::string(cols) == "4196") {
      EXPECT_GE(blocks.chunk_runs_ending_in_reduce, 2);
    } else {
      EXPECT_EQ(blocks.chunk_runs_ending_in_reduce, 0);
    }
    ExpectSameAsOpByOp(module.c_str());
  }
}

// Batch-norm statistics of NHWC activations: sums over the leading dims
// of elementwise trees computed only for them (a negation; a product of a
// selected value and a converted one; a maximum of a difference, with an
// s32 sum beside it) stream block by block into column accumulators
// (fusion_streamed_reduce.h), with a parameter in another layout and a
// value the rows also read (computed whole, a leaf). 700 rows: several
// blocks and a partial one. Same bits as op by op; a bf16 sum (XLA's tree
// order) and a reduction of all dims do not stream.
TEST(FusionExecTest, ReductionsOverLeadingDimsStreamTheirTrees) {
  const char* text = R"(
HloModule m
ad { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
mx { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] maximum(x, y) }
adi { x = s32[] parameter(0)  y = s32[] parameter(1)  ROOT s = s32[] add(x, y) }
adb { x = bf16[] parameter(0)  y = bf16[] parameter(1)  ROOT s = bf16[] add(x, y) }
f {
  a = f32[7,100,12] parameter(0)
  b = f32[7,100,12]{1,2,0} parameter(1)
  k = s32[7,100,12] parameter(2)
  z = f32[] constant(0)
  na = f32[7,100,12] negate(a)
  t1 = f32[12] reduce(na, z), dimensions={0,1}, to_apply=ad
  p = pred[7,100,12] compare(a, b), direction=GT
  sel = f32[7,100,12] select(p, a, b)
  kf = f32[7,100,12] convert(k)
  prod = f32[7,100,12] multiply(sel, kf)
  t2 = f32[100,12] reduce(prod, z), dimensions={0}, to_apply=ad
  d = f32[7,100,12] subtract(a, b)
  ninf = f32[] constant(-inf)
  m = f32[12] reduce(d, ninf), dimensions={0,1}, to_apply=mx
  zi = s32[] constant(0)
  k2 = s32[7,100,12] multiply(k, k)
  si = s32[12] reduce(k2, zi), dimensions={0,1}, to_apply=adi
  ab = bf16[7,100,12] convert(a)
  zb = bf16[] constant(0)
  sb = bf16[12] reduce(ab, zb), dimensions={0,1}, to_apply=adb
  all = f32[] reduce(na, z), dimensions={0,1,2}, to_apply=ad
  nb = f32[7,100,12] negate(b)
  t3 = f32[12] reduce(nb, z), dimensions={0,1}, to_apply=ad
  bt3 = f32[7,100,12] broadcast(t3), dimensions={2}
  bs1 = f32[7,100,12] broadcast(t1), dimensions={2}
  bs2 = f32[7,100,12] broadcast(t2), dimensions={1,2}
  bm = f32[7,100,12] broadcast(m), dimensions={2}
  bsi0 = s32[7,100,12] broadcast(si), dimensions={2}
  bsi = f32[7,100,12] convert(bsi0)
  bsb0 = bf16[7,100,12] broadcast(sb), dimensions={2}
  bsb = f32[7,100,12] convert(bsb0)
  ball = f32[7,100,12] broadcast(all), dimensions={}
  u = f32[7,100,12] add(bs1, bs2)
  v = f32[7,100,12] add(u, bm)
  w = f32[7,100,12] add(v, bsi)
  x = f32[7,100,12] add(w, bsb)
  y = f32[7,100,12] add(x, ball)
  y2 = f32[7,100,12] add(y, bt3)
  ROOT r = f32[7,100,12] add(y2, d)
}
ENTRY e {
  a = f32[7,100,12] parameter(0)
  b = f32[7,100,12]{1,2,0} parameter(1)
  k = s32[7,100,12] parameter(2)
  ROOT y = f32[7,100,12] fusion(a, b, k), kind=kInput, calls=f
})";
  const std::string plan = DescribeRootPlan(text);
  // The product's tree of four, k2's and nb's of one.
  EXPECT_NE(plan.find("streamed-reduce(4)"), std::string::npos) << plan;
  EXPECT_NE(plan.find("streamed-reduce(1) streamed-reduce(1)"), std::string::npos) << plan;
  EXPECT_EQ(std::count(plan.begin(), plan.end(), '('), 3) << plan;
  ExpectSameAsOpByOp(text);
}

// A streamed reduce's leaf in a tiled layout (whose storage is padded) is
// relaid out to row-major before its size is checked.
TEST(FusionExecTest, StreamedReduceReadsATiledParameter) {
  const char* text = R"(
HloModule m
ad { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
f {
  a = f32[5,3]{1,0:T(2,2)} parameter(0)
  z = f32[] constant(0)
  na = f32[5,3] negate(a)
  t = f32[3] reduce(na, z), dimensions={0}, to_apply=ad
  bt = f32[5,3] broadcast(t), dimensions={1}
  ROOT r = f32[5,3] add(bt, bt)
}
ENTRY e {
  a = f32[5,3]{1,0:T(2,2)} parameter(0)
  ROOT y = f32[5,3] fusion(a), kind=kInput, calls=f
})";
  EXPECT_NE(DescribeRootPlan(text).find("streamed-reduce(1)"), std::string::npos) << DescribeRootPlan(text);
  ExpectSameAsOpByOp(text);
}

TEST(FusionExecTest, ColumnReductionAndTransposeRunOpByOp) {
  // A reduction over the first dimension broadcast back over the rows, and
  // a transpose root: no row split; the op-by-op path gives the values.
  ExpectSameAsOpByOp(R"(
HloModule m
ad { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
f1 {
  a = f32[12,9] parameter(0)
  z = f32[] constant(0)
  r = f32[12] reduce(a, z), dimensions={1}, to_apply=ad
  c = f32[9] reduce(a, z), dimensions={0}, to_apply=ad
  ROOT t = (f32[12], f32[9]) tuple(r, c)
}
f2 {
  a = f32[12,9] parameter(0)
  ROOT t = f32[9,12] transpose(a), dimensions={1,0}
}
ENTRY e {
  a = f32[12,9] parameter(0)
  x = (f32[12], f32[9]) fusion(a), kind=kInput, calls=f1
  y = f32[9,12] fusion(a), kind=kLoop, calls=f2
  ROOT t = ((f32[12], f32[9]), f32[9,12]) tuple(x, y)
})", /*splits=*/false);
}

// bf16 chains computed in f32 (fusion_widen_bf16.h): every bf16 bit
// pattern through ops that commute with rounding (maximum, clamp, select,
// negate: rounding deferred through them), exact ones (floor), inexact ones
// (add, multiply, divide, exponential, tanh, sqrt, log), a compare, converts
// from and to f32 and a reduction that reads a widened value (converted
// back) give the op-by-op run's bits, NaNs included.
TEST(FusionExecTest, Bf16ChainsComputedInF32KeepTheirBits) {
  const char* text = R"(
HloModule m
ad { x = bf16[] parameter(0)  y = bf16[] parameter(1)  ROOT s = bf16[] add(x, y) }
f {
  p = bf16[256,256] parameter(0)
  q = bf16[256,256] parameter(1)
  a = bf16[256,256] add(p, q)
  m = bf16[256,256] multiply(a, p)
  e = bf16[256,256] exponential(m)
  t = bf16[256,256] tanh(q)
  d = bf16[256,256] divide(e, t)
  mx = bf16[256,256] maximum(d, p)
  lo = bf16[] constant(-2.5)
  hi = bf16[] constant(3)
  c = bf16[256,256] clamp(lo, mx, hi)
  n = bf16[256,256] negate(c)
  lt = pred[256,256] compare(p, q), direction=LT
  s = bf16[256,256] select(lt, n, d)
  r = bf16[256,256] sqrt(s)
  l = bf16[256,256] log(q)
  fl = bf16[256,256] floor(l)
  pf = f32[256,256] convert(p)
  three = f32[] constant(3.3)
  b3 = f32[256,256] broadcast(three), dimensions={}
  f3 = f32[256,256] multiply(pf, b3)
  back = bf16[256,256] convert(f3)
  sum = bf16[256,256] add(back, fl)
  z = bf16[] constant(0)
  red = bf16[256] reduce(sum, z), dimensions={1}, to_apply=ad
  nf = f32[256,256] convert(n)
  nf2 = f32[256,256] multiply(nf, nf)
  ROOT o = (bf16[256,256], bf16[256,256], pred[256,256], bf16[256], bf16[256,256], f32[256,256]) tuple(r, sum, lt, red, c, nf2)
}
ENTRY e {
  p = bf16[256,256] parameter(0)
  q = bf16[256,256] parameter(1)
  ROOT r = (bf16[256,256], bf16[256,256], pred[256,256], bf16[256], bf16[256,256], f32[256,256]) fusion(p, q), kind=kInput, calls=f
})";
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const Computation* fused = (*module)->entry()->root()->AttrOr<Computation*>("calls", nullptr);
  std::unique_ptr<Computation> widened = WidenBf16Chains(*fused);
  ASSERT_NE(widened, nullptr);
  ASSERT_TRUE(CanRunByRows(*widened).ok()) << CanRunByRows(*widened);
  ExpectSameAsOpByOp(text, true, &FillAllBf16Patterns);
}

// A bf16 convolution under a bias and ReLU6 epilogue: its f32 result is
// rounded by reduce-precision and the epilogue runs in f32, with the bits
// of the convolution rounded to bf16 op by op.
TEST(FusionExecTest, Bf16ConvolutionEpilogueComputedInF32KeepsItsBits) {
  const char* text = R"(
HloModule m
f {
  x = bf16[2,9,9,16] parameter(0)
  w = bf16[3,3,16,8] parameter(1)
  bias = bf16[8] parameter(2)
  c = bf16[2,9,9,8] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb = bf16[2,9,9,8] broadcast(bias), dimensions={3}
  a = bf16[2,9,9,8] add(c, bb)
  z = bf16[] constant(0)
  zb = bf16[2,9,9,8] broadcast(z), dimensions={}
  six = bf16[] constant(6)
  sb = bf16[2,9,9,8] broadcast(six), dimensions={}
  mx = bf16[2,9,9,8] maximum(a, zb)
  ROOT mn = bf16[2,9,9,8] minimum(mx, sb)
}
ENTRY e {
  x = bf16[2,9,9,16] parameter(0)
  w = bf16[3,3,16,8] parameter(1)
  bias = bf16[8] parameter(2)
  ROOT r = bf16[2,9,9,8] fusion(x, w, bias), kind=kOutput, calls=f
})";
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const Computation* fused = (*module)->entry()->root()->AttrOr<Computation*>("calls", nullptr);
  std::unique_ptr<Computation> widened = WidenBf16Chains(*fused);
  ASSERT_NE(widened, nullptr);
  bool f32_convolution = false;
  for (const Instruction* i : widened->instructions())
    f32_convolution |= i->opcode() == Opcode::kConvolution && i->shape().element_type() == PrimitiveType::F32;
  EXPECT_TRUE(f32_convolution);
  ExpectSameAsOpByOp(text);
}

// A bf16 batched dot under a masked softmax (attention scores, as JAX
// writes them): the dot keeps its bf16 result and the epilogue runs widened,
// with the op-by-op run's bits.
TEST(FusionExecTest, Bf16DotUnderMaskedSoftmaxKeepsItsBits) {
  const char* text = R"(
HloModule m
mx { x = bf16[] parameter(0)  y = bf16[] parameter(1)  ROOT m = bf16[] maximum(x, y) }
ad { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
f {
  q = bf16[24,3,16] parameter(0)
  k = bf16[24,3,16] parameter(1)
  d = bf16[3,24,24] dot(q, k), lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={1}, rhs_contracting_dims={2}
  eight = bf16[] constant(8)
  e8 = bf16[3,24,24] broadcast(eight), dimensions={}
  s = bf16[3,24,24] divide(d, e8)
  i0 = s32[24,24] iota(), iota_dimension=0
  i1 = s32[24,24] iota(), iota_dimension=1
  ge = pred[24,24] compare(i0, i1), direction=GE
  mask = pred[3,24,24] broadcast(ge), dimensions={1,2}
  low = bf16[] constant(-3.39e+38)
  lowb = bf16[3,24,24] broadcast(low), dimensions={}
  sel = bf16[3,24,24] select(mask, s, lowb)
  ninf = bf16[] constant(-inf)
  rmax = bf16[3,24] reduce(sel, ninf), dimensions={2}, to_apply=mx
  bmax = bf16[3,24,24] broadcast(rmax), dimensions={0,1}
  sub = bf16[3,24,24] subtract(sel, bmax)
  ex = bf16[3,24,24] exponential(sub)
  exf = f32[3,24,24] convert(ex)
  z = f32[] constant(0)
  rs = f32[3,24] reduce(exf, z), dimensions={2}, to_apply=ad
  rsb = bf16[3,24] convert(rs)
  bs = bf16[3,24,24] broadcast(rsb), dimensions={0,1}
  ROOT p = bf16[3,24,24] divide(ex, bs)
}
ENTRY e {
  q = bf16[24,3,16] parameter(0)
  k = bf16[24,3,16] parameter(1)
  ROOT r = bf16[3,24,24] fusion(q, k), kind=kOutput, calls=f
})";
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const Computation* fused = (*module)->entry()->root()->AttrOr<Computation*>("calls", nullptr);
  ASSERT_NE(WidenBf16Chains(*fused), nullptr);
  ExpectSameAsOpByOp(text);                                        // moderate values
  ExpectSameAsOpByOp(text, /*splits=*/true, &FillAllBf16Patterns);  // NaNs, infinities, ties
}

}  // namespace
}  // namespace hlo::cpu
