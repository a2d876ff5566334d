// Tests of the reduction family (ops_reduction.cc, ops_reduce.cc,
// ops_sort.cc): the spec's worked examples, hand-computed edge cases, and
// fast path == generic path checks, run end to end through RunHloText.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/test_hlo_text.h"
#include "backend_cpu/thread_pool.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "parser/parser.h"

namespace hlo::cpu {
namespace {

// Literal texts of rank-1 arrays get an explicit layout: `s32[3] {1, 2, 3}`
// alone would read `{1, 2, 3}` as a layout.
std::string WithLayout1D(const std::string& text) { return WithRank1Layouts(text); }

std::vector<std::string> WithLayout1D(const std::vector<std::string>& texts) {
  std::vector<std::string> out;
  for (const auto& t : texts) out.push_back(WithLayout1D(t));
  return out;
}

void ExpectRun(const std::string& hlo, const std::vector<std::string>& args_in, const std::string& expected_in,
               std::vector<int64_t> layout = {}) {
  const std::vector<std::string> args = WithLayout1D(args_in);
  const std::string expected = WithLayout1D(expected_in);
  absl::StatusOr<Literal> got = RunHloText(hlo, args);
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<Literal> want = ParseLiteral(expected);
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_TRUE(got->LogicallyEqual(*want)) << "got:  " << LiteralToString(*got)
                                          << "\nwant: " << LiteralToString(*want);
  if (!layout.empty()) {
    EXPECT_EQ(ToStdVector(got->shape().layout().minor_to_major), layout) << LiteralToString(*got);
  }
}

Literal MustRun(const std::string& hlo, const std::vector<std::string>& args) {
  absl::StatusOr<Literal> got = RunHloText(hlo, WithLayout1D(args));
  EXPECT_TRUE(got.ok()) << got.status();
  if (!got.ok()) return Literal();
  return std::move(*got);
}

constexpr char kAddF32[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
)";

// ============================================================ reduce

std::string ReduceModule(const std::string& in_shape, const std::string& out_shape, const std::string& dims) {
  return absl::StrCat("HloModule m\n", kAddF32, "ENTRY e {\n  p = ", in_shape,
                      " parameter(0)\n  z = f32[] constant(0)\n  ROOT r = ", out_shape,
                      " reduce(p, z), dimensions={", dims, "}, to_apply=add\n}\n");
}

TEST(ReductionReduce, Spec2D) {
  const std::string in = "f32[2,3] {{1, 2, 3}, {4, 5, 6}}";
  ExpectRun(ReduceModule("f32[2,3]", "f32[3]", "0"), {in}, "f32[3] {5, 7, 9}");
  ExpectRun(ReduceModule("f32[2,3]", "f32[2]", "1"), {in}, "f32[2] {6, 15}");
}

TEST(ReductionReduce, Spec3D) {
  const std::string in =
      "f32[4,2,3] {{{1,2,3},{4,5,6}}, {{1,2,3},{4,5,6}}, {{1,2,3},{4,5,6}}, {{1,2,3},{4,5,6}}}";
  ExpectRun(ReduceModule("f32[4,2,3]", "f32[2,3]", "0"), {in}, "f32[2,3] {{4, 8, 12}, {16, 20, 24}}");
  ExpectRun(ReduceModule("f32[4,2,3]", "f32[4,2]", "2"), {in}, "f32[4,2] {{6, 15}, {6, 15}, {6, 15}, {6, 15}}");
  ExpectRun(ReduceModule("f32[4,2,3]", "f32[3]", "0,1"), {in}, "f32[3] {20, 28, 36}");
  ExpectRun(ReduceModule("f32[4,2,3]", "f32[]", "0,1,2"), {in}, "f32[] 84");
  ExpectRun(ReduceModule("f32[4,2,3]", "f32[4,3]", "1"), {in},
            "f32[4,3] {{5, 7, 9}, {5, 7, 9}, {5, 7, 9}, {5, 7, 9}}");
  ExpectRun(ReduceModule("f32[4,2,3]", "f32[4,2,3]", ""), {in}, in);
}

TEST(ReductionReduce, NonDefaultLayouts) {
  ExpectRun(ReduceModule("f32[2,3]{0,1}", "f32[3]{0}", "0"), {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}"},
            "f32[3] {5, 7, 9}", {0});
  ExpectRun(ReduceModule("f32[2,3,2]{0,2,1}", "f32[3,2]{0,1}", "0"),
            {"f32[2,3,2] {{{1,2},{3,4},{5,6}},{{10,20},{30,40},{50,60}}}"},
            "f32[3,2] {{11, 22}, {33, 44}, {55, 66}}", {0, 1});
}

TEST(ReductionReduce, EmptyAndInitOnly) {
  // Reducing a zero-size dimension gives the init value.
  const std::string hlo = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY e {
  p = f32[3,0] parameter(0)
  z = f32[] constant(7)
  ROOT r = f32[3] reduce(p, z), dimensions={1}, to_apply=add
})";
  ExpectRun(hlo, {"f32[3,0] {{}, {}, {}}"}, "f32[3] {7, 7, 7}");
}

std::string Reducer(const std::string& type, const std::string& op) {
  return absl::StrCat("red {\n  a = ", type, "[] parameter(0)\n  b = ", type, "[] parameter(1)\n  ROOT r = ",
                      type, "[] ", op, "(a, b)\n}\n");
}

std::string Reduce1D(const std::string& type, const std::string& op, int64_t n, const std::string& init) {
  return absl::StrCat("HloModule m\n", Reducer(type, op), "ENTRY e {\n  p = ", type, "[", n,
                      "] parameter(0)\n  z = ", type, "[] constant(", init, ")\n  ROOT r = ", type,
                      "[] reduce(p, z), dimensions={0}, to_apply=red\n}\n");
}

TEST(ReductionReduce, MaxMinPropagateNaN) {
  ExpectRun(Reduce1D("f32", "maximum", 4, "-inf"), {"f32[4] {1, nan, 3, 2}"}, "f32[] nan");
  ExpectRun(Reduce1D("f32", "minimum", 4, "inf"), {"f32[4] {1, nan, 3, 2}"}, "f32[] nan");
  ExpectRun(Reduce1D("f32", "maximum", 4, "-inf"), {"f32[4] {1, 5, 3, 2}"}, "f32[] 5");
  ExpectRun(Reduce1D("f32", "minimum", 3, "0"), {"f32[3] {1, -0, 3}"}, "f32[] -0");
  // A long run (lanes path) with one NaN in the middle.
  std::vector<std::string> v(1000, "1");
  v[517] = "nan";
  ExpectRun(Reduce1D("f32", "maximum", 1000, "-inf"), {absl::StrCat("f32[1000] {", absl::StrJoin(v, ","), "}")},
            "f32[] nan");
}

// Long rows (the 64-lane path of float maximum / minimum): the extreme at
// every lane position and in the tail, a NaN anywhere, and +0 among -0s.
TEST(ReductionReduce, MaxMinOfLongRowsFindTheExtremeAtEveryPosition) {
  constexpr int64_t n = 203;  // three blocks of 64 lanes and a tail of 11
  for (int64_t at = 0; at < n; at += 3) {
    std::vector<std::string> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = std::to_string((i * 37) % 101 - 50);
    v[at] = "1000";
    const std::string row = absl::StrCat("f32[", n, "] {", absl::StrJoin(v, ","), "}");
    ExpectRun(Reduce1D("f32", "maximum", n, "-inf"), {row}, "f32[] 1000");
    v[at] = "-1000";
    ExpectRun(Reduce1D("f32", "minimum", n, "inf"), {absl::StrCat("f32[", n, "] {", absl::StrJoin(v, ","), "}")},
              "f32[] -1000");
    v[at] = "nan";
    ExpectRun(Reduce1D("f32", "maximum", n, "-inf"), {absl::StrCat("f32[", n, "] {", absl::StrJoin(v, ","), "}")},
              "f32[] nan");
    std::vector<std::string> zeros(n, "-0");
    zeros[at] = "0";
    const std::string zrow = absl::StrCat("f32[", n, "] {", absl::StrJoin(zeros, ","), "}");
    ExpectRun(Reduce1D("f32", "maximum", n, "-inf"), {zrow}, "f32[] 0");
    ExpectRun(Reduce1D("f32", "minimum", n, "inf"), {zrow}, "f32[] -0");
  }
}

// The documented order of a long f32 sum (docs/ops-reduction.md): 64
// lanes (element i in lane i mod 64), the tail folded into lanes 0, 1, ...,
// lanes combined as a tree (j with j + 32, then + 16, ...), then the init.
float DocumentedTreeSum(const std::vector<float>& x, float init) {
  const int64_t n = static_cast<int64_t>(x.size());
  float acc[64];
  for (int64_t j = 0; j < 64; ++j) acc[j] = x[j];
  int64_t i = 64;
  for (; i + 64 <= n; i += 64)
    for (int64_t j = 0; j < 64; ++j) acc[j] += x[i + j];
  for (int64_t j = 0; i + j < n; ++j) acc[j] += x[i + j];
  for (int64_t half = 32; half >= 1; half /= 2)
    for (int64_t j = 0; j < half; ++j) acc[j] += acc[j + half];
  return init + acc[0];
}

TEST(ReductionReduce, LongFloatSumsFollowTheDocumentedTree) {
  for (int64_t n : {64, 128, 203, 4096}) {
    // Magnitudes from 1e-3 to 1e7: every order rounds differently.
    std::vector<float> x(n);
    std::vector<std::string> text(n);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = static_cast<float>(((i * 7919) % 1000) - 500) * std::pow(10.0f, static_cast<float>(i % 11) - 4);
      text[i] = absl::StrCat(x[i]);
      x[i] = std::stof(text[i]);  // the value the text denotes
    }
    float sequential = 0.5f;
    for (float v : x) sequential += v;
    const float want = DocumentedTreeSum(x, 0.5f);
    Literal got = MustRun(Reduce1D("f32", "add", n, "0.5"),
                          {absl::StrCat("f32[", n, "] {", absl::StrJoin(text, ","), "}")});
    ASSERT_EQ(got.shape().element_type(), PrimitiveType::F32);
    EXPECT_EQ(got.GetRaw<float>(0), want) << "n = " << n << ", sequential order gives " << sequential;
    if (n >= 128) EXPECT_NE(want, sequential) << "n = " << n << ": the values do not tell orders apart";
  }
}

TEST(ReductionReduce, IntegerWrapAndBitOps) {
  ExpectRun(Reduce1D("s8", "add", 3, "0"), {"s8[3] {100, 100, 1}"}, "s8[] -55");
  ExpectRun(Reduce1D("u8", "multiply", 3, "1"), {"u8[3] {16, 16, 3}"}, "u8[] 0");
  ExpectRun(Reduce1D("s32", "maximum", 3, "-2147483648"), {"s32[3] {-5, -2, -9}"}, "s32[] -2");
  ExpectRun(Reduce1D("u32", "minimum", 3, "4294967295"), {"u32[3] {7, 4000000000, 9}"}, "u32[] 7");
  ExpectRun(Reduce1D("u32", "and", 3, "4294967295"), {"u32[3] {7, 6, 14}"}, "u32[] 6");
  ExpectRun(Reduce1D("s64", "or", 3, "0"), {"s64[3] {1, 2, 8}"}, "s64[] 11");
  ExpectRun(Reduce1D("s16", "xor", 3, "0"), {"s16[3] {5, 3, 1}"}, "s16[] 7");
}

TEST(ReductionReduce, Pred) {
  ExpectRun(Reduce1D("pred", "and", 3, "true"), {"pred[3] {1, 0, 1}"}, "pred[] false");
  ExpectRun(Reduce1D("pred", "or", 3, "false"), {"pred[3] {0, 0, 1}"}, "pred[] true");
  ExpectRun(Reduce1D("pred", "xor", 3, "false"), {"pred[3] {1, 1, 1}"}, "pred[] true");
  ExpectRun(Reduce1D("pred", "add", 2, "false"), {"pred[2] {0, 1}"}, "pred[] true");
}

TEST(ReductionReduce, Bf16RoundsEveryStep) {
  // 1 + 2^-8 rounds back to 1 in bf16 at every step; an f32 accumulator
  // would give 1 + 2^-6.
  ExpectRun(Reduce1D("bf16", "add", 5, "0"), {"bf16[5] {1, 0.00390625, 0.00390625, 0.00390625, 0.00390625}"},
            "bf16[] 1");
  // f16: 2048 + 1 = 2048 (ulp 2 at 2048), every step.
  ExpectRun(Reduce1D("f16", "add", 4, "2048"), {"f16[4] {1, 1, 1, 1}"}, "f16[] 2048");
}

TEST(ReductionReduce, ComplexAdd) {
  ExpectRun(Reduce1D("c64", "add", 2, "(0, 0)"), {"c64[2] {(1, 2), (3, -4)}"}, "c64[] (4, -2)");
}

// The spec's variadic example: max and argmax in parallel.
constexpr char kArgMax[] = R"(
argmax {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  ge = pred[] compare(b, a), direction=GE
  v = f32[] select(ge, b, a)
  i = s32[] select(ge, bi, ai)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
)";

TEST(ReductionReduce, VariadicArgMax) {
  const std::string hlo = absl::StrCat("HloModule m\n", kArgMax, R"(
ENTRY e {
  v = f32[2,4] parameter(0)
  k = s32[2,4] parameter(1)
  iv = f32[] constant(-inf)
  ik = s32[] constant(-1)
  ROOT r = (f32[2], s32[2]) reduce(v, k, iv, ik), dimensions={1}, to_apply=argmax
})");
  // value >= max picks the later of equal maxima (sequential order).
  ExpectRun(hlo, {"f32[2,4] {{3, 7, 2, 7}, {-1, -5, -2, -3}}", "s32[2,4] {{0, 1, 2, 3}, {0, 1, 2, 3}}"},
            "(f32[2], s32[2]) ({7, -1}, {3, 0})");
}

TEST(ReductionReduce, GenericReducer) {
  // sum of squares: not a plain binary reducer -> generic path.
  const std::string hlo = R"(HloModule m
sq {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  m = f32[] multiply(b, b)
  ROOT r = f32[] add(a, m)
}
ENTRY e {
  p = f32[2,3] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2] reduce(p, z), dimensions={1}, to_apply=sq
})";
  ExpectRun(hlo, {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}"}, "f32[2] {14, 77}");
}

TEST(ReductionReduce, ReducerOfWiderFloatType) {
  // bf16 inputs fed to an f32 reducer (the verifier allows differing float
  // precision): the values are converted, the result is f32.
  const std::string hlo = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY e {
  p = bf16[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
})";
  absl::StatusOr<Literal> got = RunHloText(hlo, {"bf16[4]{0} {1, 0.00390625, 0.00390625, 0.00390625}"});
  if (!got.ok()) {
    GTEST_SKIP() << "verifier rejects mixed precision: " << got.status();
  }
  EXPECT_EQ(got->GetDouble(0), 1.01171875);
}

// Deterministic pseudo-random integers.
std::vector<int64_t> Values(int64_t n, uint64_t seed, int64_t mod) {
  std::vector<int64_t> v(n);
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    v[i] = static_cast<int64_t>((s >> 33) % static_cast<uint64_t>(mod)) - mod / 2;
  }
  return v;
}

std::string LiteralText(const std::string& type, const std::vector<int64_t>& dims, const std::vector<int64_t>& v,
                        double scale = 1.0) {
  std::vector<std::string> parts;
  for (int64_t x : v) parts.push_back(scale == 1.0 ? absl::StrCat(x) : absl::StrCat(x * scale));
  return absl::StrCat(type, "[", absl::StrJoin(dims, ","), "] ", NestedBraces(dims, parts));
}

// Fast typed path == generic ctx.call path (a reducer with an extra copy is
// not recognised) for every subset of reduced dimensions.
TEST(ReductionReduce, FastEqualsGenericAllDimSubsets) {
  const std::vector<int64_t> dims = {5, 1, 7, 33};
  const std::vector<int64_t> v = Values(5 * 7 * 33, 1, 1000);
  const std::string arg = LiteralText("s32", dims, v);
  for (const char* op : {"add", "maximum", "multiply", "xor"}) {
    for (int mask = 0; mask < 16; ++mask) {
      std::vector<int64_t> red, out;
      for (int d = 0; d < 4; ++d) (mask >> d & 1 ? red : out).push_back(dims[d]);
      std::vector<std::string> rd;
      for (int d = 0; d < 4; ++d)
        if (mask >> d & 1) rd.push_back(absl::StrCat(d));
      const std::string body = absl::StrCat(
          "ENTRY e {\n  p = s32[5,1,7,33] parameter(0)\n  z = s32[] constant(", std::string(op) == "multiply" ? 1 : 0,
          ")\n  ROOT r = s32[", absl::StrJoin(out, ","), "] reduce(p, z), dimensions={", absl::StrJoin(rd, ","),
          "}, to_apply=red\n}\n");
      const std::string fast = absl::StrCat("HloModule m\n", Reducer("s32", op), body);
      const std::string slow = absl::StrCat("HloModule m\nred {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
                                            "  c = s32[] copy(b)\n  ROOT r = s32[] ",
                                            op, "(a, c)\n}\n", body);
      Literal f = MustRun(fast, {arg});
      Literal s = MustRun(slow, {arg});
      EXPECT_TRUE(f.LogicallyEqual(s)) << op << " mask " << mask << "\n" << LiteralToString(f) << "\n"
                                       << LiteralToString(s);
    }
  }
}

// Short runs are folded sequentially from the init value, exactly like the
// generic path: float sums agree bit for bit.
TEST(ReductionReduce, FastEqualsGenericFloatShortRuns) {
  const std::vector<int64_t> v = Values(6 * 40, 11, 100000);
  const std::string arg = LiteralText("f32", {6, 40}, v, 0.0137);
  for (const char* d : {"0", "1"}) {
    const std::string out = std::string(d) == "0" ? "f32[40]" : "f32[6]";
    const std::string body = absl::StrCat("ENTRY e {\n  p = f32[6,40] parameter(0)\n  z = f32[] constant(0.1)\n  ROOT r = ",
                                          out, " reduce(p, z), dimensions={", d, "}, to_apply=red\n}\n");
    Literal f = MustRun(absl::StrCat("HloModule m\n", Reducer("f32", "add"), body), {arg});
    Literal s = MustRun(absl::StrCat("HloModule m\nred {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
                                     "  c = f32[] copy(b)\n  ROOT r = f32[] add(a, c)\n}\n",
                                     body),
                        {arg});
    EXPECT_TRUE(f.LogicallyEqual(s)) << LiteralToString(f) << "\n" << LiteralToString(s);
  }
}

// bf16/f16 add and multiply follow XLA:CPU's tree (reduce_tree.h):
// windows of 32 along long reduced dims, "same" padding split evenly, the
// window sums reduced again, every step rounded. A large first element
// makes the ones after it vanish inside its window only, so each result
// tells the window boundaries apart (values checked against XLA's).
TEST(ReductionReduce, NarrowFloatSumsFollowXlasTree) {
  auto ones_after = [](int64_t n, int64_t first) {
    std::vector<int64_t> v(n, 1);
    v[0] = first;
    return v;
  };
  // 64 = two windows of 32: 256 (+31 ones lost) + 32. Sequential: 256.
  ExpectRun(Reduce1D("bf16", "add", 64, "0"), {LiteralText("bf16", {64}, ones_after(64, 256))}, "bf16[] 288");
  // 100: windows of 18, 32, 32, 18 (padding 14 each side): 256 + 32 + 32
  // + 18 = 338. Padding all high would give 256 + 32 + 32 + 4 = 324.
  ExpectRun(Reduce1D("bf16", "add", 100, "0"), {LiteralText("bf16", {100}, ones_after(100, 256))}, "bf16[] 338");
  // f16: 2048 + 31 ones stays 2048; + 32.
  ExpectRun(Reduce1D("f16", "add", 64, "0"), {LiteralText("f16", {64}, ones_after(64, 2048))}, "f16[] 2080");
  // 40x40 over both dims: 2x2 windows of 20x20 (padding 12), each
  // stagnating at 256 (the first with its 256 in front), then 4 x 256.
  const std::string two_d = absl::StrCat("HloModule m\n", Reducer("bf16", "add"),
                                         "ENTRY e {\n  p = bf16[40,40] parameter(0)\n  z = bf16[] constant(0)\n"
                                         "  ROOT r = bf16[] reduce(p, z), dimensions={0,1}, to_apply=red\n}\n");
  ExpectRun(two_d, {LiteralText("bf16", {40, 40}, ones_after(1600, 256))}, "bf16[] 1024");
  // Kept dimensions are independent: the same rows side by side.
  const std::string rows = absl::StrCat("HloModule m\n", Reducer("bf16", "add"),
                                        "ENTRY e {\n  p = bf16[3,100] parameter(0)\n  z = bf16[] constant(0)\n"
                                        "  ROOT r = bf16[3] reduce(p, z), dimensions={1}, to_apply=red\n}\n");
  std::vector<int64_t> three;
  for (int i = 0; i < 3; ++i) {
    const std::vector<int64_t> row = ones_after(100, 256);
    three.insert(three.end(), row.begin(), row.end());
  }
  ExpectRun(rows, {LiteralText("bf16", {3, 100}, three)}, "bf16[3] {338, 338, 338}");
  // The result does not depend on the thread count.
  const int width = ThreadPoolWidth();
  std::vector<std::string> got;
  for (int w : {1, 2, 3}) {
    SetThreadPoolWidth(w);
    got.push_back(LiteralToString(MustRun(two_d, {LiteralText("bf16", {40, 40}, ones_after(1600, 256))})));
  }
  SetThreadPoolWidth(width);
  EXPECT_EQ(got[0], got[1]);
  EXPECT_EQ(got[0], got[2]);
}

TEST(ReductionReduce, LargeSumExactAndThreadIndependent) {
  const int64_t n = 200003;
  std::vector<int64_t> v = Values(n, 7, 8);
  double want = 0;
  for (int64_t x : v) want += x * 0.25;
  const std::string arg = LiteralText("f32", {n}, v, 0.25);
  const std::string hlo = ReduceModule(absl::StrCat("f32[", n, "]"), "f32[]", "0");
  Literal a = MustRun(hlo, {arg});
  EXPECT_EQ(a.GetDouble(0), want);
  // Inexact sums are bit-identical for any pool width.
  std::vector<int64_t> w = Values(n, 9, 100000);
  const std::string arg2 = LiteralText("f32", {n}, w, 0.001);
  const int width = ThreadPoolWidth();
  SetThreadPoolWidth(1);
  Literal r1 = MustRun(hlo, {arg2});
  SetThreadPoolWidth(4);
  Literal r4 = MustRun(hlo, {arg2});
  SetThreadPoolWidth(width);
  EXPECT_EQ(r1.GetFloatBits(0), r4.GetFloatBits(0));
}

// ============================================================ reduce-window

std::string ReduceWindowModule(const std::string& reducer, const std::string& in_shape,
                               const std::string& out_shape, const std::string& init, const std::string& window) {
  return absl::StrCat("HloModule m\n", reducer, "ENTRY e {\n  p = ", in_shape, " parameter(0)\n  z = f32[] constant(",
                      init, ")\n  ROOT r = ", out_shape, " reduce-window(p, z), window={", window,
                      "}, to_apply=red\n}\n");
}

TEST(ReductionReduceWindow, SpecMinValidAndSame) {
  const std::string red = Reducer("f32", "minimum");
  const std::string in = "f32[5] {10000, 1000, 100, 10, 1}";
  ExpectRun(ReduceWindowModule(red, "f32[5]", "f32[2]", "inf", "size=3 stride=2"), {in}, "f32[2] {100, 1}");
  ExpectRun(ReduceWindowModule(red, "f32[5]", "f32[3]", "inf", "size=3 stride=2 pad=1_1"), {in},
            "f32[3] {1000, 10, 1}");
}

TEST(ReductionReduceWindow, MaxPool2x3) {
  const std::string in = "f32[4,6] {{7, 2, 5, 3, 10, 2}, {3, 8, 9, 3, 4, 2}, {1, 5, 7, 5, 6, 1}, {0, 6, 2, 10, 2, 1}}";
  ExpectRun(ReduceWindowModule(Reducer("f32", "maximum"), "f32[4,6]", "f32[2,2]", "-inf", "size=2x3 stride=2x3"),
            {in}, "f32[2,2] {{9, 10}, {7, 10}}");
  // Same through the generic path (a reducer with a copy).
  const std::string generic = "red {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = f32[] copy(b)\n"
                              "  ROOT r = f32[] maximum(a, c)\n}\n";
  ExpectRun(ReduceWindowModule(generic, "f32[4,6]", "f32[2,2]", "-inf", "size=2x3 stride=2x3"), {in},
            "f32[2,2] {{9, 10}, {7, 10}}");
  // Non-default layouts.
  ExpectRun(ReduceWindowModule(Reducer("f32", "maximum"), "f32[4,6]{0,1}", "f32[2,2]{0,1}", "-inf",
                               "size=2x3 stride=2x3"),
            {in}, "f32[2,2] {{9, 10}, {7, 10}}", {0, 1});
}

TEST(ReductionReduceWindow, Dilations) {
  const std::string add = Reducer("f32", "add");
  // lhs_dilate=2: [1 _ 2 _ 3], windows of 2.
  ExpectRun(ReduceWindowModule(add, "f32[3]", "f32[4]", "0", "size=2 lhs_dilate=2"), {"f32[3] {1, 2, 3}"},
            "f32[4] {1, 2, 2, 3}");
  // rhs_dilate=2: windows {x0,x2}, {x1,x3}, {x2,x4}.
  ExpectRun(ReduceWindowModule(add, "f32[5]", "f32[3]", "0", "size=2 rhs_dilate=2"),
            {"f32[5] {1, 2, 3, 4, 5}"}, "f32[3] {4, 6, 8}");
  // Padding positions are skipped: the init value enters once per window.
  ExpectRun(ReduceWindowModule(add, "f32[3]", "f32[3]", "10", "size=3 pad=1_1"), {"f32[3] {1, 2, 3}"},
            "f32[3] {13, 16, 15}");
}

TEST(ReductionReduceWindow, Variadic) {
  const std::string hlo = absl::StrCat("HloModule m\n", kArgMax, R"(
ENTRY e {
  v = f32[5] parameter(0)
  k = s32[5] parameter(1)
  iv = f32[] constant(-inf)
  ik = s32[] constant(-1)
  ROOT r = (f32[4], s32[4]) reduce-window(v, k, iv, ik), window={size=2}, to_apply=argmax
})");
  ExpectRun(hlo, {"f32[5] {3, 1, 4, 1, 5}", "s32[5] {0, 1, 2, 3, 4}"}, "(f32[4], s32[4]) ({3, 4, 4, 5}, {0, 2, 2, 4})");
}

TEST(ReductionReduceWindow, IntFastEqualsGeneric) {
  const std::vector<int64_t> v = Values(6 * 9, 3, 100);
  const std::string arg = LiteralText("s32", {6, 9}, v);
  const std::string body = R"(ENTRY e {
  p = s32[6,9] parameter(0)
  z = s32[] constant(0)
  ROOT r = s32[3,5] reduce-window(p, z), window={size=2x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=2x1}, to_apply=red
})";
  Literal f = MustRun(absl::StrCat("HloModule m\n", Reducer("s32", "add"), body), {arg});
  Literal s = MustRun(absl::StrCat("HloModule m\nred {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
                                   "  c = s32[] copy(b)\n  ROOT r = s32[] add(a, c)\n}\n",
                                   body),
                      {arg});
  EXPECT_TRUE(f.LogicallyEqual(s)) << LiteralToString(f) << "\n" << LiteralToString(s);
}

// ============================================================ select-and-scatter

std::string SasModule(const std::string& dir, const std::string& in_shape, const std::string& src_shape,
                      const std::string& window, bool generic = false) {
  std::string sel = absl::StrCat("sel {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = pred[] compare(a, b), direction=",
                                 dir, "\n}\n");
  std::string sc = generic ? "sc {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = f32[] copy(b)\n  ROOT r = f32[] add(a, c)\n}\n"
                           : "sc {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}\n";
  if (generic)
    sel = absl::StrCat("sel {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = f32[] copy(b)\n  ROOT r = pred[] compare(a, c), direction=",
                       dir, "\n}\n");
  return absl::StrCat("HloModule m\n", sel, sc, "ENTRY e {\n  p = ", in_shape, " parameter(0)\n  s = ", src_shape,
                      " parameter(1)\n  z = f32[] constant(0)\n  ROOT r = ", in_shape,
                      " select-and-scatter(p, s, z), window={", window, "}, select=sel, scatter=sc\n}\n");
}

TEST(ReductionSelectAndScatter, NonOverlapping) {
  const std::string in = "f32[4,6] {{7, 2, 5, 3, 10, 2}, {3, 8, 9, 3, 4, 2}, {1, 5, 7, 5, 6, 1}, {0, 6, 2, 10, 2, 1}}";
  const std::string want =
      "f32[4,6] {{0, 0, 0, 0, 6, 0}, {0, 0, 2, 0, 0, 0}, {0, 0, 3, 0, 0, 0}, {0, 0, 0, 1, 0, 0}}";
  for (bool generic : {false, true})
    ExpectRun(SasModule("GE", "f32[4,6]", "f32[2,2]", "size=2x3 stride=2x3", generic),
              {in, "f32[2,2] {{2, 6}, {3, 1}}"}, want);
}

TEST(ReductionSelectAndScatter, OverlappingTiesAndPadding) {
  const std::string in = "f32[5] {1, 5, 2, 5, 3}";
  for (bool generic : {false, true}) {
    // GE keeps the first of equal maxima; GT moves to the later one.
    ExpectRun(SasModule("GE", "f32[5]", "f32[3]", "size=3", generic), {in, "f32[3] {10, 20, 30}"},
              "f32[5] {0, 30, 0, 30, 0}");
    ExpectRun(SasModule("GT", "f32[5]", "f32[3]", "size=3", generic), {in, "f32[3] {10, 20, 30}"},
              "f32[5] {0, 10, 0, 50, 0}");
    // Padding is never selected.
    ExpectRun(SasModule("GE", "f32[5]", "f32[5]", "size=3 pad=1_1", generic), {in, "f32[5] {1, 2, 3, 4, 5}"},
              "f32[5] {0, 6, 0, 9, 0}");
  }
}

// ============================================================ map

TEST(ReductionMap, FastAndGeneric) {
  ExpectRun(R"(HloModule m
f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] subtract(b, a)
}
ENTRY e {
  x = f32[2,2] parameter(0)
  y = f32[2,2] parameter(1)
  ROOT r = f32[2,2] map(x, y), dimensions={0,1}, to_apply=f
})",
            {"f32[2,2] {{1, 2}, {3, 4}}", "f32[2,2] {{10, 20}, {30, 40}}"}, "f32[2,2] {{9, 18}, {27, 36}}");
  ExpectRun(R"(HloModule m
f {
  a = f32[] parameter(0)
  m = f32[] multiply(a, a)
  one = f32[] constant(1)
  ROOT r = f32[] add(m, one)
}
ENTRY e {
  x = f32[3]{0} parameter(0)
  ROOT r = f32[3] map(x), dimensions={0}, to_apply=f
})",
            {"f32[3] {1, 2, 3}"}, "f32[3] {2, 5, 10}");
  // Result type differs from the operand type; non-default layout.
  ExpectRun(R"(HloModule m
f {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = s32[2,2]{0,1} parameter(0)
  y = s32[2,2]{0,1} parameter(1)
  ROOT r = pred[2,2]{0,1} map(x, y), dimensions={0,1}, to_apply=f
})",
            {"s32[2,2] {{1, 5}, {3, 4}}", "s32[2,2] {{2, 2}, {3, 9}}"}, "pred[2,2] {{1, 0}, {0, 1}}", {0, 1});
}

// ============================================================ sort

TEST(ReductionSort, SpecThreeOperands) {
  const std::string hlo = R"(HloModule m
cmp {
  p0 = s32[] parameter(0)
  p1 = s32[] parameter(1)
  p2 = s32[] parameter(2)
  p3 = s32[] parameter(3)
  p4 = f32[] parameter(4)
  p5 = f32[] parameter(5)
  ROOT lt = pred[] compare(p0, p1), direction=LT
}
ENTRY e {
  a = s32[2] parameter(0)
  b = s32[2] parameter(1)
  c = f32[2] parameter(2)
  ROOT s = (s32[2], s32[2], f32[2]) sort(a, b, c), dimensions={0}, to_apply=cmp
})";
  ExpectRun(hlo, {"s32[2] {3, 1}", "s32[2] {42, 50}", "f32[2] {-3, 1.1}"},
            "(s32[2], s32[2], f32[2]) ({1, 3}, {50, 42}, {1.1, -3})");
}

std::string SortModule(const std::string& type, const std::string& shape, int dim, const std::string& root,
                       bool stable = true) {
  return absl::StrCat("HloModule m\ncmp {\n  a = ", type, "[] parameter(0)\n  b = ", type, "[] parameter(1)\n",
                      root, "\n}\nENTRY e {\n  x = ", shape, " parameter(0)\n  ROOT s = ", shape,
                      " sort(x), dimensions={", dim, "}", stable ? ", is_stable=true" : "", ", to_apply=cmp\n}\n");
}

TEST(ReductionSort, Dimensions) {
  const std::string lt = "  ROOT r = pred[] compare(a, b), direction=LT";
  const std::string in = "f32[2,3] {{3, 1, 2}, {0, 5, -1}}";
  ExpectRun(SortModule("f32", "f32[2,3]", 1, lt), {in}, "f32[2,3] {{1, 2, 3}, {-1, 0, 5}}");
  ExpectRun(SortModule("f32", "f32[2,3]", 0, lt), {in}, "f32[2,3] {{0, 1, -1}, {3, 5, 2}}");
  ExpectRun(SortModule("f32", "f32[2,3]{0,1}", 1, lt), {in}, "f32[2,3] {{1, 2, 3}, {-1, 0, 5}}", {0, 1});
  // GT, and compare(b, a) LT == GT.
  ExpectRun(SortModule("s32", "s32[4]", 0, "  ROOT r = pred[] compare(a, b), direction=GT"), {"s32[4] {2, -7, 9, 0}"},
            "s32[4] {9, 2, 0, -7}");
  ExpectRun(SortModule("s32", "s32[4]", 0, "  ROOT r = pred[] compare(b, a), direction=LT", false),
            {"s32[4] {2, -7, 9, 0}"}, "s32[4] {9, 2, 0, -7}");
  ExpectRun(SortModule("u8", "u8[3]", 0, "  ROOT r = pred[] compare(a, b), direction=LT"), {"u8[3] {200, 3, 100}"},
            "u8[3] {3, 100, 200}");
}

TEST(ReductionSort, TotalOrderNaNAndZeros) {
  const std::string cmp = "  ROOT r = pred[] compare(a, b), direction=LT, type=TOTALORDER";
  ExpectRun(SortModule("f32", "f32[6]", 0, cmp), {"f32[6] {nan, 1, -0, -inf, 0, -nan}"},
            "f32[6] {-nan, -inf, -0, 0, 1, nan}");
  ExpectRun(SortModule("bf16", "bf16[4]", 0, cmp), {"bf16[4] {2, -0, 0, -1}"}, "bf16[4] {-1, -0, 0, 2}");
}

TEST(ReductionSort, StableKeysWithValues) {
  // Ties keep their input order (values tell them apart).
  const std::string hlo = R"(HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=GT
}
ENTRY e {
  k = f32[6] parameter(0)
  v = s32[6] parameter(1)
  ROOT s = (f32[6], s32[6]) sort(k, v), dimensions={0}, is_stable=true, to_apply=cmp
})";
  ExpectRun(hlo, {"f32[6] {1, 3, 1, 2, 3, 1}", "s32[6] {0, 1, 2, 3, 4, 5}"},
            "(f32[6], s32[6]) ({3, 3, 2, 1, 1, 1}, {1, 4, 3, 0, 2, 5})");
}

TEST(ReductionSort, GenericComparatorMatchesFast) {
  // |a| < |b| needs the generic path.
  ExpectRun(SortModule("s32", "s32[5]", 0,
                       "  x = s32[] abs(a)\n  y = s32[] abs(b)\n  ROOT r = pred[] compare(x, y), direction=LT"),
            {"s32[5] {-3, 2, -1, 3, 0}"}, "s32[5] {0, -1, 2, -3, 3}");
  // A comparator with a copy (generic) sorts like the plain one (fast).
  const std::vector<int64_t> v = Values(4 * 50, 5, 20);
  const std::string arg = LiteralText("s32", {4, 50}, v);
  Literal f = MustRun(SortModule("s32", "s32[4,50]", 1, "  ROOT r = pred[] compare(a, b), direction=LT"), {arg});
  Literal s = MustRun(SortModule("s32", "s32[4,50]", 1, "  c = s32[] copy(b)\n  ROOT r = pred[] compare(a, c), direction=LT"),
                      {arg});
  EXPECT_TRUE(f.LogicallyEqual(s));
}

// ============================================================ topk

TEST(ReductionTopK, SpecExample) {
  const std::string hlo = R"(HloModule m
ENTRY e {
  x = f32[2,3] parameter(0)
  ROOT t = (f32[2,1], s32[2,1]) topk(x), k=1, largest=true
})";
  ExpectRun(hlo, {"f32[2,3] {{0.1, 0.3, 0.1}, {0.7, 0.2, -0.1}}"}, "(f32[2,1], s32[2,1]) ({{0.3}, {0.7}}, {{1}, {0}})");
}

TEST(ReductionTopK, TiesNaNAndSmallest) {
  ExpectRun(R"(HloModule m
ENTRY e {
  x = f32[5] parameter(0)
  ROOT t = (f32[3], s32[3]) topk(x), k=3, largest=true
})",
            {"f32[5] {2, nan, 5, 2, 5}"}, "(f32[3], s32[3]) ({nan, 5, 5}, {1, 2, 4})");
  ExpectRun(R"(HloModule m
ENTRY e {
  x = s32[5] parameter(0)
  ROOT t = (s32[2], s32[2]) topk(x), k=2, largest=false
})",
            {"s32[5] {4, -1, 7, -1, 0}"}, "(s32[2], s32[2]) ({-1, -1}, {1, 3})");
}

}  // namespace
}  // namespace hlo::cpu
