// ragged-dot and scaled-dot (ops_dot.cc, ops_scaled_dot.cc): worked
// examples, and random problems (dimension orders, layouts, group sizes of
// every rank XLA allows, negative and overlapping groups, block shapes)
// against reference loops written here from XLA's definitions.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/linalg_test_util.h"
#include "backend_cpu/thread_pool.h"
#include "parser/parser.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

using namespace linalg_test;  // NOLINT: the shared test helpers

// ================================================================ ragged-dot

TEST(LinalgRaggedDot, RaggedNonContracting) {
  // Rows 0-1 use rhs[0], rows 2-4 use rhs[1].
  Literal r = RunHlo(Module({"f32[5,2]{1,0}", "f32[2,2,3]{2,1,0}", "s32[2]{0}"}, "f32[5,3]{1,0}", "ragged-dot",
                            "lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, "
                            "rhs_group_dims={0}"),
                     {"f32[5,2] {{1, 0}, {0, 1}, {1, 0}, {0, 1}, {1, 1}}",
                      "f32[2,2,3] {{{1, 2, 3}, {4, 5, 6}}, {{10, 20, 30}, {40, 50, 60}}}", "s32[2]{0} {2, 3}"});
  EXPECT_EQ(Values(r), std::vector<double>({1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60, 50, 70, 90}));
  // Rows beyond the sum of the group sizes are zero.
  r = RunHlo(Module({"f32[5,2]{0,1}", "f32[2,2,3]{0,1,2}", "s32[2]{0}"}, "f32[5,3]{0,1}", "ragged-dot",
                    "lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, "
                    "rhs_group_dims={0}"),
             {"f32[5,2] {{1, 0}, {0, 1}, {1, 0}, {0, 1}, {1, 1}}",
              "f32[2,2,3] {{{1, 2, 3}, {4, 5, 6}}, {{10, 20, 30}, {40, 50, 60}}}", "s32[2]{0} {1, 2}"});
  EXPECT_EQ(Values(r), std::vector<double>({1, 2, 3, 40, 50, 60, 10, 20, 30, 0, 0, 0, 0, 0, 0}));
}

TEST(LinalgRaggedDot, RaggedContracting) {
  // Group 0 contracts k=0, group 1 contracts k=1..3; result [G, m, n].
  Literal r = RunHlo(Module({"f32[2,4]{1,0}", "f32[4,3]{1,0}", "s64[2]{0}"}, "f32[2,2,3]{2,1,0}", "ragged-dot",
                            "lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}"),
                     {"f32[2,4] {{1, 1, 1, 1}, {1, 2, 3, 4}}", "f32[4,3] {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}",
                      "s64[2]{0} {1, 3}"});
  EXPECT_EQ(Values(r), std::vector<double>({1, 0, 0, 1, 0, 0, 1, 2, 2, 4, 6, 7}));
}

TEST(LinalgRaggedDot, RaggedBatchIsAPlainDot) {
  // The groups of a ragged batch dim do not change the product (XLA and JAX
  // expand this mode to an ordinary dot_general).
  Literal r = RunHlo(Module({"f32[2,1,2]{2,1,0}", "f32[2,2,1]{2,1,0}", "s32[3]{0}"}, "f32[2,1,1]{2,1,0}", "ragged-dot",
                            "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                            "rhs_contracting_dims={1}, lhs_ragged_dims={0}"),
                     {"f32[2,1,2] {{{1, 2}}, {{3, 4}}}", "f32[2,2,1] {{{5}, {6}}, {{7}, {8}}}", "s32[3]{0} {0, 1, 0}"});
  EXPECT_EQ(Values(r), std::vector<double>({17, 53}));
}

TEST(LinalgRaggedDot, PerBatchGroupSizes) {
  // group_sizes [b, G]: batch 0 puts both rows in group 1, batch 1 splits them.
  Literal r = RunHlo(Module({"f32[2,2,1]{2,1,0}", "f32[2,2,1,1]{3,2,1,0}", "s32[2,2]{1,0}"}, "f32[2,2,1]{2,1,0}",
                            "ragged-dot",
                            "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, "
                            "rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}"),
                     {"f32[2,2,1] {{{1}, {2}}, {{3}, {4}}}", "f32[2,2,1,1] {{{{10}}, {{20}}}, {{{100}}, {{200}}}}",
                      "s32[2,2] {{0, 2}, {1, 1}}"});
  EXPECT_EQ(Values(r), std::vector<double>({100, 200, 60, 800}));
}

// ragged-dot of an [M,1] lhs with G [1,1] rhs matrices, ragged rows.
std::vector<double> RaggedRows(const std::string& lhs, const std::string& rhs, const std::string& sizes) {
  auto dims = [](const std::string& text) { return text.substr(0, text.find(' ')); };
  const std::string out = absl::StrCat("f32[", dims(lhs).substr(4));
  return Values(RunHlo(Module({dims(lhs), dims(rhs), dims(sizes)}, out, "ragged-dot",
                              "lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, "
                              "rhs_group_dims={0}"),
                       {lhs, rhs, sizes}));
}

TEST(LinalgRaggedDot, NegativeSizesMakeGroupsOverlap) {
  // Sizes {3, -1, 2}: ends 3, 2, 4, so group 2 starts at 2 and row 2 is in
  // groups 0 and 2 (the products are added); nothing is clamped.
  EXPECT_EQ(RaggedRows("f32[4,1]{1,0} {{1}, {2}, {3}, {4}}", "f32[3,1,1]{2,1,0} {{{1}}, {{10}}, {{100}}}",
                       "s32[3]{0} {3, -1, 2}"),
            std::vector<double>({1, 2, 303, 400}));
}

TEST(LinalgRaggedDot, InfInAnotherGroupsRhsGivesNaNAsXla) {
  // XLA masks the lhs rows of other groups to 0 and contracts over all
  // groups: 0 * inf of group 1's rhs makes row 0 (group 0) NaN.
  const std::vector<double> v =
      RaggedRows("f32[2,1]{1,0} {{1}, {2}}", "f32[2,1,1]{2,1,0} {{{3}}, {{inf}}}", "s32[2]{0} {1, 1}");
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_TRUE(std::isinf(v[1]));
}

TEST(LinalgRaggedDot, BadGroupSizesShapeIsAnError) {
  auto r = RunHloText(Module({"f32[2,3,1]{2,1,0}", "f32[2,2,1,1]{3,2,1,0}", "s32[3,2]{1,0}"}, "f32[2,3,1]{2,1,0}",
                             "ragged-dot",
                             "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, "
                             "rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}"),
                      {LitText("f32", {2, 3, 1}, std::vector<double>(6, 1)),
                       LitText("f32", {2, 2, 1, 1}, std::vector<double>(4, 1)), LitText("s32", {3, 2}, {1, 1, 1, 1, 1, 1})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("group_sizes must be [G] or [2,2]"), std::string::npos) << r.status();
}

// A dimension of a random ragged-dot problem: kind 'b' batch, 'f' lhs free,
// 'c' contracting, 'n' rhs free, 'g' group; `id` numbers the dims of a kind.
using Label = std::pair<char, int>;
using Assignment = std::map<Label, int64_t>;

// Calls f for every assignment of values to `labels` (sizes from `size`).
template <typename F>
void ForAll(const std::vector<Label>& labels, const std::map<Label, int64_t>& size, Assignment& v, F f,
            size_t i = 0) {
  if (i == labels.size()) return f(v);
  for (int64_t x = 0; x < size.at(labels[i]); ++x) {
    v[labels[i]] = x;
    ForAll(labels, size, v, f, i + 1);
  }
}

int64_t Flat(const std::vector<Label>& labels, const std::map<Label, int64_t>& size, const Assignment& v) {
  int64_t f = 0;
  for (const Label& l : labels) f = f * size.at(l) + v.at(l);
  return f;
}

std::vector<int64_t> PositionsOf(const std::vector<Label>& dims, char kind, int count) {
  std::vector<int64_t> pos;
  for (int id = 0; id < count; ++id)
    pos.push_back(std::find(dims.begin(), dims.end(), Label{kind, id}) - dims.begin());
  return pos;
}

// mode 1: ragged lhs free dim, 2: ragged contracting dim, 3: ragged batch dim.
void RandomRaggedDot(int mode, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int nb = (mode == 3 ? 1 : 0) + rng() % 2, nf = 1 + rng() % 2, nc = 1 + rng() % 2, nn = rng() % 2;
  std::map<Label, int64_t> size;
  std::vector<Label> lhs, rhs;
  for (int i = 0; i < nb; ++i) size[{'b', i}] = 1 + rng() % 3, lhs.push_back({'b', i}), rhs.push_back({'b', i});
  for (int i = 0; i < nf; ++i) size[{'f', i}] = rng() % 5, lhs.push_back({'f', i});
  for (int i = 0; i < nc; ++i) size[{'c', i}] = rng() % 4, lhs.push_back({'c', i}), rhs.push_back({'c', i});
  for (int i = 0; i < nn; ++i) size[{'n', i}] = 1 + rng() % 3, rhs.push_back({'n', i});
  const int64_t G = 1 + rng() % 3;
  size[{'g', 0}] = G;
  if (mode == 1) rhs.push_back({'g', 0});
  std::shuffle(lhs.begin(), lhs.end(), rng);
  std::shuffle(rhs.begin(), rhs.end(), rng);
  const char rkind = mode == 1 ? 'f' : mode == 2 ? 'c' : 'b';
  const Label ragged{rkind, static_cast<int>(rng() % (mode == 1 ? nf : mode == 2 ? nc : nb))};
  const int64_t ragged_pos = std::find(lhs.begin(), lhs.end(), ragged) - lhs.begin();
  // group_sizes: [batch dims (before the ragged one in mode 3), dims of the
  // ragged dim's kind before it (lhs order for free, lc order for
  // contracting), G], or [G].
  std::vector<Label> prefix;
  for (int i = 0; i < (mode == 3 ? ragged.second : nb); ++i) prefix.push_back({'b', i});
  for (int64_t p = 0; p < ragged_pos; ++p)
    if (mode == 1 && lhs[p].first == 'f') prefix.push_back(lhs[p]);
  for (int i = 0; mode == 2 && i < ragged.second; ++i) prefix.push_back({'c', i});
  const bool full = rng() % 2;
  std::vector<int64_t> gs_dims;
  int64_t rows = 1;
  for (const Label& l : prefix) gs_dims.push_back(size[l]), rows *= full ? size[l] : 1;
  if (!full) gs_dims.clear();
  gs_dims.push_back(G);
  std::vector<double> gsv(rows * G);
  for (double& x : gsv) x = static_cast<double>(rng() % 5) - 1;  // -1..3
  auto dims_of = [&](const std::vector<Label>& ls) {
    std::vector<int64_t> d;
    for (const Label& l : ls) d.push_back(size[l]);
    return d;
  };
  auto random_vals = [&](int64_t n) {
    std::vector<double> v(n);
    for (double& x : v) x = static_cast<double>(rng() % 7) - 3;
    return v;
  };
  const std::vector<int64_t> ld = dims_of(lhs), rd = dims_of(rhs);
  const std::vector<double> lv = random_vals(Prod(ld)), rv = random_vals(Prod(rd));
  // Output labels: [G] (mode 2), batch, lhs free in lhs order, rhs free in rhs order.
  std::vector<Label> out, inner;
  if (mode == 2) out.push_back({'g', 0});
  for (int i = 0; i < nb; ++i) out.push_back({'b', i});
  for (const Label& l : lhs)
    if (l.first == 'f') out.push_back(l);
  for (const Label& l : rhs)
    if (l.first == 'n') out.push_back(l);
  for (int i = 0; i < nc; ++i) inner.push_back({'c', i});
  if (mode == 1) inner.push_back({'g', 0});
  auto in_group = [&](const Assignment& v) {
    if (mode == 3) return true;
    const int64_t row = full ? Flat(prefix, size, v) : 0, g = v.at({'g', 0}), r = v.at(ragged);
    int64_t start = 0;
    for (int64_t i = 0; i < g; ++i) start += static_cast<int64_t>(gsv[row * G + i]);
    return start <= r && r < start + static_cast<int64_t>(gsv[row * G + g]);
  };
  const std::vector<int64_t> od = dims_of(out);
  std::vector<double> want(Prod(od), 0);
  Assignment v;
  ForAll(out, size, v, [&](Assignment& vo) {
    double sum = 0;
    ForAll(inner, size, vo, [&](Assignment& vi) {
      if (in_group(vi)) sum += lv[Flat(lhs, size, vi)] * rv[Flat(rhs, size, vi)];
    });
    want[Flat(out, size, vo)] = sum;
  });
  std::string attrs = absl::StrCat(
      "lhs_batch_dims={", absl::StrJoin(PositionsOf(lhs, 'b', nb), ","), "}, lhs_contracting_dims={",
      absl::StrJoin(PositionsOf(lhs, 'c', nc), ","), "}, rhs_batch_dims={", absl::StrJoin(PositionsOf(rhs, 'b', nb), ","),
      "}, rhs_contracting_dims={", absl::StrJoin(PositionsOf(rhs, 'c', nc), ","), "}, lhs_ragged_dims={", ragged_pos, "}");
  if (mode == 1) absl::StrAppend(&attrs, ", rhs_group_dims={", PositionsOf(rhs, 'g', 1)[0], "}");
  const std::string hlo = Module({ShapeText("f32", ld, RandomM2m(ld.size(), rng)),
                                  ShapeText("f32", rd, RandomM2m(rd.size(), rng)),
                                  ShapeText("s32", gs_dims, DefaultM2m(gs_dims.size()))},
                                 ShapeText("f32", od, RandomM2m(od.size(), rng)), "ragged-dot", attrs);
  Literal r = RunHlo(hlo, {LitText("f32", ld, lv), LitText("f32", rd, rv), LitText("s32", gs_dims, gsv)});
  EXPECT_EQ(Values(r), want) << hlo;
}

TEST(LinalgRaggedDot, RandomRaggedFreeDim) {
  for (uint64_t seed = 0; seed < 60; ++seed) RandomRaggedDot(1, 100 + seed);
}
TEST(LinalgRaggedDot, RandomRaggedContractingDim) {
  for (uint64_t seed = 0; seed < 60; ++seed) RandomRaggedDot(2, 200 + seed);
}
TEST(LinalgRaggedDot, RandomRaggedBatchDim) {
  for (uint64_t seed = 0; seed < 30; ++seed) RandomRaggedDot(3, 300 + seed);
}

// ================================================================ scaled-dot

TEST(LinalgScaledDot, MxBlocksAlongTheContractingDim) {
  // f8e4m3fn operands, f8e8m0fnu scales with blocks of 2 along k: the lhs
  // row 0 is scaled by 2 (k 0-1) and 0.5 (k 2-3), row 1 by 1 and 4; the rhs
  // by 1 (k 0-1) and 2 (k 2-3) in both columns.
  Literal r = RunHlo(Module({"f8e4m3fn[2,4]{1,0}", "f8e8m0fnu[2,2]{1,0}", "f8e4m3fn[4,2]{1,0}", "f8e8m0fnu[2,2]{1,0}"},
                            "f32[2,2]{1,0}", "scaled-dot", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
                     {"f8e4m3fn[2,4] {{1, 2, 3, 4}, {1, 1, 1, 1}}", "f8e8m0fnu[2,2] {{2, 0.5}, {1, 4}}",
                      "f8e4m3fn[4,2] {{1, 0}, {0, 1}, {1, 1}, {2, 0}}", "f8e8m0fnu[2,2] {{1, 1}, {2, 2}}"});
  // lhs' = {{2, 4, 1.5, 2}, {1, 1, 4, 4}}, rhs' = {{1, 0}, {0, 1}, {2, 2}, {4, 0}}.
  EXPECT_EQ(Values(r), std::vector<double>({13, 7, 25, 9}));
}

TEST(LinalgScaledDot, DequantizedProductIsRoundedToTheCommonType) {
  // f16 operand and f16 scale multiply in f16: (1 + 2^-10) * 3 rounds (ties
  // to even) to 3 + 2^-8 before the dot.
  Literal r = RunHlo(Module({"f16[1,1]{1,0}", "f16[1,1]{1,0}", "f32[1,1]{1,0}", "f32[]"}, "f32[1,1]{1,0}",
                            "scaled-dot", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
                     {"f16[1,1] {{1.0009765625}}", "f16[1,1] {{3}}", "f32[1,1] {{1}}", "f32[] 7"});
  EXPECT_EQ(Values(r), std::vector<double>({3.00390625}));
}

TEST(LinalgScaledDot, ScalarScaleLeavesItsOperandUnscaled) {
  // XLA reads a rank-0 scale as "this side is not scaled".
  Literal r = RunHlo(Module({"bf16[1,2]{1,0}", "bf16[]", "f32[2,1]{1,0}", "f32[1,1]{1,0}"}, "f32[1,1]{1,0}",
                            "scaled-dot", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
                     {"bf16[1,2] {{1, 2}}", "bf16[] 5", "f32[2,1] {{3}, {4}}", "f32[1,1] {{10}}"});
  EXPECT_EQ(Values(r), std::vector<double>({110}));
}

TEST(LinalgScaledDot, ScaleThatDoesNotDivideIsAnError) {
  auto r = RunHloText(Module({"f32[1,3]{1,0}", "f32[1,2]{1,0}", "f32[3,1]{1,0}", "f32[]"}, "f32[1,1]{1,0}",
                             "scaled-dot", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
                      {"f32[1,3] {{1, 2, 3}}", "f32[1,2] {{1, 1}}", "f32[3,1] {{1}, {1}, {1}}", "f32[] 1"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("lhs scale dimension 1 (2) must divide"), std::string::npos) << r.status();
}

// Random batched problems with random block shapes on every dim, operand
// layouts and type pairs whose products are exact (small integers times
// powers of two), against dequantize-then-dot loops.
TEST(LinalgScaledDot, RandomBlocksMatchReference) {
  std::mt19937_64 rng(77);
  const std::vector<std::pair<std::string, std::string>> types = {
      {"f32", "f32"}, {"bf16", "f32"}, {"f8e4m3fn", "f8e8m0fnu"}, {"s8", "bf16"}, {"f16", "f16"}};
  for (int trial = 0; trial < 60; ++trial) {
    const auto& [ot, st] = types[trial % types.size()];
    // lhs [b, m, k], rhs [b, k, n] with blocks dividing each dim.
    const int64_t b = 1 + rng() % 2, m = 1 + rng() % 3, n = 1 + rng() % 3, kb = 1 + rng() % 3, kblk = 1 + rng() % 3;
    const int64_t k = kb * kblk;
    auto block_dims = [&](const std::vector<int64_t>& dims) {
      std::vector<int64_t> s;
      for (int64_t d : dims) {
        std::vector<int64_t> divisors;
        for (int64_t x = 1; x <= d; ++x)
          if (d % x == 0) divisors.push_back(x);
        s.push_back(divisors[rng() % divisors.size()]);
      }
      return s;
    };
    const std::vector<int64_t> ld = {b, m, k}, rd = {b, k, n};
    const std::vector<int64_t> lsd = block_dims(ld), rsd = block_dims(rd);
    auto ints = [&](int64_t count) {
      std::vector<double> v(count);
      for (double& x : v) x = static_cast<double>(rng() % 7) - 3;
      return v;
    };
    auto powers = [&](int64_t count) {
      std::vector<double> v(count);
      for (double& x : v) x = std::ldexp(1.0, static_cast<int>(rng() % 5) - 2);
      return v;
    };
    const std::vector<double> lv = ints(Prod(ld)), rv = ints(Prod(rd)), lsv = powers(Prod(lsd)),
                              rsv = powers(Prod(rsd));
    // Dequantized value of element idx of an operand.
    auto deq = [](const std::vector<double>& v, const std::vector<double>& s, const std::vector<int64_t>& dims,
                  const std::vector<int64_t>& sdims, const std::vector<int64_t>& idx) {
      int64_t e = 0, se = 0;
      for (size_t d = 0; d < dims.size(); ++d) {
        e = e * dims[d] + idx[d];
        se = se * sdims[d] + idx[d] / (dims[d] / sdims[d]);
      }
      return v[e] * s[se];
    };
    std::vector<double> want;
    for (int64_t bi = 0; bi < b; ++bi)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (int64_t p = 0; p < k; ++p) sum += deq(lv, lsv, ld, lsd, {bi, i, p}) * deq(rv, rsv, rd, rsd, {bi, p, j});
          want.push_back(sum);
        }
    const std::string hlo =
        Module({ShapeText(ot, ld, RandomM2m(3, rng)), ShapeText(st, lsd, RandomM2m(3, rng)),
                ShapeText(ot, rd, RandomM2m(3, rng)), ShapeText(st, rsd, DefaultM2m(3))},
               ShapeText("f32", {b, m, n}, DefaultM2m(3)), "scaled-dot",
               "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}");
    Literal r = RunHlo(hlo, {LitText(ot, ld, lv), LitText(st, lsd, lsv), LitText(ot, rd, rv), LitText(st, rsd, rsv)});
    EXPECT_EQ(Values(r), want) << hlo;
  }
}

// ============================================ batched dots over a KV cache

// Runs `text` on deterministic arguments at pool widths 1 and 2 and returns
// the width-1 result (expecting the width-2 one to have the same bits).
Literal RunOnRandomArgs(const std::string& text) {
  absl::StatusOr<std::unique_ptr<hlo::Module>> module = ParseModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return Literal();
  std::vector<Literal> args;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const Instruction* p : (*module)->entry()->parameters()) {
    args.emplace_back(p->shape());
    for (int64_t i = 0; i < args.back().physical_count(); ++i) args.back().SetRaw<float>(i, dist(rng));
  }
  const int old_width = ThreadPoolWidth();
  std::vector<Literal> got;
  for (int width : {1, 2}) {
    SetThreadPoolWidth(width);
    absl::StatusOr<RunResult> r = RunModule(**module, args);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) break;
    got.push_back(std::move(r->results[0]));
  }
  SetThreadPoolWidth(old_width);
  if (got.size() != 2) return Literal();
  EXPECT_EQ(std::memcmp(got[0].data(), got[1].data(), got[0].size_bytes()), 0) << "widths 1 and 2 differ";
  return std::move(got[0]);
}

TEST(LinalgDot, KvCacheLayoutGivesTheBitsOfContiguousBatches) {
  // A decode step's q.K^T and p.V against a cache laid out [seq, batch,
  // heads, dim] (torch_xla's): read row by row across all batches
  // (InterleavedBatchGemv), the same bits as the dot of the cache
  // transposed to [batch, heads, seq, dim] first (contiguous batches).
  // q.K^T contracts the cache's dim (3), p.V its seq (0).
  auto module = [](bool pv, bool contiguous) {
    const std::string lhs = pv ? "f32[4,12,1,128]" : "f32[4,12,1,64]";
    const std::string out = pv ? "f32[4,12,1,64]" : "f32[4,12,1,128]";
    std::string text = absl::StrCat("HloModule kv\nENTRY e {\n  a = ", lhs,
                                    " parameter(0)\n  c = f32[128,4,12,64] parameter(1)\n");
    if (contiguous) absl::StrAppend(&text, "  t = f32[4,12,128,64] transpose(c), dimensions={1,2,0,3}\n");
    absl::StrAppend(&text, "  ROOT d = ", out, " dot(a, ", contiguous ? "t" : "c",
                    "), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims=",
                    contiguous ? "{0,1}" : "{1,2}", ", rhs_contracting_dims=",
                    pv ? (contiguous ? "{2}" : "{0}") : "{3}", "\n}\n");
    return text;
  };
  for (bool pv : {false, true}) {
    const std::string a = module(pv, false), b = module(pv, true);
    const Literal x = RunOnRandomArgs(a);
    const Literal y = RunOnRandomArgs(b);
    ASSERT_EQ(x.size_bytes(), y.size_bytes());
    ASSERT_GT(x.size_bytes(), 0);
    EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size_bytes()), 0);
  }
}

}  // namespace
}  // namespace hlo::cpu
