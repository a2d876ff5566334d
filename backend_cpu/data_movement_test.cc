// Tests of the data-movement family (ops_data_movement.cc): values from the
// spec's worked examples and hand-computed edge cases, run end to end
// through RunHloText.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backend_cpu/executor.h"
#include "backend_cpu/test_hlo_text.h"
#include "backend_cpu/thread_pool.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "parser/parser.h"

namespace hlo::cpu {
namespace {

// Rank-1 literal texts with their layout spelled out (see test_hlo_text.h).
std::string Lit(const std::string& text) { return WithRank1Layouts(text); }
// Runs `hlo` on `args` and expects the result to equal `expected` (a
// literal text with shape, compared logically) and to carry the layout
// `layout` (minor_to_major) when given.
void ExpectRun(const std::string& hlo, const std::vector<std::string>& args,
               const std::string& expected, std::vector<int64_t> layout = {}) {
  std::vector<std::string> fixed;
  for (const std::string& a : args) fixed.push_back(Lit(a));
  absl::StatusOr<Literal> got = RunHloText(hlo, fixed);
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<Literal> want = ParseLiteral(Lit(expected));
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_TRUE(got->LogicallyEqual(*want))
      << "got:  " << LiteralToString(*got) << "\nwant: " << LiteralToString(*want);
  if (!layout.empty()) {
    EXPECT_EQ(ToStdVector(got->shape().layout().minor_to_major), layout) << LiteralToString(*got);
  }
}

// ---------------------------------------------------------------- broadcast

TEST(DataMovementBroadcast, ScalarToMatrix) {
  ExpectRun(R"(HloModule m
ENTRY e { p = f32[] parameter(0)
  ROOT b = f32[2,3] broadcast(p), dimensions={} })",
            {"f32[] 2"}, "f32[2,3] {{2, 2, 2}, {2, 2, 2}}");
}

TEST(DataMovementBroadcast, VectorIntoEitherDim) {
  ExpectRun(R"(HloModule m
ENTRY e { p = s32[3] parameter(0)
  ROOT b = s32[2,3] broadcast(p), dimensions={1} })",
            {"s32[3] {1, 2, 3}"}, "s32[2,3] {{1, 2, 3}, {1, 2, 3}}");
  ExpectRun(R"(HloModule m
ENTRY e { p = s32[2] parameter(0)
  ROOT b = s32[2,3] broadcast(p), dimensions={0} })",
            {"s32[2] {7, 8}"}, "s32[2,3] {{7, 7, 7}, {8, 8, 8}}");
}

TEST(DataMovementBroadcast, TransposingAndColumnMajorResult) {
  // operand dim 0 -> result dim 2, operand dim 1 -> result dim 0.
  ExpectRun(R"(HloModule m
ENTRY e { p = u8[2,3] parameter(0)
  ROOT b = u8[3,2,2]{0,1,2} broadcast(p), dimensions={2,0} })",
            {"u8[2,3] {{1, 2, 3}, {4, 5, 6}}"},
            "u8[3,2,2] {{{1, 4}, {1, 4}}, {{2, 5}, {2, 5}}, {{3, 6}, {3, 6}}}", {0, 1, 2});
}

TEST(DataMovementBroadcast, PredAndComplex) {
  ExpectRun(R"(HloModule m
ENTRY e { p = pred[2] parameter(0)
  ROOT b = pred[2,2] broadcast(p), dimensions={1} })",
            {"pred[2] {true, false}"}, "pred[2,2] {{true, false}, {true, false}}");
  ExpectRun(R"(HloModule m
ENTRY e { p = c128[] parameter(0)
  ROOT b = c128[3] broadcast(p), dimensions={} })",
            {"c128[] (1.5, -2)"}, "c128[3] {(1.5, -2), (1.5, -2), (1.5, -2)}");
}

// ---------------------------------------------------------------- reshape

constexpr char kV[] =
    "f32[4,2,3] {{{10, 11, 12}, {15, 16, 17}}, {{20, 21, 22}, {25, 26, 27}},"
    " {{30, 31, 32}, {35, 36, 37}}, {{40, 41, 42}, {45, 46, 47}}}";

TEST(DataMovementReshape, SpecInOrderCollapse) {
  ExpectRun(R"(HloModule m
ENTRY e { p = f32[4,2,3] parameter(0)
  ROOT r = f32[8,3] reshape(p) })",
            {kV},
            "f32[8,3] {{10, 11, 12}, {15, 16, 17}, {20, 21, 22}, {25, 26, 27},"
            " {30, 31, 32}, {35, 36, 37}, {40, 41, 42}, {45, 46, 47}}");
}

TEST(DataMovementReshape, SpecOutOfOrderCollapse) {
  // Reshape(v, {1,2,0}, {2,6,2}) == reshape(transpose(v, {1,2,0})).
  ExpectRun(R"(HloModule m
ENTRY e { p = f32[4,2,3] parameter(0)
  t = f32[2,3,4] transpose(p), dimensions={1,2,0}
  ROOT r = f32[2,6,2] reshape(t) })",
            {kV},
            "f32[2,6,2] {{{10, 20}, {30, 40}, {11, 21}, {31, 41}, {12, 22}, {32, 42}},"
            " {{15, 25}, {35, 45}, {16, 26}, {36, 46}, {17, 27}, {37, 47}}}");
}

TEST(DataMovementReshape, ScalarAndLayouts) {
  ExpectRun(R"(HloModule m
ENTRY e { p = f32[1,1] parameter(0)
  ROOT r = f32[] reshape(p) })",
            {"f32[1,1] {{5}}"}, "f32[] 5");
  // Column-major operand and result: logical values are what counts.
  ExpectRun(R"(HloModule m
ENTRY e { p = s16[2,3]{0,1} parameter(0)
  ROOT r = s16[3,2]{0,1} reshape(p) })",
            {"s16[2,3] {{1, 2, 3}, {4, 5, 6}}"}, "s16[3,2] {{1, 2}, {3, 4}, {5, 6}}", {0, 1});
}

TEST(DataMovementReshape, DynamicReshapeFullSize) {
  ExpectRun(R"(HloModule m
ENTRY e { p = s32[6] parameter(0)
  a = s32[] constant(2)
  b = s32[] constant(3)
  ROOT r = s32[2,3] dynamic-reshape(p, a, b) })",
            {"s32[6] {1, 2, 3, 4, 5, 6}"}, "s32[2,3] {{1, 2, 3}, {4, 5, 6}}");
}

// ---------------------------------------------------------------- transpose

TEST(DataMovementTranspose, Matrix) {
  ExpectRun(R"(HloModule m
ENTRY e { p = f16[2,3] parameter(0)
  ROOT t = f16[3,2] transpose(p), dimensions={1,0} })",
            {"f16[2,3] {{1, 2, 3}, {4, 5, 6}}"}, "f16[3,2] {{1, 4}, {2, 5}, {3, 6}}");
}

TEST(DataMovementTranspose, ColumnMajorOperandAndResult) {
  ExpectRun(R"(HloModule m
ENTRY e { p = s4[2,3]{0,1} parameter(0)
  ROOT t = s4[3,2]{0,1} transpose(p), dimensions={1,0} })",
            {"s4[2,3] {{1, -2, 3}, {-4, 5, -6}}"}, "s4[3,2] {{1, -4}, {-2, 5}, {3, -6}}",
            {0, 1});
}

// A large transpose (tiled, parallel) checked element by element; same
// bits for 1 and 4 threads.
TEST(DataMovementTranspose, LargeMatchesReference) {
  const std::string hlo = R"(HloModule m
ENTRY e {
  i0 = s32[301,517] iota(), iota_dimension=0
  i1 = s32[301,517] iota(), iota_dimension=1
  k = s32[] constant(1000)
  kb = s32[301,517] broadcast(k), dimensions={}
  m = s32[301,517] multiply(i0, kb)
  v = s32[301,517] add(m, i1)
  ROOT t = s32[517,301] transpose(v), dimensions={1,0}
})";
  const int old_width = ThreadPoolWidth();
  for (int width : {1, 4}) {
    SetThreadPoolWidth(width);
    absl::StatusOr<Literal> got = RunHloText(hlo, {});
    ASSERT_TRUE(got.ok()) << got.status();
    for (int64_t j = 0; j < 517; ++j)
      for (int64_t i = 0; i < 301; ++i)
        ASSERT_EQ(got->GetInt(got->Slot({j, i})), i * 1000 + j) << j << "," << i;
  }
  SetThreadPoolWidth(old_width);
}

// Odd sizes (partial tiles) for every element byte size, through the
// tiled path; values checked one by one.
TEST(DataMovementTranspose, TiledEveryElementSize) {
  const int64_t rows = 37, cols = 45;
  for (const char* type : {"s8", "s16", "s32", "s64", "c128", "pred"}) {
    const std::string t(type);
    std::string text = t + "[37,45] {";
    for (int64_t i = 0; i < rows; ++i) {
      text += i ? ", {" : "{";
      for (int64_t j = 0; j < cols; ++j) {
        const int64_t v = (i * cols + j) % 100;
        if (j) text += ", ";
        if (t == "c128") text += "(" + std::to_string(v) + ", " + std::to_string(-v) + ")";
        else if (t == "pred") text += (v % 3 == 0) ? "true" : "false";
        else text += std::to_string(v);
      }
      text += "}";
    }
    text += "}";
    const std::string hlo = "HloModule m\nENTRY e { p = " + t + "[37,45] parameter(0)\n  ROOT r = " +
                            t + "[45,37] transpose(p), dimensions={1,0} }";
    absl::StatusOr<Literal> got = RunHloText(hlo, {text});
    ASSERT_TRUE(got.ok()) << got.status();
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t v = (i * cols + j) % 100;
        const int64_t slot = got->Slot({j, i});
        if (t == "c128") {
          ASSERT_EQ(got->GetComplex(slot), std::complex<double>(v, -v)) << t;
        } else if (t == "pred") {
          ASSERT_EQ(got->GetInt(slot), v % 3 == 0 ? 1 : 0) << t;
        } else {
          ASSERT_EQ(got->GetInt(slot), v) << t << " " << j << "," << i;
        }
      }
  }
}

// Operand and result in every layout (incl. a tiled result and one that
// makes the transpose a physical no-op), values from iotas, for 1, 2 and
// 8-byte elements; the same bits at 1 and 2 threads.
TEST(DataMovementTranspose, EveryLayoutPairMatchesReference) {
  const std::vector<std::string> in_layouts = {"{2,1,0}", "{0,1,2}", "{1,0,2}", "{0,2,1}"};
  const std::vector<std::string> out_layouts = {"{2,1,0}", "{1,2,0}", "{0,1,2}",
                                                "{2,1,0:T(8,16)}"};
  const int old_width = ThreadPoolWidth();
  for (const char* type : {"s8", "s16", "s64"}) {
    const std::string t(type);
    for (const std::string& li : in_layouts) {
      for (const std::string& lo : out_layouts) {
        const std::string in = t + "[13,40,21]" + li, out = t + "[21,13,40]" + lo;
        const std::string hlo = "HloModule m\nENTRY e {\n"
            "  i0 = " + in + " iota(), iota_dimension=0\n"
            "  i1 = " + in + " iota(), iota_dimension=1\n"
            "  i2 = " + in + " iota(), iota_dimension=2\n"
            "  k = " + t + "[] constant(3)\n  kb = " + in + " broadcast(k), dimensions={}\n"
            "  a = " + in + " multiply(i0, kb)\n  b = " + in + " add(a, i1)\n"
            "  c = " + in + " multiply(b, kb)\n  v = " + in + " add(c, i2)\n"
            "  ROOT r = " + out + " transpose(v), dimensions={2,0,1}\n}\n";
        Literal first;
        for (int width : {1, 2}) {
          SetThreadPoolWidth(width);
          absl::StatusOr<Literal> got = RunHloText(hlo, {});
          ASSERT_TRUE(got.ok()) << got.status() << "\n" << hlo;
          for (int64_t z = 0; z < 21; ++z)
            for (int64_t x = 0; x < 13; ++x)
              for (int64_t y = 0; y < 40; ++y) {
                const int64_t exact = (x * 3 + y) * 3 + z;
                const int64_t want = t == "s8" ? static_cast<int8_t>(exact) : exact;  // s8 wraps
                ASSERT_EQ(got->GetInt(got->Slot({z, x, y})), want)
                    << t << " " << li << "->" << lo << " at " << z << "," << x << "," << y;
              }
          if (width == 1) {
            first = *std::move(got);
          } else {
            ASSERT_EQ(first.size_bytes(), got->size_bytes());
            EXPECT_EQ(std::memcmp(first.data(), got->data(), first.size_bytes()), 0) << hlo;
          }
        }
      }
    }
  }
  SetThreadPoolWidth(old_width);
}

TEST(DataMovementTranspose, Rank3) {
  ExpectRun(R"(HloModule m
ENTRY e { p = s32[2,2,3] parameter(0)
  ROOT t = s32[3,2,2] transpose(p), dimensions={2,0,1} })",
            {"s32[2,2,3] {{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}, {10, 11, 12}}}"},
            "s32[3,2,2] {{{1, 4}, {7, 10}}, {{2, 5}, {8, 11}}, {{3, 6}, {9, 12}}}");
}

// ---------------------------------------------------------------- slice

TEST(DataMovementSlice, SpecExamples) {
  ExpectRun(R"(HloModule m
ENTRY e { p = f32[5] parameter(0)
  ROOT s = f32[2] slice(p), slice={[2:4]} })",
            {"f32[5] {0, 1, 2, 3, 4}"}, "f32[2] {2, 3}");
  ExpectRun(R"(HloModule m
ENTRY e { p = f32[4,3] parameter(0)
  ROOT s = f32[2,2] slice(p), slice={[2:4], [1:3]} })",
            {"f32[4,3] {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}"},
            "f32[2,2] {{7, 8}, {10, 11}}");
}

TEST(DataMovementSlice, StridedWithLayouts) {
  ExpectRun(R"(HloModule m
ENTRY e { p = s8[4,5]{0,1} parameter(0)
  ROOT s = s8[2,2]{0,1} slice(p), slice={[0:4:2], [1:5:3]} })",
            {"s8[4,5] {{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}, {10, 11, 12, 13, 14}, {15, 16, 17, 18, 19}}"},
            "s8[2,2] {{1, 4}, {11, 14}}", {0, 1});
}

// Slice, dynamic-slice and broadcast read an untiled operand in its own
// layout (no relayout first) and a tiled one through a row-major copy:
// every operand layout gives the values of the row-major formula.
TEST(DataMovementSlice, SliceDynamicSliceAndBroadcastReadEveryOperandLayout) {
  for (const std::string li : {"{2,1,0}", "{0,1,2}", "{1,0,2}", "{0,2,1}", "{2,1,0:T(4,8)}"}) {
    const std::string in = "s32[6,10,7]" + li;
    const std::string hlo = "HloModule m\nENTRY e {\n"
        "  i0 = " + in + " iota(), iota_dimension=0\n"
        "  i1 = " + in + " iota(), iota_dimension=1\n"
        "  i2 = " + in + " iota(), iota_dimension=2\n"
        "  k = s32[] constant(100)\n  kb = " + in + " broadcast(k), dimensions={}\n"
        "  ten = s32[] constant(10)\n  tb = " + in + " broadcast(ten), dimensions={}\n"
        "  a = " + in + " multiply(i0, kb)\n  b = " + in + " multiply(i1, tb)\n"
        "  c = " + in + " add(a, b)\n  v = " + in + " add(c, i2)\n"
        "  s = s32[2,3,3]{2,1,0} slice(v), slice={[1:5:2], [2:9:3], [0:7:3]}\n"
        "  j = s32[] constant(4)\n  z = s32[] constant(9)\n"
        "  d = s32[3,2,7]{0,1,2} dynamic-slice(v, j, z, j), dynamic_slice_sizes={3,2,7}\n"
        "  x = s32[7,2,6,10]{3,2,1,0} broadcast(v), dimensions={2,3,0}\n"
        "  ROOT t = (s32[2,3,3]{2,1,0}, s32[3,2,7]{0,1,2}, s32[7,2,6,10]{3,2,1,0}) tuple(s, d, x)\n}\n";
    absl::StatusOr<Literal> got = RunHloText(hlo, {});
    ASSERT_TRUE(got.ok()) << got.status() << "\n" << hlo;
    auto value = [](int64_t p, int64_t q, int64_t r) { return 100 * p + 10 * q + r; };
    const Literal& s = got->tuple_elements()[0];
    for (int64_t a = 0; a < 2; ++a)
      for (int64_t b = 0; b < 3; ++b)
        for (int64_t c = 0; c < 3; ++c)
          ASSERT_EQ(s.GetInt(s.Slot({a, b, c})), value(1 + 2 * a, 2 + 3 * b, 3 * c)) << li;
    // Start indices clamp to (3, 8, 0): the window must fit.
    const Literal& d = got->tuple_elements()[1];
    for (int64_t a = 0; a < 3; ++a)
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t c = 0; c < 7; ++c)
          ASSERT_EQ(d.GetInt(d.Slot({a, b, c})), value(3 + a, 8 + b, c)) << li;
    const Literal& x = got->tuple_elements()[2];
    for (int64_t a = 0; a < 7; ++a)
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t p = 0; p < 6; ++p)
          for (int64_t q = 0; q < 10; ++q)
            ASSERT_EQ(x.GetInt(x.Slot({a, b, p, q})), value(p, q, a)) << li;
  }
}

// ---------------------------------------------------------------- dynamic-slice

TEST(DataMovementDynamicSlice, SpecExamples) {
  ExpectRun(R"(HloModule m
ENTRY e { p = f32[5] parameter(0)
  i = s32[] parameter(1)
  ROOT s = f32[2] dynamic-slice(p, i), dynamic_slice_sizes={2} })",
            {"f32[5] {0, 1, 2, 3, 4}", "s32[] 2"}, "f32[2] {2, 3}");
  ExpectRun(R"(HloModule m
ENTRY e { p = f32[4,3] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  ROOT s = f32[2,2] dynamic-slice(p, i, j), dynamic_slice_sizes={2,2} })",
            {"f32[4,3] {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}", "s32[] 2", "s32[] 1"},
            "f32[2,2] {{7, 8}, {10, 11}}");
}

TEST(DataMovementDynamicSlice, StartIndicesAreClamped) {
  const std::string hlo = R"(HloModule m
ENTRY e { p = f32[4,3] parameter(0)
  i = s64[] parameter(1)
  j = s64[] parameter(2)
  ROOT s = f32[2,2] dynamic-slice(p, i, j), dynamic_slice_sizes={2,2} })";
  const std::string b = "f32[4,3] {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}";
  ExpectRun(hlo, {b, "s64[] 10", "s64[] 200"}, "f32[2,2] {{7, 8}, {10, 11}}");
  ExpectRun(hlo, {b, "s64[] -5", "s64[] 0"}, "f32[2,2] {{0, 1}, {3, 4}}");
}

// ---------------------------------------------------------------- dynamic-update-slice

TEST(DataMovementDynamicUpdateSlice, SpecExamples) {
  ExpectRun(R"(HloModule m
ENTRY e { p = f32[5] parameter(0)
  u = f32[2] parameter(1)
  i = s32[] parameter(2)
  ROOT s = f32[5] dynamic-update-slice(p, u, i) })",
            {"f32[5] {0, 1, 2, 3, 4}", "f32[2] {5, 6}", "s32[] 2"}, "f32[5] {0, 1, 5, 6, 4}");
  ExpectRun(R"(HloModule m
ENTRY e { p = f32[4,3] parameter(0)
  u = f32[3,2] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT s = f32[4,3] dynamic-update-slice(p, u, i, j) })",
            {"f32[4,3] {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}",
             "f32[3,2] {{12, 13}, {14, 15}, {16, 17}}", "s32[] 1", "s32[] 1"},
            "f32[4,3] {{0, 1, 2}, {3, 12, 13}, {6, 14, 15}, {9, 16, 17}}");
}

TEST(DataMovementDynamicUpdateSlice, ClampedAndColumnMajor) {
  ExpectRun(R"(HloModule m
ENTRY e { p = s32[3,3]{0,1} parameter(0)
  u = s32[2,2] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT s = s32[3,3]{0,1} dynamic-update-slice(p, u, i, j) })",
            {"s32[3,3] {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}", "s32[2,2] {{1, 2}, {3, 4}}",
             "s32[] 7", "s32[] -1"},
            "s32[3,3] {{0, 0, 0}, {1, 2, 0}, {3, 4, 0}}", {0, 1});
}

// ---------------------------------------------------------------- concatenate

TEST(DataMovementConcatenate, SpecExamples) {
  ExpectRun(R"(HloModule m
ENTRY e { a = s32[2] parameter(0)
  b = s32[2] parameter(1)
  c = s32[2] parameter(2)
  ROOT r = s32[6] concatenate(a, b, c), dimensions={0} })",
            {"s32[2] {2, 3}", "s32[2] {4, 5}", "s32[2] {6, 7}"}, "s32[6] {2, 3, 4, 5, 6, 7}");
  ExpectRun(R"(HloModule m
ENTRY e { a = s32[3,2] parameter(0)
  b = s32[1,2] parameter(1)
  ROOT r = s32[4,2] concatenate(a, b), dimensions={0} })",
            {"s32[3,2] {{1, 2}, {3, 4}, {5, 6}}", "s32[1,2] {{7, 8}}"},
            "s32[4,2] {{1, 2}, {3, 4}, {5, 6}, {7, 8}}");
}

TEST(DataMovementConcatenate, InnerDimMixedLayouts) {
  ExpectRun(R"(HloModule m
ENTRY e { a = bf16[2,1]{0,1} parameter(0)
  b = bf16[2,2] parameter(1)
  ROOT r = bf16[2,3]{0,1} concatenate(a, b), dimensions={1} })",
            {"bf16[2,1] {{1}, {2}}", "bf16[2,2] {{3, 4}, {5, 6}}"},
            "bf16[2,3] {{1, 3, 4}, {2, 5, 6}}", {0, 1});
}

// ---------------------------------------------------------------- pad

TEST(DataMovementPad, EdgeAndInterior) {
  // low 1, high 2, interior 1 on a length-3 vector: 1+3+2+2 = 8.
  ExpectRun(R"(HloModule m
ENTRY e { p = f32[3] parameter(0)
  z = f32[] parameter(1)
  ROOT r = f32[8] pad(p, z), padding=1_2_1 })",
            {"f32[3] {1, 2, 3}", "f32[] -1"}, "f32[8] {-1, 1, -1, 2, -1, 3, -1, -1}");
}

TEST(DataMovementPad, NegativePaddingCropsInteriorPadded) {
  // Interior first ({1,0,2,0,3}), then remove 2 low, add 1 high: {2,0,3,9}.
  ExpectRun(R"(HloModule m
ENTRY e { p = s32[3] parameter(0)
  x = s32[] constant(9)
  ROOT r = s32[4] pad(p, x), padding=-2_1_1 })",
            {"s32[3] {1, 2, 3}"}, "s32[4] {2, 9, 3, 9}");
  ExpectRun(R"(HloModule m
ENTRY e { p = s32[2,3]{0,1} parameter(0)
  x = s32[] constant(0)
  ROOT r = s32[3,2]{0,1} pad(p, x), padding=1_0x-1_0 })",
            {"s32[2,3] {{1, 2, 3}, {4, 5, 6}}"}, "s32[3,2] {{0, 0}, {2, 3}, {5, 6}}", {0, 1});
}

TEST(DataMovementPad, EverythingCropped) {
  ExpectRun(R"(HloModule m
ENTRY e { p = s32[3] parameter(0)
  x = s32[] constant(7)
  ROOT r = s32[2] pad(p, x), padding=-3_2 })",
            {"s32[3] {1, 2, 3}"}, "s32[2] {7, 7}");
}

// ---------------------------------------------------------------- reverse

TEST(DataMovementReverse, Dims) {
  ExpectRun(R"(HloModule m
ENTRY e { p = s32[2,3] parameter(0)
  ROOT r = s32[2,3] reverse(p), dimensions={1} })",
            {"s32[2,3] {{1, 2, 3}, {4, 5, 6}}"}, "s32[2,3] {{3, 2, 1}, {6, 5, 4}}");
  ExpectRun(R"(HloModule m
ENTRY e { p = c64[2,3]{0,1} parameter(0)
  ROOT r = c64[2,3] reverse(p), dimensions={0,1} })",
            {"c64[2,3] {{1, 2, 3}, {4, 5, (6, 1)}}"}, "c64[2,3] {{(6, 1), 5, 4}, {3, 2, 1}}");
}

// ---------------------------------------------------------------- iota

TEST(DataMovementIota, SpecExamples) {
  ExpectRun(R"(HloModule m
ENTRY e { ROOT i = s32[4,8] iota(), iota_dimension=0 })",
            {},
            "s32[4,8] {{0, 0, 0, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1, 1, 1},"
            " {2, 2, 2, 2, 2, 2, 2, 2}, {3, 3, 3, 3, 3, 3, 3, 3}}");
  ExpectRun(R"(HloModule m
ENTRY e { ROOT i = s32[4,8]{0,1} iota(), iota_dimension=1 })",
            {},
            "s32[4,8] {{0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7},"
            " {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}}",
            {0, 1});
}

TEST(DataMovementIota, OtherTypes) {
  ExpectRun("HloModule m\nENTRY e { ROOT i = f32[3] iota(), iota_dimension=0 }", {},
            "f32[3] {0, 1, 2}");
  ExpectRun("HloModule m\nENTRY e { ROOT i = c64[2,2] iota(), iota_dimension=1 }", {},
            "c64[2,2] {{0, 1}, {0, 1}}");
  ExpectRun("HloModule m\nENTRY e { ROOT i = f8e4m3fn[4] iota(), iota_dimension=0 }", {},
            "f8e4m3fn[4] {0, 1, 2, 3}");
  // u8 wraps past 255.
  absl::StatusOr<Literal> got =
      RunHloText("HloModule m\nENTRY e { ROOT i = u8[300] iota(), iota_dimension=0 }", {});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->GetInt(255), 255);
  EXPECT_EQ(got->GetInt(256), 0);
  EXPECT_EQ(got->GetInt(299), 43);
}

// ---------------------------------------------------------------- gather

constexpr char kM33[] = "s32[3,3] {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}";

TEST(DataMovementGather, Rows) {
  ExpectRun(R"(HloModule m
ENTRY e { p = s32[3,3] parameter(0)
  i = s32[2] parameter(1)
  ROOT g = s32[2,3] gather(p, i), offset_dims={1}, collapsed_slice_dims={0},
      start_index_map={0}, index_vector_dim=1, slice_sizes={1,3} })",
            {kM33, "s32[2] {0, 2}"}, "s32[2,3] {{1, 2, 3}, {7, 8, 9}}");
}

TEST(DataMovementGather, EmptyCollapsedSliceIntoNonEmptyResultIsAnError) {
  // slice_sizes={0,3}: collapsed dim 0 takes no row, yet the result has six
  // elements (found by the fuzzer: the kernel read past the operand).
  absl::StatusOr<Literal> got = RunHloText(R"(HloModule m
ENTRY e { p = s32[3,3] parameter(0)
  i = s32[2] parameter(1)
  ROOT g = s32[2,3] gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={0,3} })",
                                           {Lit("s32[3,3] {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}"), Lit("s32[2] {0, 2}")});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(std::string(got.status().message()).find("slice size 0 in collapsed or batching dimension 0"),
            std::string::npos)
      << got.status();
}

TEST(DataMovementGather, ColumnsAndClamping) {
  // Index 5 is clamped to 3 - 1 = 2, -4 to 0.
  ExpectRun(R"(HloModule m
ENTRY e { p = s32[3,3]{0,1} parameter(0)
  i = s64[3] parameter(1)
  ROOT g = s32[3,3]{0,1} gather(p, i), offset_dims={0}, collapsed_slice_dims={1},
      start_index_map={1}, index_vector_dim=1, slice_sizes={3,1} })",
            {kM33, "s64[3] {5, -4, 1}"}, "s32[3,3] {{3, 1, 2}, {6, 4, 5}, {9, 7, 8}}", {0, 1});
}

TEST(DataMovementGather, EveryIndexTypeReadsItsValues) {
  // Indices of each integer type, read from storage: an unsigned index
  // above the signed range of its width and a negative signed one both
  // clamp to the edges, never wrap to the other side.
  const std::string hlo_tmpl = R"(HloModule m
ENTRY e { p = f32[300,2] parameter(0)
  i = T[3] parameter(1)
  ROOT g = f32[3,2] gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0},
      index_vector_dim=1, slice_sizes={1,2} })";
  std::string table = "f32[300,2] {";
  for (int r = 0; r < 300; ++r) table += (r ? ", {" : "{") + std::to_string(r) + ", " + std::to_string(-r) + "}";
  table += "}";
  struct Case { const char* type; const char* indices; const char* want; };
  const Case cases[] = {
      {"u8", "{200, 1, 255}", "f32[3,2] {{200, -200}, {1, -1}, {255, -255}}"},
      {"s8", "{-56, 1, 127}", "f32[3,2] {{0, 0}, {1, -1}, {127, -127}}"},
      {"u16", "{65535, 2, 299}", "f32[3,2] {{299, -299}, {2, -2}, {299, -299}}"},
      {"s16", "{-1, 3, 298}", "f32[3,2] {{0, 0}, {3, -3}, {298, -298}}"},
      {"u32", "{4294967295, 4, 5}", "f32[3,2] {{299, -299}, {4, -4}, {5, -5}}"},
      {"s32", "{-2147483648, 6, 2147483647}", "f32[3,2] {{0, 0}, {6, -6}, {299, -299}}"},
      {"s64", "{-9223372036854775808, 7, 9223372036854775807}", "f32[3,2] {{0, 0}, {7, -7}, {299, -299}}"},
      {"u64", "{18446744073709551615, 8, 9}", "f32[3,2] {{299, -299}, {8, -8}, {9, -9}}"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type);
    std::string hlo = hlo_tmpl;
    hlo.replace(hlo.find("T[3]"), 1, c.type);
    ExpectRun(hlo, {table, std::string(c.type) + "[3] " + c.indices}, c.want);
  }
}

TEST(DataMovementGather, WindowsAndIndexVectorDim0) {
  // 2x2 windows at (1,0) and (2,1) (clamped from (2,2)); the index vectors
  // run along dim 0 of the indices.
  ExpectRun(R"(HloModule m
ENTRY e { p = s32[3,3] parameter(0)
  i = s32[2,2] parameter(1)
  ROOT g = s32[2,2,2] gather(p, i), offset_dims={1,2}, collapsed_slice_dims={},
      start_index_map={0,1}, index_vector_dim=0, slice_sizes={2,2} })",
            {kM33, "s32[2,2] {{1, 2}, {0, 2}}"},
            "s32[2,2,2] {{{4, 5}, {7, 8}}, {{5, 6}, {8, 9}}}");
}

TEST(DataMovementGather, GatherNdPoints) {
  ExpectRun(R"(HloModule m
ENTRY e { p = s32[3,3] parameter(0)
  i = s32[2,2] parameter(1)
  ROOT g = s32[2] gather(p, i), offset_dims={}, collapsed_slice_dims={0,1},
      start_index_map={1,0}, index_vector_dim=1, slice_sizes={1,1} })",
            {kM33, "s32[2,2] {{0, 2}, {2, 1}}"}, "s32[2] {7, 6}");
}

TEST(DataMovementGather, BatchingDims) {
  // operand [2 batch, 3]; indices [2 batch]: out[b] = operand[b, idx[b]].
  ExpectRun(R"(HloModule m
ENTRY e { p = f32[2,3] parameter(0)
  i = s32[2,1] parameter(1)
  ROOT g = f32[2] gather(p, i), offset_dims={}, collapsed_slice_dims={1},
      operand_batching_dims={0}, start_indices_batching_dims={0},
      start_index_map={1}, index_vector_dim=1, slice_sizes={1,1} })",
            {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "s32[2,1] {{2}, {0}}"}, "f32[2] {3, 4}");
  // Batch dim of the indices second, offset window of 2 along the data dim.
  ExpectRun(R"(HloModule m
ENTRY e { p = f32[3,2] parameter(0)
  i = s32[2,2] parameter(1)
  ROOT g = f32[2,2,2] gather(p, i), offset_dims={2}, collapsed_slice_dims={},
      operand_batching_dims={1}, start_indices_batching_dims={1},
      start_index_map={0}, index_vector_dim=2, slice_sizes={2,1} })",
            {"f32[3,2] {{1, 2}, {3, 4}, {5, 6}}", "s32[2,2] {{0, 1}, {2, 0}}"},
            "f32[2,2,2] {{{1, 3}, {4, 6}}, {{3, 5}, {2, 4}}}");
}

// A large gather (parallel over batch positions) against a reference.
TEST(DataMovementGather, LargeMatchesReference) {
  const int64_t n = 3000, rows = 500, width = 64;
  std::string idx = "s32[3000]{0} {";
  for (int64_t k = 0; k < n; ++k) idx += (k ? ", " : "") + std::to_string((k * 7919) % 517);
  idx += "}";
  const std::string hlo = R"(HloModule m
ENTRY e {
  i0 = s32[500,64] iota(), iota_dimension=0
  i1 = s32[500,64] iota(), iota_dimension=1
  k = s32[] constant(1000)
  kb = s32[500,64] broadcast(k), dimensions={}
  v = s32[500,64] add(multiply(i0, kb), i1)
  i = s32[3000] parameter(0)
  ROOT g = s32[3000,64] gather(v, i), offset_dims={1}, collapsed_slice_dims={0},
      start_index_map={0}, index_vector_dim=1, slice_sizes={1,64}
})";
  absl::StatusOr<Literal> got = RunHloText(hlo, {idx});
  ASSERT_TRUE(got.ok()) << got.status();
  for (int64_t k = 0; k < n; ++k) {
    const int64_t r = std::min<int64_t>((k * 7919) % 517, rows - 1);  // clamped
    for (int64_t c = 0; c < width; ++c) ASSERT_EQ(got->GetInt(got->Slot({k, c})), r * 1000 + c);
  }
}

// ---------------------------------------------------------------- scatter

constexpr char kAddF32[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
)";

TEST(DataMovementScatter, AddRowsWithDuplicates) {
  ExpectRun(std::string("HloModule m\n") + kAddF32 + R"(
ENTRY e { p = f32[3,3] parameter(0)
  i = s32[3] parameter(1)
  u = f32[3,3] parameter(2)
  ROOT s = f32[3,3] scatter(p, i, u), update_window_dims={1}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add })",
            {"f32[3,3] {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}", "s32[3] {0, 2, 0}",
             "f32[3,3] {{1, 2, 3}, {4, 5, 6}, {10, 20, 30}}"},
            "f32[3,3] {{12, 23, 34}, {1, 1, 1}, {5, 6, 7}}");
}

TEST(DataMovementScatter, OutOfBoundsWindowSkippedWhole) {
  // Windows of 2 along dim 1 at column 2 would stick out: skipped entirely
  // (not partly applied); column -1 too; column 1 is applied.
  ExpectRun(R"(HloModule m
mul { a = s32[] parameter(0)  b = s32[] parameter(1)  ROOT r = s32[] multiply(a, b) }
ENTRY e { p = s32[2,3] parameter(0)
  i = s32[3] parameter(1)
  u = s32[3,2,2] parameter(2)
  ROOT s = s32[2,3] scatter(p, i, u), update_window_dims={1,2}, inserted_window_dims={},
      scatter_dims_to_operand_dims={1}, index_vector_dim=1, to_apply=mul })",
            {"s32[2,3] {{1, 1, 1}, {1, 1, 1}}", "s32[3] {2, -1, 1}",
             "s32[3,2,2] {{{9, 9}, {9, 9}}, {{8, 8}, {8, 8}}, {{2, 3}, {4, 5}}}"},
            "s32[2,3] {{1, 2, 3}, {1, 4, 5}}");
}

TEST(DataMovementScatter, OverwriteLastWinsAndGenericInOrder) {
  // Root = parameter(1): plain assignment, applied in order (last wins).
  ExpectRun(R"(HloModule m
set { a = f32[] parameter(0)  ROOT b = f32[] parameter(1) }
ENTRY e { p = f32[4] parameter(0)
  i = s32[3,1] parameter(1)
  u = f32[3] parameter(2)
  ROOT s = f32[4] scatter(p, i, u), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=set })",
            {"f32[4] {0, 0, 0, 0}", "s32[3,1] {{1}, {3}, {1}}", "f32[3] {5, 6, 7}"},
            "f32[4] {0, 7, 0, 6}");
  // f(cur, upd) = 2*cur + upd is order dependent: 2*(2*1 + 5) + 7 = 21.
  ExpectRun(R"(HloModule m
f { a = f32[] parameter(0)  b = f32[] parameter(1)  two = f32[] add(a, a)
    ROOT r = f32[] add(two, b) }
ENTRY e { p = f32[4] parameter(0)
  i = s32[3] parameter(1)
  u = f32[3] parameter(2)
  ROOT s = f32[4] scatter(p, i, u), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=f })",
            {"f32[4] {1, 1, 1, 1}", "s32[3] {1, 3, 1}", "f32[3] {5, 6, 7}"},
            "f32[4] {1, 21, 1, 8}");
}

TEST(DataMovementScatter, SwappedOperandsNonCommutativeFastPathShape) {
  // maximum(update, current) via swapped parameters, on a column-major operand.
  ExpectRun(R"(HloModule m
mx { a = s32[] parameter(0)  b = s32[] parameter(1)  ROOT r = s32[] maximum(b, a) }
ENTRY e { p = s32[2,2]{0,1} parameter(0)
  i = s32[2,2] parameter(1)
  u = s32[2] parameter(2)
  ROOT s = s32[2,2]{0,1} scatter(p, i, u), update_window_dims={}, inserted_window_dims={0,1},
      scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=mx })",
            {"s32[2,2] {{5, 5}, {5, 5}}", "s32[2,2] {{0, 1}, {1, 0}}", "s32[2] {9, 3}"},
            "s32[2,2] {{5, 9}, {5, 5}}", {0, 1});
}

TEST(DataMovementScatter, Variadic) {
  ExpectRun(R"(HloModule m
f { a = s32[] parameter(0)  b = f32[] parameter(1)  c = s32[] parameter(2)  d = f32[] parameter(3)
    x = s32[] add(a, c)  y = f32[] multiply(b, d)  ROOT t = (s32[], f32[]) tuple(x, y) }
ENTRY e { p = s32[3] parameter(0)
  q = f32[3] parameter(1)
  i = s32[2] parameter(2)
  u = s32[2] parameter(3)
  v = f32[2] parameter(4)
  ROOT s = (s32[3], f32[3]) scatter(p, q, i, u, v), update_window_dims={},
      inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1,
      to_apply=f })",
            {"s32[3] {1, 2, 3}", "f32[3] {1, 2, 3}", "s32[2] {2, 2}", "s32[2] {10, 20}",
             "f32[2] {0.5, 4}"},
            "(s32[3], f32[3]) ({1, 2, 33}, {1, 2, 6})");
}

TEST(DataMovementScatter, BatchingDims) {
  // operand [2 batch, 4]; per batch b, add updates[b, :] at idx[b].
  ExpectRun(std::string("HloModule m\n") + kAddF32 + R"(
ENTRY e { p = f32[2,4] parameter(0)
  i = s32[2,1] parameter(1)
  u = f32[2,2] parameter(2)
  ROOT s = f32[2,4] scatter(p, i, u), update_window_dims={1}, inserted_window_dims={},
      input_batching_dims={0}, scatter_indices_batching_dims={0},
      scatter_dims_to_operand_dims={1}, index_vector_dim=1, to_apply=add })",
            {"f32[2,4] {{0, 0, 0, 0}, {0, 0, 0, 0}}", "s32[2,1] {{2}, {0}}",
             "f32[2,2] {{1, 2}, {3, 4}}"},
            "f32[2,4] {{0, 0, 1, 2}, {3, 4, 0, 0}}");
}

TEST(DataMovementScatter, ImplicitIndexVectorDim) {
  // index_vector_dim == rank(indices): scalar indices per position.
  ExpectRun(std::string("HloModule m\n") + kAddF32 + R"(
ENTRY e { p = f32[5] parameter(0)
  i = s32[2,2] parameter(1)
  u = f32[2,2] parameter(2)
  ROOT s = f32[5] scatter(p, i, u), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=2, to_apply=add })",
            {"f32[5] {0, 0, 0, 0, 0}", "s32[2,2] {{0, 4}, {4, 9}}",
             "f32[2,2] {{1, 2}, {3, 4}}"},
            "f32[5] {1, 0, 0, 0, 5}");
}

// ---------------------------------------------------------------- dimension sizes

TEST(DataMovementDimensionSize, GetAndSet) {
  ExpectRun(R"(HloModule m
ENTRY e { p = f32[3,7] parameter(0)
  ROOT g = s32[] get-dimension-size(p), dimensions={1} })",
            {"f32[3,7] {...}"}, "s32[] 7");
  absl::StatusOr<Literal> got = RunHloText(R"(HloModule m
ENTRY e { p = f32[4] parameter(0)
  n = s32[] constant(2)
  ROOT s = f32[<=4] set-dimension-size(p, n), dimensions={0} })",
                                           {Lit("f32[4] {1, 2, 3, 4}")});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->shape().dim(0), 4);
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(got->GetDouble(i), i + 1);
}

}  // namespace
}  // namespace hlo::cpu
