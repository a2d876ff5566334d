// In-place execution: values that die at their consumer are handed over
// (donation.h) instead of copied. Checked through the values (unchanged
// semantics) and the peak of live bytes, which a copy would raise.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backend_cpu/executor.h"
#include "parser/parser.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

// An f32 argument of the given dims whose element k (row-major) is
// (k % period) * scale.
Literal Pattern(std::vector<int64_t> dims, int64_t period, float scale = 1.0f) {
  Literal arg(Shape::Array(PrimitiveType::F32, std::move(dims)));
  const int64_t n = arg.physical_count();
  for (int64_t k = 0; k < n; ++k) arg.SetRaw<float>(k, static_cast<float>(k % period) * scale);
  return arg;
}

// Parses `text` and runs it on `arg`; a parse or run error is returned.
absl::StatusOr<RunResult> ParseAndRun(const char* text, const Literal& arg) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(text);
  if (!module.ok()) return module.status();
  return RunModule(**module, {arg});
}

TEST(InPlaceTest, DynamicUpdateSliceAndTupleReuseTheDyingOperand) {
  // a (4 MiB) dies at the dynamic-update-slice, whose result dies at the
  // tuple: one 4 MiB buffer all along (a copy would hold two at once).
  const char* text = R"(
HloModule m
ENTRY e {
  p = f32[1048576] parameter(0)
  one = f32[] constant(1)
  a = f32[1048576] add(p, p)
  u = f32[2] broadcast(one), dimensions={}
  i = s32[] constant(3)
  d = f32[1048576] dynamic-update-slice(a, u, i)
  ROOT t = (f32[1048576]) tuple(d)
})";
  const Literal arg = Pattern({1048576}, 7);
  absl::StatusOr<RunResult> r = ParseAndRun(text, arg);
  ASSERT_TRUE(r.ok()) << r.status();
  const Literal& d = r->results[0].tuple_elements()[0];
  EXPECT_EQ(d.GetRaw<float>(2), 2 * 2.0f);
  EXPECT_EQ(d.GetRaw<float>(3), 1.0f);
  EXPECT_EQ(d.GetRaw<float>(4), 1.0f);
  EXPECT_EQ(d.GetRaw<float>(5), 2 * 5.0f);
  EXPECT_LT(r->peak_bytes, 5 * kMiB);
  // The argument itself is never written.
  EXPECT_EQ(arg.GetRaw<float>(3), 3.0f);
}

TEST(InPlaceTest, OtherReadersOfTheUpdatedArrayRunFirst) {
  // The post order from the root makes d (tuple operand 0) before r, which
  // also reads a: scheduled as it is, d would copy a. The executor runs r
  // first (it does not depend on d), so d updates a in place: one 4 MiB
  // buffer, not two.
  const char* text = R"(
HloModule m
add { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
ENTRY e {
  p = f32[1048576] parameter(0)
  one = f32[] constant(1)
  zero = f32[] constant(0)
  a = f32[1048576] add(p, p)
  u = f32[2] broadcast(one), dimensions={}
  i = s32[] constant(3)
  d = f32[1048576] dynamic-update-slice(a, u, i)
  r = f32[] reduce(a, zero), dimensions={0}, to_apply=add
  ROOT t = (f32[1048576], f32[]) tuple(d, r)
})";
  const Literal arg = Pattern({1048576}, 4);
  absl::StatusOr<RunResult> r = ParseAndRun(text, arg);
  ASSERT_TRUE(r.ok()) << r.status();
  const Literal& d = r->results[0].tuple_elements()[0];
  EXPECT_EQ(d.GetRaw<float>(2), 2 * 2.0f);
  EXPECT_EQ(d.GetRaw<float>(3), 1.0f);
  EXPECT_EQ(d.GetRaw<float>(5), 2 * 1.0f);
  // r saw a before the update: 2 * (0 + 1 + 2 + 3) per period of 4.
  EXPECT_EQ(r->results[0].tuple_elements()[1].GetRaw<float>(0), 12.0f * (1048576 / 4));
  EXPECT_LT(r->peak_bytes, 5 * kMiB);
}

TEST(InPlaceTest, AReaderThatNeedsTheUpdateStillRunsAfterIt) {
  // r reads a and d, so it cannot run before d: d copies a, and both
  // values stay right.
  const char* text = R"(
HloModule m
ENTRY e {
  p = f32[1048576] parameter(0)
  one = f32[] constant(1)
  a = f32[1048576] add(p, p)
  u = f32[2] broadcast(one), dimensions={}
  i = s32[] constant(3)
  d = f32[1048576] dynamic-update-slice(a, u, i)
  r = f32[1048576] subtract(d, a)
  ROOT t = (f32[1048576], f32[1048576]) tuple(d, r)
})";
  const Literal arg = Pattern({1048576}, 4);
  absl::StatusOr<RunResult> r = ParseAndRun(text, arg);
  ASSERT_TRUE(r.ok()) << r.status();
  const Literal& diff = r->results[0].tuple_elements()[1];
  EXPECT_EQ(diff.GetRaw<float>(2), 0.0f);
  EXPECT_EQ(diff.GetRaw<float>(3), 1.0f - 2 * 3.0f);
  EXPECT_EQ(diff.GetRaw<float>(4), 1.0f - 2 * 0.0f);
  EXPECT_EQ(diff.GetRaw<float>(5), 0.0f);
}

TEST(InPlaceTest, TwoUpdatesOfOneArrayGetOneCopyBetweenThem) {
  // d1 and d2 both update a: one of them runs first and copies, the other
  // updates a in place (no cycle in the order); both values are right.
  const char* text = R"(
HloModule m
ENTRY e {
  p = f32[1048576] parameter(0)
  one = f32[] constant(1)
  two = f32[] constant(2)
  a = f32[1048576] add(p, p)
  v1 = f32[2] broadcast(one), dimensions={}
  v2 = f32[2] broadcast(two), dimensions={}
  i = s32[] constant(3)
  d1 = f32[1048576] dynamic-update-slice(a, v1, i)
  d2 = f32[1048576] dynamic-update-slice(a, v2, i)
  ROOT t = (f32[1048576], f32[1048576]) tuple(d1, d2)
})";
  const Literal arg = Pattern({1048576}, 4);
  absl::StatusOr<RunResult> r = ParseAndRun(text, arg);
  ASSERT_TRUE(r.ok()) << r.status();
  const Literal& d1 = r->results[0].tuple_elements()[0];
  const Literal& d2 = r->results[0].tuple_elements()[1];
  EXPECT_EQ(d1.GetRaw<float>(3), 1.0f);
  EXPECT_EQ(d2.GetRaw<float>(3), 2.0f);
  EXPECT_EQ(d1.GetRaw<float>(2), 4.0f);
  EXPECT_EQ(d2.GetRaw<float>(5), 2.0f);
  EXPECT_LT(r->peak_bytes, 9 * kMiB);
}

TEST(InPlaceTest, WhileLoopUpdatesItsStateWithoutCopies) {
  // 16 trips, each writing one row of a 4 MiB state through
  // get-tuple-element -> dynamic-update-slice -> tuple: the state moves
  // through the trips (a copy per trip would hold two states at once).
  const char* text = R"(
HloModule m
cond {
  s = (s32[], f32[16,65536]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(16)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[16,65536]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[16,65536] get-tuple-element(s), index=1
  f = f32[] convert(i)
  row = f32[1,65536] broadcast(f), dimensions={}
  z = s32[] constant(0)
  y = f32[16,65536] dynamic-update-slice(x, row, i, z)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[16,65536]) tuple(j, y)
}
ENTRY e {
  p = f32[16,65536] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[16,65536]) tuple(zero, p)
  w = (s32[], f32[16,65536]) while(init), condition=cond, body=body
  ROOT out = f32[16,65536] get-tuple-element(w), index=1
})";
  absl::StatusOr<RunResult> r = ParseAndRun(text, Literal(Shape::Array(PrimitiveType::F32, {16, 65536})));
  ASSERT_TRUE(r.ok()) << r.status();
  const Literal& out = r->results[0];
  for (int64_t row = 0; row < 16; ++row) {
    EXPECT_EQ(out.GetRaw<float>(row * 65536), static_cast<float>(row));
    EXPECT_EQ(out.GetRaw<float>(row * 65536 + 65535), static_cast<float>(row));
  }
  // The initial tuple copies the argument once (it is the caller's); after
  // that one state. Two states at once would be 8 MiB.
  EXPECT_LT(r->peak_bytes, 6 * kMiB);
}

TEST(InPlaceTest, ElementwiseChainWritesOverItsDyingOperands) {
  // Each 4 MiB value dies at the next op, which writes over it, also where
  // the element type changes with the same width (f32 <-> s32) and where
  // the dying value fills both operand slots.
  const char* text = R"(
HloModule m
ENTRY e {
  p = f32[1048576] parameter(0)
  a = f32[1048576] add(p, p)
  b = f32[1048576] multiply(a, a)
  c = f32[1048576] negate(b)
  i = s32[1048576] convert(c)
  f = f32[1048576] convert(i)
  ROOT m = f32[1048576] maximum(f, f)
})";
  const Literal arg = Pattern({1048576}, 3, 0.5f);
  absl::StatusOr<RunResult> r = ParseAndRun(text, arg);
  ASSERT_TRUE(r.ok()) << r.status();
  for (int64_t k = 0; k < 6; ++k) {
    const float x = static_cast<float>(k % 3) * 0.5f;
    const float want = static_cast<float>(static_cast<int32_t>(-(2 * x) * (2 * x)));
    EXPECT_EQ(r->results[0].GetRaw<float>(k), want) << k;
  }
  EXPECT_EQ(arg.GetRaw<float>(1), 0.5f);  // the argument is only lent
  // One buffer all along (a fresh one per op would hold two at once).
  EXPECT_LE(r->peak_bytes, 4 * kMiB + 64);
}

TEST(InPlaceTest, RowMajorReshapeOfADyingValueKeepsItsBuffer) {
  // a (4 MiB) dies at the reshape: row-major to row-major moves no element,
  // so the reshape's result is a's buffer (a copy would hold two at once).
  const char* text = R"(
HloModule m
ENTRY e {
  p = f32[1024,1024] parameter(0)
  a = f32[1024,1024] add(p, p)
  r = f32[4,256,1024] reshape(a)
  ROOT n = f32[4,256,1024] negate(r)
})";
  absl::StatusOr<RunResult> r = ParseAndRun(text, Pattern({1024, 1024}, 5));
  ASSERT_TRUE(r.ok()) << r.status();
  for (int64_t k : {0, 1, 4, 1023, 1024, 777777})
    EXPECT_EQ(r->results[0].GetRaw<float>(k), -2.0f * static_cast<float>(k % 5)) << k;
  EXPECT_LE(r->peak_bytes, 4 * kMiB + 64);
}

TEST(InPlaceTest, LayoutOnlyTransposeOfADyingValueKeepsItsBuffer) {
  // a (4 MiB) dies at a transpose whose result layout {0,1} puts every
  // element where a has it (what JAX writes for the transposed gradient of a
  // weight): the transpose's result is a's buffer, not a copy. A transpose
  // to {1,0} of the same value moves the elements.
  const char* text = R"(
HloModule m
ENTRY e {
  p = f32[1024,1024] parameter(0)
  a = f32[1024,1024]{1,0} add(p, p)
  t = f32[1024,1024]{0,1} transpose(a), dimensions={1,0}
  ROOT n = f32[1024,1024]{0,1} negate(t)
})";
  absl::StatusOr<RunResult> r = ParseAndRun(text, Pattern({1024, 1024}, 5));
  ASSERT_TRUE(r.ok()) << r.status();
  // Logical (i, j) of n is -a(j, i) = -2 * p(j, i); layout {0,1} stores it at
  // physical slot i + 1024 * j, which is a's row-major slot of (j, i).
  for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{4}, int64_t{1023}, int64_t{1024}, int64_t{777777}})
    EXPECT_EQ(r->results[0].GetRaw<float>(k), -2.0f * static_cast<float>(k % 5)) << k;
  EXPECT_LE(r->peak_bytes, 4 * kMiB + 64);

  const char* moving = R"(
HloModule m
ENTRY e {
  p = f32[1024,1024] parameter(0)
  a = f32[1024,1024]{1,0} add(p, p)
  ROOT t = f32[1024,1024]{1,0} transpose(a), dimensions={1,0}
})";
  r = ParseAndRun(moving, Pattern({1024, 1024}, 5));
  ASSERT_TRUE(r.ok()) << r.status();
  // t(i, j) = a(j, i) = 2 * p(j, i), stored row-major at i * 1024 + j.
  for (int64_t i : {0, 1, 700})
    for (int64_t j : {0, 3, 1023})
      EXPECT_EQ(r->results[0].GetRaw<float>(i * 1024 + j), 2.0f * static_cast<float>((j * 1024 + i) % 5))
          << i << "," << j;
  EXPECT_GE(r->peak_bytes, 8 * kMiB);
}

TEST(InPlaceTest, ColumnMajorReshapeOfADyingValueMovesItsElements) {
  // Same dying operand, but a column-major result: the elements must move.
  const char* text = R"(
HloModule m
ENTRY e {
  p = f32[1024,1024] parameter(0)
  a = f32[1024,1024] add(p, p)
  ROOT c = f32[1024,4,256]{0,1,2} reshape(a)
})";
  absl::StatusOr<RunResult> r = ParseAndRun(text, Pattern({1024, 1024}, 5));
  ASSERT_TRUE(r.ok()) << r.status();
  // Logical (i, j, l) is row-major element i*1024 + j*256 + l of a; with
  // layout {0,1,2} it sits at physical slot i + 1024*(j + 4*l).
  const Literal& c = r->results[0];
  for (int64_t i : {0, 3, 1000})
    for (int64_t j : {0, 3})
      for (int64_t l : {0, 1, 255})
        EXPECT_EQ(c.GetRaw<float>(i + 1024 * (j + 4 * l)),
                  2.0f * static_cast<float>((i * 1024 + j * 256 + l) % 5));
}

}  // namespace
}  // namespace hlo::cpu
