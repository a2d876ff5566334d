// Tests of scan (ops_scan.cc): worked examples, and prefix sums on random
// shapes, scan dimensions and layouts compared with a plain loop written
// here; multi-carry, variadic and carry-only forms; the errors.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backend_cpu/executor.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"

namespace hlo::cpu {
namespace {

Literal RunScan(const std::string& hlo, const std::vector<std::string>& args) {
  absl::StatusOr<Literal> r = RunHloText(hlo, args);
  EXPECT_TRUE(r.ok()) << r.status() << "\n" << hlo;
  return r.ok() ? *std::move(r) : Literal();
}

void ExpectLiteral(const Literal& got, const std::string& want_text) {
  absl::StatusOr<Literal> want = ParseLiteral(want_text);
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_TRUE(got.LogicallyEqual(*want)) << "got:  " << LiteralToString(got) << "\nwant: " << want_text;
}

// Runs `hlo` on literal arguments (built in code, not from text).
Literal RunOnLiterals(const std::string& hlo, std::vector<Literal> args) {
  auto module = ParseModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return Literal();
  EXPECT_TRUE(VerifyModule(**module).ok());
  auto r = RunModule(**module, args);
  EXPECT_TRUE(r.ok()) << r.status() << "\n" << hlo;
  return r.ok() ? std::move(r->results[0]) : Literal();
}

// A running sum along dimension `dim` of f32[dims] (layout `m2m`, empty:
// the default): the combiner (x, acc) -> (acc + x, acc + x) works on slices.
std::string CumSumModule(const std::vector<int64_t>& dims, int64_t dim, bool reverse,
                         const std::vector<int64_t>& m2m = {}, const std::string& extra = "") {
  std::vector<int64_t> slice = dims;
  slice.erase(slice.begin() + dim);
  const std::string s = absl::StrCat("f32[", absl::StrJoin(slice, ","), "]");
  std::string in = absl::StrCat("f32[", absl::StrJoin(dims, ","), "]");
  if (!m2m.empty()) absl::StrAppend(&in, "{", absl::StrJoin(m2m, ","), "}");
  return absl::StrCat("HloModule m\ncumsum {\n  x = ", s, " parameter(0)\n  acc = ", s, " parameter(1)\n  a = ", s,
                      " add(acc, x)\n  ROOT t = (", s, ", ", s, ") tuple(a, a)\n}\nENTRY e {\n  p = ", in,
                      " parameter(0)\n  c = f32[] constant(0)\n  z = ", s, " broadcast(c), dimensions={}\n  ROOT r = (",
                      in, ", ", s, ") scan(p, z), dimensions={", dim, "}, num_carries=1, is_reverse=",
                      reverse ? "true" : "false", extra, ", to_apply=cumsum\n}\n");
}

TEST(ReductionScan, CumSumForwardAndReverse) {
  ExpectLiteral(RunScan(CumSumModule({4}, 0, false), {"f32[4]{0} {1, 2, 3, 4}"}),
                "(f32[4], f32[]) ({1, 3, 6, 10}, 10)");
  ExpectLiteral(RunScan(CumSumModule({4}, 0, true), {"f32[4]{0} {1, 2, 3, 4}"}),
                "(f32[4], f32[]) ({10, 9, 7, 4}, 10)");
}

TEST(ReductionScan, AssociativeHintKeepsTheSequentialOrder) {
  // 1e8 + 1 - 1e8 in f32: the sequential order loses the 1 (a tree order
  // would not); is_associative=true must not change the result.
  const std::string in = "f32[3]{0} {100000000, 1, -100000000}";
  Literal hinted = RunScan(CumSumModule({3}, 0, false, {}, ", is_associative=true"), {in});
  ExpectLiteral(hinted, "(f32[3], f32[]) ({100000000, 100000000, 0}, 0)");
  EXPECT_TRUE(hinted.LogicallyEqual(RunScan(CumSumModule({3}, 0, false), {in})));
}

// Prefix sums along every dimension of random shapes with random layouts,
// against a loop over row-major indices.
TEST(ReductionScan, RandomCumSumsMatchLoop) {
  std::mt19937_64 rng(41);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t rank = 1 + rng() % 3;
    std::vector<int64_t> dims(rank), m2m(rank);
    for (int64_t i = 0; i < rank; ++i) dims[i] = rng() % 4 + (trial % 7 == 0 ? 0 : 1);
    for (int64_t i = 0; i < rank; ++i) m2m[i] = rank - 1 - i;
    std::shuffle(m2m.begin(), m2m.end(), rng);
    const int64_t d = rng() % rank;
    const bool reverse = rng() % 2;
    int64_t n = 1;
    for (int64_t x : dims) n *= x;
    std::vector<int64_t> v(n);
    for (int64_t& x : v) x = static_cast<int64_t>(rng() % 19) - 9;
    // Expected: per line along d, the running sum in scan order.
    int64_t inner = 1;
    for (int64_t i = d + 1; i < rank; ++i) inner *= dims[i];
    std::vector<int64_t> want(n);
    std::vector<int64_t> last(n / std::max<int64_t>(dims[d], 1), 0);
    for (int64_t t = 0; t < dims[d]; ++t) {
      const int64_t pos = reverse ? dims[d] - 1 - t : t;
      for (int64_t line = 0; line < static_cast<int64_t>(last.size()); ++line) {
        const int64_t e = (line / inner * dims[d] + pos) * inner + line % inner;
        last[line] += v[e];
        want[e] = last[line];
      }
    }
    const std::string shape = absl::StrCat("f32[", absl::StrJoin(dims, ","), "]{", absl::StrJoin(m2m, ","), "} dim ", d);
    std::vector<Literal> args;
    args.emplace_back(Shape::Array(PrimitiveType::F32, dims));  // row-major: slot = element
    for (int64_t e = 0; e < n; ++e) args[0].SetDouble(e, static_cast<double>(v[e]));
    Literal got = RunOnLiterals(CumSumModule(dims, d, reverse, m2m), std::move(args));
    ASSERT_TRUE(got.IsTuple()) << shape;
    const Literal& out = got.tuple_elements()[0];
    EXPECT_EQ(ToStdVector(out.shape().layout().minor_to_major), m2m);
    std::vector<int64_t> idx(rank, 0);
    for (int64_t e = 0; e < n; ++e) {
      EXPECT_EQ(out.GetDouble(out.Slot(idx)), want[e]) << shape << " element " << e;
      for (int64_t i = rank - 1; i >= 0; --i) {
        if (++idx[i] < dims[i]) break;
        idx[i] = 0;
      }
    }
  }
}

TEST(ReductionScan, MultiCarryFibonacci) {
  // carries (a, b) -> output a, carries (b, a + b); the input only counts steps.
  const std::string hlo = R"(HloModule m
fib {
  x = s32[] parameter(0)
  a = s32[] parameter(1)
  b = s32[] parameter(2)
  s = s32[] add(a, b)
  ROOT t = (s32[], s32[], s32[]) tuple(a, b, s)
}
ENTRY e {
  p = s32[6] parameter(0)
  a = s32[] constant(0)
  b = s32[] constant(1)
  ROOT s = (s32[6], s32[], s32[]) scan(p, a, b), dimensions={0}, num_carries=2, to_apply=fib
})";
  ExpectLiteral(RunScan(hlo, {"s32[6]{0} {0, 0, 0, 0, 0, 0}"}), "(s32[6], s32[], s32[]) ({0, 1, 1, 2, 3, 5}, 8, 13)");
}

TEST(ReductionScan, VariadicInputsArraySlicesAndTwoOutputs) {
  // Scan along dimension 1 of [2,3] inputs: slices are [2]; per step the
  // outputs are x*y + acc and x - y, the carry x*y + acc.
  const std::string hlo = R"(HloModule m
body {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  acc = f32[2] parameter(2)
  m = f32[2] multiply(x, y)
  s = f32[2] add(m, acc)
  d = f32[2] subtract(x, y)
  ROOT t = (f32[2], f32[2], f32[2]) tuple(s, d, s)
}
ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  y = f32[2,3] parameter(1)
  z = f32[2] constant({10, 20})
  ROOT s = (f32[2,3], f32[2,3]{0,1}, f32[2]) scan(x, y, z), dimensions={1}, num_carries=1, is_reverse=true, to_apply=body
})";
  ExpectLiteral(RunScan(hlo, {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "f32[2,3] {{1, 1, 2}, {0, 1, 2}}"}),
                "(f32[2,3], f32[2,3], f32[2]) ({{19, 18, 16}, {37, 37, 32}}, {{0, 1, 1}, {4, 4, 4}}, {19, 37})");
}

TEST(ReductionScan, CarryOnlyAndOutputOnlyForms) {
  // One carry and no outputs: the result is the final carry (a fold).
  ExpectLiteral(RunScan(R"(HloModule m
mx {
  x = s32[] parameter(0)
  acc = s32[] parameter(1)
  ROOT r = s32[] maximum(acc, x)
}
ENTRY e {
  p = s32[5] parameter(0)
  z = s32[] constant(-100)
  ROOT s = s32[] scan(p, z), dimensions={0}, num_carries=1, to_apply=mx
})",
                    {"s32[5]{0} {3, -1, 7, 2, 7}"}),
                "s32[] 7");
  // No carries: a map along the dimension (reverse order is not visible).
  ExpectLiteral(RunScan(R"(HloModule m
neg {
  x = f32[2] parameter(0)
  ROOT r = f32[2] negate(x)
}
ENTRY e {
  p = f32[3,2] parameter(0)
  ROOT s = f32[3,2] scan(p), dimensions={0}, num_carries=0, is_reverse=true, to_apply=neg
})",
                    {"f32[3,2] {{1, 2}, {3, 4}, {5, 6}}"}),
                "f32[3,2] {{-1, -2}, {-3, -4}, {-5, -6}}");
}

TEST(ReductionScan, EmptyScanDimensionKeepsTheInit) {
  ExpectLiteral(RunScan(CumSumModule({0, 2}, 0, false), {"f32[0,2] {}"}), "(f32[0,2], f32[2]) ({}, {0, 0})");
}

// The error of a scan of f32[4] with init 0 whose to_apply is `body`.
std::string ScanError(const std::string& body) {
  const std::string hlo = absl::StrCat("HloModule m\nbody {\n", body, R"(}
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT s = (f32[4], f32[]) scan(p, z), dimensions={0}, num_carries=1, to_apply=body
})");
  absl::StatusOr<Literal> r = RunHloText(hlo, {"f32[4]{0} {1, 2, 3, 4}"});
  EXPECT_FALSE(r.ok()) << hlo;
  return r.ok() ? "" : std::string(r.status().message());
}

TEST(ReductionScan, ShapeMismatchesAreErrors) {
  // to_apply's input parameter is not the slice shape.
  EXPECT_NE(ScanError("  x = f32[3] parameter(0)\n  acc = f32[] parameter(1)\n"
                      "  ROOT t = (f32[], f32[]) tuple(acc, acc)\n")
                .find("must be a slice of input 0"),
            std::string::npos);
  // The carry changes type.
  EXPECT_NE(ScanError("  x = f32[] parameter(0)\n  acc = f32[] parameter(1)\n  c = s32[] convert(x)\n"
                      "  ROOT t = (f32[], s32[]) tuple(acc, c)\n")
                .find("carry 0 must keep the shape"),
            std::string::npos);
  // to_apply returns fewer values than outputs + carries.
  EXPECT_NE(ScanError("  x = f32[] parameter(0)\n  acc = f32[] parameter(1)\n  ROOT r = f32[] add(x, acc)\n")
                .find("to_apply returns 1 values, expected 1 outputs and 1 carries"),
            std::string::npos);
}

}  // namespace
}  // namespace hlo::cpu
