// Runtime dimension sizes (dynamic_padding.h): every run honors them in
// reductions, dots and get-dimension-size, whether or not -O ran.
#include "backend_cpu/dynamic_padding.h"

#include <string>
#include <vector>

#include "backend_cpu/executor.h"
#include "backend_cpu/test_hlo_text.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "parser/parser.h"

namespace hlo::cpu {
namespace {

std::string Lit(const std::string& text) { return WithRank1Layouts(text); }

void ExpectRun(const std::string& hlo, const std::vector<std::string>& args, const std::string& expected) {
  std::vector<std::string> fixed;
  for (const std::string& a : args) fixed.push_back(Lit(a));
  absl::StatusOr<RunResult> got = RunHloTextOnAllDevices(hlo, fixed);
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<Literal> want = ParseLiteral(Lit(expected));
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_TRUE(got->results[0].LogicallyEqual(*want))
      << "got:  " << LiteralToString(got->results[0]) << "\nwant: " << LiteralToString(*want);
  EXPECT_TRUE(got->notes.empty()) << got->notes[0];  // every use was handled
}

constexpr char kAdd[] = R"(
add { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
)";

// The seeds' example at several sizes, the size given at run time.
TEST(DynamicPaddingTest, ReductionsSeeOnlyTheRuntimeSize) {
  const std::string hlo = std::string("HloModule m\n") + kAdd + R"(
mul { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] multiply(x, y) }
ENTRY e { v = f32[10] parameter(0)  n = s32[] parameter(1)
  d = f32[<=10] set-dimension-size(v, n), dimensions={0}
  z = f32[] constant(0)  one = f32[] constant(1)
  s = f32[] reduce(d, z), dimensions={0}, to_apply=add
  p = f32[] reduce(d, one), dimensions={0}, to_apply=mul
  ROOT t = (f32[], f32[]) tuple(s, p) })";
  const std::string v = "f32[10] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}";
  ExpectRun(hlo, {v, "s32[] 5"}, "(f32[] 15, f32[] 120)");
  ExpectRun(hlo, {v, "s32[] 6"}, "(f32[] 21, f32[] 720)");
  ExpectRun(hlo, {v, "s32[] 10"}, "(f32[] 55, f32[] 3628800)");
  ExpectRun(hlo, {v, "s32[] 0"}, "(f32[] 0, f32[] 1)");
}

// Sizes of two dimensions, kept through a transpose and a reshape that
// adds a unit dimension; a row reduction keeps the other size, which
// get-dimension-size then reads.
TEST(DynamicPaddingTest, TwoDimensionsThroughTransposeAndReshape) {
  const std::string hlo = std::string("HloModule m\n") + kAdd + R"(
ENTRY e { x = f32[3,4] parameter(0)  r = s32[] parameter(1)  c = s32[] parameter(2)
  a = f32[<=3,4] set-dimension-size(x, r), dimensions={0}
  b = f32[<=3,<=4] set-dimension-size(a, c), dimensions={1}
  t = f32[<=4,<=3] transpose(b), dimensions={1,0}
  u = f32[<=4,1,<=3] reshape(t)
  z = f32[] constant(0)
  rows = f32[<=4,1] reduce(u, z), dimensions={2}, to_apply=add
  all = f32[] reduce(rows, z), dimensions={0,1}, to_apply=add
  g = s32[] get-dimension-size(rows), dimensions={0}
  ROOT out = (f32[], s32[]) tuple(all, g) })";
  // The top-left 2x3 block of 1..12: 1+2+3+5+6+7.
  ExpectRun(hlo, {"f32[3,4] {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}}", "s32[] 2", "s32[] 3"},
            "(f32[] 24, s32[] 3)");
}

// A variadic reduce (arg max) masks each input with its own init value.
TEST(DynamicPaddingTest, VariadicReduceMasksEveryInput) {
  const std::string hlo = R"(HloModule m
argmax { av = f32[] parameter(0)  ai = s32[] parameter(1)  bv = f32[] parameter(2)  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GE
  v = f32[] select(gt, av, bv)  i = s32[] select(gt, ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i) }
ENTRY e { x = f32[6] parameter(0)  n = s32[] parameter(1)
  d = f32[<=6] set-dimension-size(x, n), dimensions={0}
  i = s32[6] iota(), iota_dimension=0
  di = s32[<=6] set-dimension-size(i, n), dimensions={0}
  lo = f32[] constant(-inf)  none = s32[] constant(-1)
  ROOT m = (f32[], s32[]) reduce(d, di, lo, none), dimensions={0}, to_apply=argmax })";
  ExpectRun(hlo, {"f32[6] {3, 1, 4, 1, 5, 9}", "s32[] 4"}, "(f32[] 4, s32[] 2)");
  ExpectRun(hlo, {"f32[6] {3, 1, 4, 1, 5, 9}", "s32[] 6"}, "(f32[] 9, s32[] 5)");
}

// A dot over a runtime-sized contracting dimension; the free dimension's
// size survives into the result.
TEST(DynamicPaddingTest, DotMasksTheContractingDimension) {
  const std::string hlo = std::string("HloModule m\n") + kAdd + R"(
ENTRY e { a = f32[2,3] parameter(0)  b = f32[3,2] parameter(1)  k = s32[] parameter(2)
  ak = f32[2,<=3] set-dimension-size(a, k), dimensions={1}
  d = f32[2,2] dot(ak, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  ROOT s = f32[2] reduce(d, z), dimensions={1}, to_apply=add })";
  // k = 2: rows {1,2}.{1,1;1,1} = {3,3} -> 6; {4,5} -> 18.
  ExpectRun(hlo, {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "f32[3,2] {{1, 1}, {1, 1}, {1, 1}}", "s32[] 2"},
            "f32[2] {6, 18}");
}

// A sort along the runtime-sized dimension sorts the elements inside the
// size, the padding after them; a reduction after it still sees the size
// (the values checked against XLA:CPU by tools/xla_peer.py).
TEST(DynamicPaddingTest, SortKeepsThePaddingLast) {
  const std::string hlo = std::string("HloModule m\n") + kAdd + R"(
less { a = f32[] parameter(0)  b = f32[] parameter(1)  ia = s32[] parameter(2)  ib = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT }
ENTRY e { x = f32[5] parameter(0)  n = s32[] parameter(1)
  d = f32[<=5] set-dimension-size(x, n), dimensions={0}
  i = s32[5] iota(), iota_dimension=0
  s = (f32[<=5], s32[5]) sort(d, i), dimensions={0}, to_apply=less
  v = f32[<=5] get-tuple-element(s), index=0
  k = s32[5] get-tuple-element(s), index=1
  z = f32[] constant(0)  one = f32[] constant(1)
  w = f32[<=5] multiply(v, v)
  sum = f32[] reduce(w, z), dimensions={0}, to_apply=add
  kf = f32[5] convert(k)
  ks = f32[] reduce(kf, z), dimensions={0}, to_apply=add
  ROOT out = (f32[], f32[], f32[5]) tuple(sum, ks, kf) })";
  // n = 3: {5, 1, 4} sorted with their indices {1, 2, 0}; 9 and 2 stay
  // after. The indices had no runtime size: all five are summed (as XLA).
  ExpectRun(hlo, {"f32[5] {5, 1, 4, 9, 2}", "s32[] 3"}, "(f32[] 42, f32[] 10, f32[5] {1, 2, 0, 3, 4})");
}

// Uses the rewrite does not follow keep set-dimension-size, and the run
// says which values read the whole bound.
TEST(DynamicPaddingTest, UnfollowedUseIsNoted) {
  absl::StatusOr<RunResult> got = RunHloTextOnAllDevices(R"(HloModule m
ENTRY e { x = f32[4] parameter(0)  n = s32[] constant(2)
  d = f32[<=4] set-dimension-size(x, n), dimensions={0}
  ROOT s = f32[<=2] slice(d), slice={[0:2]} })",
                                                          {Lit("f32[4] {1, 2, 3, 4}")});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->notes.size(), 1u);
  EXPECT_NE(got->notes[0].find("set-dimension-size %d sets dimension 0 to 2 of its 4"), std::string::npos)
      << got->notes[0];
}

TEST(DynamicPaddingTest, ModulesWithoutSetDimensionSizeAreLeftAlone) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"(HloModule m
ENTRY e { x = f32[4] parameter(0)  ROOT n = f32[4] negate(x) })");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_FALSE(HasSetDimensionSize(**m));
  EXPECT_FALSE(PadDynamicDimensions(**m));
}

}  // namespace
}  // namespace hlo::cpu
