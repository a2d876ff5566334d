// Linear-algebra family: dot, convolution, fft, cholesky, triangular-solve,
// batch-norm-*. Each op is checked against the spec's worked examples and
// against simple reference loops (written here from the spec) on random
// shapes, dimension orders and layouts.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_join.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/fft_config.h"
#include "backend_cpu/linalg_test_util.h"
#include "backend_cpu/thread_pool.h"
#include "parser/parser.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

using namespace linalg_test;  // NOLINT: the shared test helpers

// Wraps an integer value into the range of `type` (two's complement).
double WrapTo(const std::string& type, double v) {
  if (type == "pred") return v != 0 ? 1 : 0;
  if (type[0] != 's' && type[0] != 'u') return v;
  const int bits = std::stoi(type.substr(1));
  const uint64_t u = static_cast<uint64_t>(static_cast<int64_t>(v));
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  uint64_t w = u & mask;
  if (type[0] == 's' && bits < 64 && (w >> (bits - 1)) & 1) return static_cast<double>(static_cast<int64_t>(w | ~mask));
  if (type[0] == 's') return static_cast<double>(static_cast<int64_t>(w));
  return static_cast<double>(w);
}

// Random small integers valid for `type`.
std::vector<double> RandomVals(const std::string& type, int64_t n, std::mt19937_64& rng) {
  std::vector<double> v(n);
  for (auto& x : v) {
    if (type == "pred") {
      x = static_cast<double>(rng() % 2);
    } else if (type[0] == 'u') {
      x = static_cast<double>(rng() % 4);
    } else {
      x = static_cast<double>(static_cast<int64_t>(rng() % 7) - 3);
    }
  }
  return v;
}

// ====================================================================== dot

TEST(LinalgDot, SpecMatrixProducts) {
  // vector . vector
  Literal r = RunHlo(Module({"f32[3]{0}", "f32[3]{0}"}, "f32[]", "dot",
                         "lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
                  {"f32[3]{0} {1, 2, 3}", "f32[3]{0} {4, 5, 6}"});
  EXPECT_EQ(Values(r), std::vector<double>({32}));
  // matrix . vector
  r = RunHlo(Module({"f32[2,3]{1,0}", "f32[3]{0}"}, "f32[2]{0}", "dot",
                 "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
          {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "f32[3]{0} {1, 0, -1}"});
  EXPECT_EQ(Values(r), std::vector<double>({-2, -2}));
  // matrix . matrix
  r = RunHlo(Module({"f32[2,2]{1,0}", "f32[2,2]{1,0}"}, "f32[2,2]{1,0}", "dot",
                 "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
          {"f32[2,2] {{1, 2}, {3, 4}}", "f32[2,2] {{5, 6}, {7, 8}}"});
  EXPECT_EQ(Values(r), std::vector<double>({19, 22, 43, 50}));
}

TEST(LinalgDot, SpecDotGeneralBatch) {
  // The spec's DotGeneral example: batch matmul of {{{1,2},{3,4}},{{5,6},{7,8}}}
  // with {{{1,0},{0,1}},{{1,0},{0,1}}} gives the lhs back.
  Literal r = RunHlo(Module({"f32[2,2,2]{2,1,0}", "f32[2,2,2]{2,1,0}"}, "f32[2,2,2]{2,1,0}", "dot",
                         "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                         "rhs_contracting_dims={1}"),
                  {"f32[2,2,2] {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}",
                   "f32[2,2,2] {{{1, 0}, {0, 1}}, {{1, 0}, {0, 1}}}"});
  EXPECT_EQ(Values(r), std::vector<double>({1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(LinalgDot, ZeroSizedContraction) {
  Literal r = RunHlo(Module({"f32[2,0]{1,0}", "f32[0,3]{1,0}"}, "f32[2,3]{1,0}", "dot",
                         "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
                  {"f32[2,0] {{}, {}}", "f32[0,3] {}"});
  EXPECT_EQ(Values(r), std::vector<double>(6, 0));
}

TEST(LinalgDot, NaNAndInfPropagate) {
  Literal r = RunHlo(Module({"f32[1,2]{1,0}", "f32[2,2]{1,0}"}, "f32[1,2]{1,0}", "dot",
                         "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
                  {"f32[1,2] {{0, 1}}", "f32[2,2] {{inf, nan}, {1, 2}}"});
  std::vector<double> v = Values(r);
  EXPECT_TRUE(std::isnan(v[0]));  // 0 * inf
  EXPECT_TRUE(std::isnan(v[1]));
}

TEST(LinalgDot, NarrowResultConvertsOperandsFirst) {
  // f32 operands, bf16 result: operands are rounded to bf16 first (as XLA):
  // 1.005859375 -> 1.0078125, so the result is 0.0078125 (not 0.005859375).
  Literal r = RunHlo(Module({"f32[2]{0}", "f32[2]{0}"}, "bf16[]", "dot",
                            "lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
                     {"f32[2]{0} {1.005859375, -1}", "f32[2]{0} {1, 1}"});
  EXPECT_EQ(Values(r), std::vector<double>({0.0078125}));
}

struct DotCase {
  std::string lt, rt, ot;
};

void RandomDots(const DotCase& tc, int trials, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int t = 0; t < trials; ++t) {
    const int nb = rng() % 3, nc = rng() % 3, nlf = rng() % 3, nrf = rng() % 3;
    std::vector<int64_t> bs(nb), cs(nc), lfs(nlf), rfs(nrf);
    for (auto& x : bs) x = 1 + rng() % 3;
    for (auto& x : cs) x = 1 + rng() % 4;
    for (auto& x : lfs) x = 1 + rng() % 5;
    for (auto& x : rfs) x = 1 + rng() % 5;
    // Roles: kind 0 batch, 1 contracting, 2 free; with an id.
    auto make_roles = [&](int nfree) {
      std::vector<std::pair<int, int>> roles;
      for (int i = 0; i < nb; ++i) roles.push_back({0, i});
      for (int i = 0; i < nc; ++i) roles.push_back({1, i});
      for (int i = 0; i < nfree; ++i) roles.push_back({2, i});
      std::shuffle(roles.begin(), roles.end(), rng);
      // Free dims keep their relative order (their result order is the
      // operand order; ids renumbered in position order).
      int next = 0;
      for (auto& r : roles)
        if (r.first == 2) r.second = next++;
      return roles;
    };
    auto lroles = make_roles(nlf), rroles = make_roles(nrf);
    std::vector<int64_t> ldims, rdims, lb(nb), lc(nc), rb(nb), rc(nc);
    for (size_t d = 0; d < lroles.size(); ++d) {
      auto [k, id] = lroles[d];
      ldims.push_back(k == 0 ? bs[id] : k == 1 ? cs[id] : lfs[id]);
      if (k == 0) lb[id] = d;
      if (k == 1) lc[id] = d;
    }
    for (size_t d = 0; d < rroles.size(); ++d) {
      auto [k, id] = rroles[d];
      rdims.push_back(k == 0 ? bs[id] : k == 1 ? cs[id] : rfs[id]);
      if (k == 0) rb[id] = d;
      if (k == 1) rc[id] = d;
    }
    std::vector<int64_t> odims = bs;
    odims.insert(odims.end(), lfs.begin(), lfs.end());
    odims.insert(odims.end(), rfs.begin(), rfs.end());
    const bool lc_ = tc.lt[0] == 'c', rc_ = tc.rt[0] == 'c';
    std::vector<double> lre = RandomVals(tc.lt, Prod(ldims), rng), lim, rre = RandomVals(tc.rt, Prod(rdims), rng), rim;
    if (lc_) lim = RandomVals(tc.lt, Prod(ldims), rng);
    if (rc_) rim = RandomVals(tc.rt, Prod(rdims), rng);
    // Reference.
    const auto lst = Strides(ldims), rst = Strides(rdims);
    std::vector<cd> ref(Prod(odims));
    std::vector<int64_t> oidx(odims.size(), 0), cidx(nc, 0);
    for (int64_t o = 0; o < Prod(odims); ++o) {
      cd sum = 0;
      std::fill(cidx.begin(), cidx.end(), 0);
      for (int64_t k = 0; k < Prod(cs); ++k) {
        int64_t li = 0, ri = 0;
        for (size_t d = 0; d < lroles.size(); ++d) {
          auto [kind, id] = lroles[d];
          const int64_t v = kind == 0 ? oidx[id] : kind == 1 ? cidx[id] : oidx[nb + id];
          li += v * lst[d];
        }
        for (size_t d = 0; d < rroles.size(); ++d) {
          auto [kind, id] = rroles[d];
          const int64_t v = kind == 0 ? oidx[id] : kind == 1 ? cidx[id] : oidx[nb + nlf + id];
          ri += v * rst[d];
        }
        const cd a(lre[li], lc_ ? lim[li] : 0), b(rre[ri], rc_ ? rim[ri] : 0);
        if (tc.ot == "pred") {
          sum = (sum.real() != 0 || (a.real() != 0 && b.real() != 0)) ? 1 : 0;
        } else {
          sum += a * b;
        }
        cidx = NextIndex(cidx, cs);
      }
      ref[o] = sum;
      oidx = NextIndex(oidx, odims);
    }
    const auto lm = RandomM2m(ldims.size(), rng), rm = RandomM2m(rdims.size(), rng),
               om = RandomM2m(odims.size(), rng);
    const std::string attrs = absl::StrCat(
        "lhs_batch_dims={", absl::StrJoin(lb, ","), "}, lhs_contracting_dims={", absl::StrJoin(lc, ","),
        "}, rhs_batch_dims={", absl::StrJoin(rb, ","), "}, rhs_contracting_dims={",
        absl::StrJoin(rc, ","), "}");
    const std::string hlo = Module({ShapeText(tc.lt, ldims, lm), ShapeText(tc.rt, rdims, rm)},
                                   ShapeText(tc.ot, odims, om), "dot", attrs);
    Literal r = RunHlo(hlo, {LitText(tc.lt, ldims, lre, lim), LitText(tc.rt, rdims, rre, rim)});
    if (!r.shape().IsArray()) return;
    const std::vector<cd> got = ComplexValues(r);
    ASSERT_EQ(got.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) {
      const cd want(WrapTo(tc.ot, ref[i].real()), tc.ot[0] == 'c' ? ref[i].imag() : 0);
      ASSERT_EQ(got[i], want) << "element " << i << " of\n" << hlo;
    }
  }
}

TEST(LinalgDot, RandomF32Layouts) { RandomDots({"f32", "f32", "f32"}, 150, 1); }
TEST(LinalgDot, RandomF64) { RandomDots({"f64", "f64", "f64"}, 40, 2); }
TEST(LinalgDot, RandomC64) { RandomDots({"c64", "c64", "c64"}, 40, 3); }
TEST(LinalgDot, RandomC128) { RandomDots({"c128", "c128", "c128"}, 30, 4); }
TEST(LinalgDot, RandomS32) { RandomDots({"s32", "s32", "s32"}, 40, 5); }

// A batch of products too small to be split (attention's per-head ones) is
// shared out by batch: the same bytes for every pool width, and the right
// values.
TEST(LinalgDot, BatchOfSmallProductsBitIdenticalAcrossThreadCounts) {
  constexpr int64_t B = 12, M = 64, K = 32, N = 48;
  std::mt19937_64 rng(54);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> a(B * M * K), b(B * K * N);
  for (auto& v : a) v = static_cast<float>(u(rng));
  for (auto& v : b) v = static_cast<float>(u(rng));
  const std::string hlo = Module({"f32[12,64,32]{2,1,0}", "f32[12,32,48]{2,1,0}"}, "f32[12,64,48]{2,1,0}", "dot",
                                 "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                                 "rhs_contracting_dims={1}");
  const int saved = ThreadPoolWidth();
  std::vector<std::vector<uint8_t>> bytes;
  for (int width : {1, 2, 3}) {
    SetThreadPoolWidth(width);
    Literal r = RunHlo(hlo, {LitText("f32", {B, M, K}, a), LitText("f32", {B, K, N}, b)});
    bytes.emplace_back(r.data(), r.data() + r.size_bytes());
    const std::vector<double> got = Values(r);
    ASSERT_EQ(got.size(), static_cast<size_t>(B * M * N));
    for (int64_t q = 0; q < B; ++q)
      for (int64_t i = 0; i < M; i += 7)
        for (int64_t j = 0; j < N; j += 5) {
          double want = 0;
          for (int64_t k = 0; k < K; ++k) want += a[(q * M + i) * K + k] * b[(q * K + k) * N + j];
          ASSERT_NEAR(got[(q * M + i) * N + j], want, 1e-4) << q << "," << i << "," << j;
        }
  }
  SetThreadPoolWidth(saved);
  EXPECT_EQ(bytes[0], bytes[1]);
  EXPECT_EQ(bytes[0], bytes[2]);
}
TEST(LinalgDot, RandomS8ToS32) { RandomDots({"s8", "s8", "s32"}, 40, 6); }
TEST(LinalgDot, RandomU8Wraps) { RandomDots({"u8", "u8", "u8"}, 30, 7); }
TEST(LinalgDot, RandomS64) { RandomDots({"s64", "s64", "s64"}, 20, 8); }
TEST(LinalgDot, RandomBf16ToF32) { RandomDots({"bf16", "bf16", "f32"}, 30, 9); }
TEST(LinalgDot, RandomF16) { RandomDots({"f16", "f16", "f16"}, 30, 10); }
TEST(LinalgDot, RandomPred) { RandomDots({"pred", "pred", "pred"}, 30, 11); }
TEST(LinalgDot, RandomMixedS8F32) { RandomDots({"s8", "f32", "f32"}, 20, 12); }

TEST(LinalgDot, LargeF32MatchesReference) {
  // Big enough for OpenBLAS's blocked kernels; compare with a double loop.
  std::mt19937_64 rng(42);
  const int64_t M = 67, K = 130, N = 45;
  std::vector<double> a(M * K), b(K * N);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& x : a) x = static_cast<float>(u(rng));
  for (auto& x : b) x = static_cast<float>(u(rng));
  Literal r = RunHlo(Module({"f32[67,130]{0,1}", "f32[130,45]{1,0}"}, "f32[67,45]{1,0}", "dot",
                         "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
                  {LitText("f32", {M, K}, a), LitText("f32", {K, N}, b)});
  std::vector<double> v = Values(r);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += a[i * K + k] * b[k * N + j];
      ASSERT_NEAR(v[i * N + j], s, 1e-4);
    }
}

// ============================================================= convolution

struct ConvCase {
  std::string it, kt, ot;
};

// Reference from the spec's pseudo-code (plus dilation, reversal, groups).
// `channels_last`: input and output laid out batch-major, feature-minor
// (the layout the implementation reads/writes in place). `big`: 2-D,
// 64 input channels per group, 16x16 output (several im2col chunks).
void RandomConvs(const ConvCase& tc, int trials, uint64_t seed, bool channels_last = false,
                 bool big = false) {
  std::mt19937_64 rng(seed);
  for (int t = 0; t < trials; ++t) {
    const int ns = big ? 2 : static_cast<int>(rng() % 4);
    int64_t FG = 1, BG = 1;
    if (rng() % 3 == 0) FG = 1 + rng() % 3;
    else if (rng() % 3 == 0) BG = 1 + rng() % 2 + 1;
    const int64_t Nb = 1 + rng() % 2, N = Nb * BG;
    const int64_t Cg = big ? 64 : 1 + rng() % 3, C = Cg * FG;
    const int64_t O = FG * BG * (1 + rng() % 2);
    std::vector<int64_t> in(ns), ks(ns), os(ns), stride(ns), lo(ns), hi(ns), ld(ns), rd(ns);
    std::vector<int> rev(ns);
    for (int d = 0; d < ns; ++d) {
      if (big) {
        in[d] = 16, ks[d] = 3, stride[d] = 1, lo[d] = 1, hi[d] = 1, ld[d] = 1, rd[d] = 1;
        rev[d] = rng() % 2;
        os[d] = 16;
        continue;
      }
      for (;;) {
        in[d] = 1 + rng() % 5;
        ks[d] = 1 + rng() % 3;
        stride[d] = 1 + rng() % 3;
        lo[d] = static_cast<int64_t>(rng() % 4) - 1;
        hi[d] = static_cast<int64_t>(rng() % 4) - 1;
        ld[d] = 1 + rng() % 2;
        rd[d] = 1 + rng() % 2;
        rev[d] = rng() % 2;
        const int64_t padded = (in[d] - 1) * ld[d] + 1 + lo[d] + hi[d];
        const int64_t win = (ks[d] - 1) * rd[d] + 1;
        if (padded >= win) {
          os[d] = (padded - win) / stride[d] + 1;
          break;
        }
      }
    }
    // Canonical orders: input (b, f, s...), kernel (o, i, s...), output (b, f, s...).
    std::vector<int64_t> icanon = {N, C}, kcanon = {O, Cg}, ocanon = {Nb, O};
    for (int d = 0; d < ns; ++d) {
      icanon.push_back(in[d]);
      kcanon.push_back(ks[d]);
      ocanon.push_back(os[d]);
    }
    const size_t rank = ns + 2;
    // pos[j] = actual dimension of canonical dim j.
    auto perm = [&]() {
      std::vector<int64_t> p(rank);
      for (size_t i = 0; i < rank; ++i) p[i] = i;
      std::shuffle(p.begin(), p.end(), rng);
      return p;
    };
    const auto ip = perm(), kp = perm(), op = perm();
    auto actual = [&](const std::vector<int64_t>& canon, const std::vector<int64_t>& p) {
      std::vector<int64_t> a(rank);
      for (size_t j = 0; j < rank; ++j) a[p[j]] = canon[j];
      return a;
    };
    const auto idims = actual(icanon, ip), kdims = actual(kcanon, kp), odims = actual(ocanon, op);
    auto labels = [&](const std::vector<int64_t>& p, char c0, char c1) {
      std::string s(rank, '?');
      s[p[0]] = c0;
      s[p[1]] = c1;
      for (int d = 0; d < ns; ++d) s[p[2 + d]] = static_cast<char>('0' + d);
      return s;
    };
    const std::string dl = labels(ip, 'b', 'f') + "_" + labels(kp, 'o', 'i') + "->" + labels(op, 'b', 'f');
    // Values in actual (row-major) order.
    std::vector<double> ival = RandomVals(tc.it, Prod(idims), rng);
    std::vector<double> kval = RandomVals(tc.kt, Prod(kdims), rng);
    const auto ist = Strides(idims), kst = Strides(kdims);
    auto iat = [&](const std::vector<int64_t>& c) {
      int64_t s = 0;
      for (size_t j = 0; j < rank; ++j) s += c[j] * ist[ip[j]];
      return ival[s];
    };
    auto kat = [&](const std::vector<int64_t>& c) {
      int64_t s = 0;
      for (size_t j = 0; j < rank; ++j) s += c[j] * kst[kp[j]];
      return kval[s];
    };
    // Reference in canonical output order, then permuted to actual order.
    std::vector<double> ref(Prod(odims));
    const auto ost = Strides(odims);
    std::vector<int64_t> oc(rank, 0);
    std::vector<int64_t> ksz(ks);
    for (int64_t e = 0; e < Prod(ocanon); ++e) {
      const int64_t b = oc[0], o = oc[1];
      const int64_t gf = o / (O / FG), gb = o / (O / BG);
      double sum = 0;
      for (int64_t c = 0; c < Cg; ++c) {
        std::vector<int64_t> k(ns, 0);
        for (int64_t kk = 0; kk < Prod(ksz); ++kk) {
          std::vector<int64_t> ic = {gb * Nb + b, gf * Cg + c}, kc = {o, c};
          bool ok = true;
          for (int d = 0; d < ns && ok; ++d) {
            const int64_t u = oc[2 + d] * stride[d] - lo[d] + k[d] * rd[d];
            if (u % ld[d] != 0) ok = false;
            const int64_t i = u / ld[d];
            if (i < 0 || i >= in[d]) ok = false;
            ic.push_back(i);
            kc.push_back(rev[d] ? ks[d] - 1 - k[d] : k[d]);
          }
          if (ok) sum += iat(ic) * kat(kc);
          k = NextIndex(k, ksz);
        }
      }
      int64_t s = 0;
      for (size_t j = 0; j < rank; ++j) s += oc[j] * ost[op[j]];
      ref[s] = WrapTo(tc.ot, sum);
      oc = NextIndex(oc, ocanon);
    }
    std::string attrs;
    if (ns > 0) {
      std::vector<std::string> sz, st, pd, lds, rds, rv;
      for (int d = 0; d < ns; ++d) {
        sz.push_back(absl::StrCat(ks[d]));
        st.push_back(absl::StrCat(stride[d]));
        pd.push_back(absl::StrCat(lo[d], "_", hi[d]));
        lds.push_back(absl::StrCat(ld[d]));
        rds.push_back(absl::StrCat(rd[d]));
        rv.push_back(absl::StrCat(rev[d]));
      }
      attrs = absl::StrCat("window={size=", absl::StrJoin(sz, "x"), " stride=", absl::StrJoin(st, "x"),
                           " pad=", absl::StrJoin(pd, "x"), " lhs_dilate=", absl::StrJoin(lds, "x"),
                           " rhs_dilate=", absl::StrJoin(rds, "x"), " rhs_reversal=",
                           absl::StrJoin(rv, "x"), "}, ");
    }
    absl::StrAppend(&attrs, "dim_labels=", dl);
    if (FG > 1) absl::StrAppend(&attrs, ", feature_group_count=", FG);
    if (BG > 1) absl::StrAppend(&attrs, ", batch_group_count=", BG);
    std::vector<int64_t> im = RandomM2m(rank, rng), km = RandomM2m(rank, rng), om = RandomM2m(rank, rng);
    if (channels_last) {
      // minor_to_major: feature, spatial (last to first), batch.
      auto cl = [&](const std::vector<int64_t>& p) {
        std::vector<int64_t> m = {p[1]};
        for (int d = ns - 1; d >= 0; --d) m.push_back(p[2 + d]);
        m.push_back(p[0]);
        return m;
      };
      im = cl(ip);
      om = cl(op);
    }
    const std::string hlo = Module({ShapeText(tc.it, idims, im), ShapeText(tc.kt, kdims, km)},
                                   ShapeText(tc.ot, odims, om), "convolution", attrs);
    Literal r = RunHlo(hlo, {LitText(tc.it, idims, ival), LitText(tc.kt, kdims, kval)});
    if (!r.shape().IsArray()) return;
    const std::vector<double> got = Values(r);
    ASSERT_EQ(got.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(got[i], ref[i]) << "element " << i << " of\n" << hlo;
  }
}

TEST(LinalgConv, RandomF32) { RandomConvs({"f32", "f32", "f32"}, 300, 21); }
TEST(LinalgConv, RandomF64) { RandomConvs({"f64", "f64", "f64"}, 60, 22); }
TEST(LinalgConv, RandomS32) { RandomConvs({"s32", "s32", "s32"}, 60, 23); }
TEST(LinalgConv, RandomS8ToS32) { RandomConvs({"s8", "s8", "s32"}, 40, 24); }
TEST(LinalgConv, RandomBf16) { RandomConvs({"bf16", "bf16", "bf16"}, 40, 25); }
TEST(LinalgConv, RandomF16ToF32) { RandomConvs({"f16", "f16", "f32"}, 40, 26); }

TEST(LinalgConv, ChannelsLastF32) { RandomConvs({"f32", "f32", "f32"}, 100, 27, true); }
TEST(LinalgConv, ChannelsLastS32) { RandomConvs({"s32", "s32", "s32"}, 30, 28, true); }
TEST(LinalgConv, BigChunkedF32) { RandomConvs({"f32", "f32", "f32"}, 4, 29, false, true); }
TEST(LinalgConv, BigChunkedChannelsLastF32) { RandomConvs({"f32", "f32", "f32"}, 4, 30, true, true); }

TEST(LinalgConv, Simple1D) {
  // input [1,1,5] = 1..5, kernel [1,1,3] = {1,0,-1}, pad 1_1: out[i] = x[i-1] - x[i+1].
  Literal r = RunHlo(Module({"f32[1,1,5]{2,1,0}", "f32[1,1,3]{2,1,0}"}, "f32[1,1,5]{2,1,0}", "convolution",
                         "window={size=3 pad=1_1}, dim_labels=bf0_oi0->bf0"),
                  {"f32[1,1,5] {{{1, 2, 3, 4, 5}}}", "f32[1,1,3] {{{1, 0, -1}}}"});
  EXPECT_EQ(Values(r), std::vector<double>({-2, -2, -2, -2, 4}));
}

// ------------------------------------------------ convolution: layouts, chunks, threads

// One convolution with explicit sizes. Logical dims are (b, f, spatial...)
// for the input and output and (o, i, spatial...) for the kernel; `lay`
// picks the physical layouts: "nchw" (row-major), "nhwc" (feature minor,
// batch major) or "odd" (first spatial dim minor, batch, feature major).
struct ConvSpec {
  int64_t n = 1, c = 1, o = 1, fg = 1, bg = 1;
  std::vector<int64_t> in, ks, stride, lo, hi, ld, rd;
  std::vector<int> rev;
  std::string lay = "nchw";
  std::string klay = "oihw";  // "oihw" (row-major) or "hwio"
};

std::vector<int64_t> ConvM2m(const std::string& lay, size_t rank) {
  std::vector<int64_t> m;
  if (lay == "nchw" || lay == "oihw") return DefaultM2m(rank);
  if (lay == "nhwc") {
    m.push_back(1);
    for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 2; --d) m.push_back(d);
    m.push_back(0);
    return m;
  }
  if (lay == "hwio") {
    m = {0, 1};
    for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 2; --d) m.push_back(d);
    return m;
  }
  // odd
  m.push_back(2);
  m.push_back(0);
  for (size_t d = 3; d < rank; ++d) m.push_back(d);
  m.push_back(1);
  return m;
}

struct ConvProblem {
  std::string hlo;
  std::vector<int64_t> idims, kdims, odims;
  std::vector<double> ref;  // exact, row-major over odims
};

// Builds the module and an exact reference for integer-valued inputs.
ConvProblem MakeConv(const ConvSpec& s, const std::vector<double>& x, const std::vector<double>& w) {
  ConvProblem p;
  const int64_t ns = static_cast<int64_t>(s.in.size()), rank = ns + 2;
  const int64_t Nb = s.n / s.bg, Cg = s.c / s.fg;
  std::vector<int64_t> os(ns);
  for (int64_t d = 0; d < ns; ++d) {
    const int64_t padded = (s.in[d] - 1) * s.ld[d] + 1 + s.lo[d] + s.hi[d];
    const int64_t win = (s.ks[d] - 1) * s.rd[d] + 1;
    os[d] = (padded - win) / s.stride[d] + 1;
  }
  p.idims = {s.n, s.c};
  p.kdims = {s.o, Cg};
  p.odims = {Nb, s.o};
  for (int64_t d = 0; d < ns; ++d) {
    p.idims.push_back(s.in[d]);
    p.kdims.push_back(s.ks[d]);
    p.odims.push_back(os[d]);
  }
  const auto ist = Strides(p.idims), kst = Strides(p.kdims);
  p.ref.assign(Prod(p.odims), 0);
  std::vector<int64_t> oc(rank, 0);
  const int64_t KS = Prod(s.ks);
  for (int64_t e = 0; e < Prod(p.odims); ++e) {
    const int64_t b = oc[0], o = oc[1];
    const int64_t gf = o / (s.o / s.fg), gb = o / (s.o / s.bg);
    double sum = 0;
    std::vector<int64_t> k(ns, 0);
    for (int64_t kk = 0; kk < KS; ++kk) {
      int64_t ioff = (gb * Nb + b) * ist[0], koff = o * kst[0];
      bool ok = true;
      for (int64_t d = 0; d < ns && ok; ++d) {
        const int64_t u = oc[2 + d] * s.stride[d] - s.lo[d] + k[d] * s.rd[d];
        if (u < 0 || u % s.ld[d] != 0 || u / s.ld[d] >= s.in[d]) ok = false;
        ioff += (u / s.ld[d]) * ist[2 + d];
        koff += (s.rev[d] ? s.ks[d] - 1 - k[d] : k[d]) * kst[2 + d];
      }
      if (ok)
        for (int64_t c = 0; c < Cg; ++c) sum += x[ioff + (gf * Cg + c) * ist[1]] * w[koff + c * kst[1]];
      k = NextIndex(k, s.ks);
    }
    p.ref[e] = sum;
    oc = NextIndex(oc, p.odims);
  }
  std::string attrs;
  if (ns > 0) {
    std::vector<std::string> sz, st, pd, lds, rds, rv;
    for (int64_t d = 0; d < ns; ++d) {
      sz.push_back(absl::StrCat(s.ks[d]));
      st.push_back(absl::StrCat(s.stride[d]));
      pd.push_back(absl::StrCat(s.lo[d], "_", s.hi[d]));
      lds.push_back(absl::StrCat(s.ld[d]));
      rds.push_back(absl::StrCat(s.rd[d]));
      rv.push_back(absl::StrCat(s.rev[d]));
    }
    attrs = absl::StrCat("window={size=", absl::StrJoin(sz, "x"), " stride=", absl::StrJoin(st, "x"),
                         " pad=", absl::StrJoin(pd, "x"), " lhs_dilate=", absl::StrJoin(lds, "x"),
                         " rhs_dilate=", absl::StrJoin(rds, "x"), " rhs_reversal=", absl::StrJoin(rv, "x"),
                         "}, ");
  }
  std::string sp;
  for (int64_t d = 0; d < ns; ++d) sp += static_cast<char>('0' + d);
  absl::StrAppend(&attrs, "dim_labels=bf", sp, "_oi", sp, "->bf", sp);
  if (s.fg > 1) absl::StrAppend(&attrs, ", feature_group_count=", s.fg);
  if (s.bg > 1) absl::StrAppend(&attrs, ", batch_group_count=", s.bg);
  p.hlo = Module({ShapeText("f32", p.idims, ConvM2m(s.lay, rank)), ShapeText("f32", p.kdims, ConvM2m(s.klay, rank))},
                 ShapeText("f32", p.odims, ConvM2m(s.lay, rank)), "convolution", attrs);
  return p;
}

ConvSpec Spec2D(int64_t n, int64_t c, int64_t o, int64_t h, int64_t w, int64_t k, int64_t stride,
                int64_t pad, const std::string& lay) {
  ConvSpec s;
  s.n = n, s.c = c, s.o = o;
  s.in = {h, w};
  s.ks = {k, k};
  s.stride = {stride, stride};
  s.lo = {pad, pad};
  s.hi = {pad, pad};
  s.ld = {1, 1};
  s.rd = {1, 1};
  s.rev = {0, 0};
  s.lay = lay;
  return s;
}

void CheckConvExact(const ConvSpec& s, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t Cg = s.c / s.fg;
  std::vector<int64_t> id = {s.n, s.c}, kd = {s.o, Cg};
  id.insert(id.end(), s.in.begin(), s.in.end());
  kd.insert(kd.end(), s.ks.begin(), s.ks.end());
  const std::vector<double> x = RandomVals("s8", Prod(id), rng), w = RandomVals("s8", Prod(kd), rng);
  const ConvProblem p = MakeConv(s, x, w);
  Literal r = RunHlo(p.hlo, {LitText("f32", p.idims, x), LitText("f32", p.kdims, w)});
  if (!r.shape().IsArray()) return;
  const std::vector<double> got = Values(r);
  ASSERT_EQ(got.size(), p.ref.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], p.ref[i]) << "element " << i << " of\n" << p.hlo;
}

TEST(LinalgConv, LayoutsAndChunksExact) {
  for (const std::string lay : {"nchw", "nhwc", "odd"}) {
    SCOPED_TRACE(lay);
    // Several im2col chunks per image (KK = 9*40 -> 352-position chunks).
    CheckConvExact(Spec2D(2, 40, 24, 23, 31, 3, 1, 1, lay), 41);
    // Stride 2, no padding, odd sizes.
    CheckConvExact(Spec2D(3, 8, 5, 17, 12, 3, 2, 0, lay), 42);
    // 1x1 kernels: the im2col-free path (and its strided variant).
    CheckConvExact(Spec2D(2, 16, 12, 9, 35, 1, 1, 0, lay), 43);
    CheckConvExact(Spec2D(2, 16, 12, 9, 35, 1, 2, 0, lay), 44);
    // 1x1 with padding (not an identity im2col).
    CheckConvExact(Spec2D(1, 3, 4, 5, 6, 1, 1, 1, lay), 45);
    // Feature groups, batch groups, depthwise.
    ConvSpec g = Spec2D(2, 12, 6, 10, 11, 3, 1, 1, lay);
    g.fg = 3;
    CheckConvExact(g, 46);
    g = Spec2D(4, 5, 6, 7, 9, 3, 1, 2, lay);
    g.bg = 2;
    CheckConvExact(g, 47);
    g = Spec2D(2, 8, 8, 12, 10, 3, 1, 1, lay);
    g.fg = 8;
    CheckConvExact(g, 48);
    // Dilations, reversal, asymmetric padding (incl. negative).
    g = Spec2D(2, 6, 7, 9, 13, 3, 1, 0, lay);
    g.ld = {2, 1};
    g.rd = {1, 2};
    g.rev = {1, 0};
    g.lo = {2, -1};
    g.hi = {0, 3};
    CheckConvExact(g, 49);
    g.ld = {1, 3};
    g.rd = {2, 1};
    g.stride = {2, 3};
    g.klay = "hwio";
    CheckConvExact(g, 50);
  }
  // 1-D and 3-D.
  ConvSpec s;
  s.n = 2, s.c = 5, s.o = 3;
  s.in = {40};
  s.ks = {4};
  s.stride = {3};
  s.lo = {2};
  s.hi = {1};
  s.ld = {1};
  s.rd = {2};
  s.rev = {1};
  for (const std::string lay : {"nchw", "nhwc", "odd"}) {
    s.lay = lay;
    CheckConvExact(s, 51);
  }
  s.in = {5, 6, 7};
  s.ks = {2, 3, 2};
  s.stride = {1, 2, 1};
  s.lo = {1, 0, 1};
  s.hi = {0, 1, 1};
  s.ld = {1, 1, 2};
  s.rd = {1, 1, 1};
  s.rev = {0, 1, 0};
  for (const std::string lay : {"nchw", "nhwc", "odd"}) {
    s.lay = lay;
    CheckConvExact(s, 52);
  }
}

// `spec` in f32 and f64 on integer values: exact, and the same bits at 1,
// 2 and 3 threads.
void CheckConvExactAllWidths(const ConvSpec& spec, uint64_t seed) {
  const int saved = ThreadPoolWidth();
  for (const std::string type : {"f32", "f64"}) {
    std::mt19937_64 rng(seed++);
    std::vector<int64_t> id = {spec.n, spec.c}, kd = {spec.o, spec.c / spec.fg};
    id.insert(id.end(), spec.in.begin(), spec.in.end());
    kd.insert(kd.end(), spec.ks.begin(), spec.ks.end());
    const std::vector<double> x = RandomVals("s8", Prod(id), rng), w = RandomVals("s8", Prod(kd), rng);
    ConvProblem p = MakeConv(spec, x, w);
    p.hlo = absl::StrReplaceAll(p.hlo, {{"f32", type}});
    std::vector<std::vector<uint8_t>> bytes;
    for (int width : {1, 2, 3}) {
      SetThreadPoolWidth(width);
      Literal r = RunHlo(p.hlo, {LitText(type, p.idims, x), LitText(type, p.kdims, w)});
      ASSERT_TRUE(r.shape().IsArray()) << p.hlo;
      bytes.emplace_back(r.data(), r.data() + r.size_bytes());
      const std::vector<double> got = Values(r);
      ASSERT_EQ(got.size(), p.ref.size());
      for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], p.ref[i]) << "element " << i << " of\n" << p.hlo;
    }
    EXPECT_EQ(bytes[0], bytes[1]) << p.hlo;
    EXPECT_EQ(bytes[0], bytes[2]) << p.hlo;
  }
  SetThreadPoolWidth(saved);
}

// Groups of one output feature each, the groups as vector lanes
// (conv_batch_grouped.h): whole vectors of groups and a partial one (40 =
// 16 + 16 + 8 f32 lanes, 5 x 8 f64 ones), more output positions than one
// tile holds, strides, dilations, reversal and padding on every layout.
// Batch groups (a depthwise weight gradient, two output batches) and
// depthwise convolutions oneDNN declines (lhs dilation: the input
// gradient of a strided depthwise convolution; f64).
TEST(LinalgConv, GroupsOfOneFeatureAsLanesExact) {
  uint64_t seed = 60;
  for (const std::string lay : {"nchw", "nhwc", "odd"}) {
    SCOPED_TRACE(lay);
    ConvSpec g = Spec2D(80, 3, 40, 9, 11, 3, 1, 1, lay);
    g.bg = 40;
    CheckConvExactAllWidths(g, seed += 2);
    g = Spec2D(40, 2, 40, 12, 10, 5, 2, 2, lay);
    g.bg = 40;
    g.rd = {2, 1};
    g.ld = {1, 2};
    g.rev = {1, 0};
    g.lo = {3, -1};
    CheckConvExactAllWidths(g, seed += 2);
    // Depthwise, lhs dilation 2 (as jax.grad writes the input gradient of
    // a stride-2 depthwise convolution), asymmetric padding.
    g = Spec2D(3, 40, 40, 7, 6, 3, 1, 0, lay);
    g.fg = 40;
    g.ld = {2, 2};
    g.lo = {2, 2};
    g.hi = {1, 1};
    g.rev = {1, 1};
    CheckConvExactAllWidths(g, seed += 2);
  }
  ConvSpec s;  // 1-D, 17 batch groups
  s.n = 17, s.c = 4, s.o = 17, s.bg = 17;
  s.in = {30};
  s.ks = {7};
  s.stride = {1};
  s.lo = {2};
  s.hi = {0};
  s.ld = {1};
  s.rd = {3};
  s.rev = {0};
  s.lay = "nhwc";
  CheckConvExactAllWidths(s, seed += 2);
}

// The lanes kernel skips window positions that read only zeros (holes of
// lhs dilation, padding) for a whole tile, which changes nothing for a
// finite kernel; 0 * inf is NaN, so an infinite kernel value must still
// meet every hole. Depthwise, input of ones [1,6,6,16], lhs dilation 2,
// output 12x12 (rows of whole tiles); channel 3's centre tap is inf: its
// output is inf where that tap reads an input element and NaN where it
// reads a hole or padding; every other channel counts its window's inputs.
TEST(LinalgConv, LanesKernelSkipsHolesOnlyForFiniteKernels) {
  const int64_t C = 16;
  std::vector<double> x(6 * 6 * C, 1.0), w(3 * 3 * C, 1.0);
  w[(1 * 3 + 1) * C + 3] = INFINITY;
  const std::string hlo = Module({"f32[1,6,6,16]{3,2,1,0}", "f32[3,3,1,16]{3,2,1,0}"}, "f32[1,12,12,16]{3,2,1,0}",
                                 "convolution",
                                 "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f, "
                                 "feature_group_count=16");
  auto real = [](int64_t v) { return v >= 0 && v % 2 == 0 && v <= 10; };
  const int saved = ThreadPoolWidth();
  for (int width : {1, 2}) {
    SetThreadPoolWidth(width);
    Literal r = RunHlo(hlo, {LitText("f32", {1, 6, 6, C}, x), LitText("f32", {3, 3, 1, C}, w)});
    const std::vector<double> got = Values(r);
    ASSERT_EQ(got.size(), static_cast<size_t>(12 * 12 * C));
    for (int64_t oy = 0; oy < 12; ++oy)
      for (int64_t ox = 0; ox < 12; ++ox)
        for (int64_t c = 0; c < C; ++c) {
          const double v = got[(oy * 12 + ox) * C + c];
          if (c == 3) {
            if (real(oy) && real(ox)) {
              EXPECT_TRUE(std::isinf(v) && v > 0) << oy << "," << ox << ": " << v;
            } else {
              EXPECT_TRUE(std::isnan(v)) << oy << "," << ox << ": " << v;
            }
            continue;
          }
          double count = 0;
          for (int64_t ky = 0; ky < 3; ++ky)
            for (int64_t kx = 0; kx < 3; ++kx) count += real(oy - 1 + ky) && real(ox - 1 + kx);
          ASSERT_EQ(v, count) << oy << "," << ox << "," << c;
        }
  }
  SetThreadPoolWidth(saved);
}

// A window covering the whole input (the weight gradient of a 1x1
// convolution: one matrix product, operands read in place through BLAS's
// transpose flags or packed, by layout), 2-D and 3-D, several column
// blocks (O = 70).
TEST(LinalgConv, WholeWindowIsOneProductExact) {
  uint64_t seed = 80;
  for (const std::string lay : {"nchw", "nhwc", "odd"}) {
    for (const std::string klay : {"oihw", "hwio"}) {
      SCOPED_TRACE(lay + " " + klay);
      ConvSpec g = Spec2D(6, 5, 70, 7, 9, 1, 1, 0, lay);
      g.ks = {7, 9};
      g.klay = klay;
      CheckConvExactAllWidths(g, seed += 2);
      g.stride = {3, 2};  // any stride: one output position
      g.n = 1;
      CheckConvExactAllWidths(g, seed += 2);
    }
  }
  ConvSpec s;
  s.n = 4, s.c = 3, s.o = 8;
  s.in = {3, 4, 5};
  s.ks = {3, 4, 5};
  s.stride = {1, 1, 1};
  s.lo = {0, 0, 0};
  s.hi = {0, 0, 0};
  s.ld = {1, 1, 1};
  s.rd = {1, 1, 1};
  s.rev = {0, 0, 0};
  s.lay = "nhwc";
  CheckConvExactAllWidths(s, seed += 2);
}

// A whole-window product whose contraction is much longer than its sides
// (K = 64 x 64 x 8 = 32768 against 32 x 32, as a 1x1 convolution's weight
// gradient) is cut into fixed K chunks summed in order: exact on integer
// values, and the same bytes at every pool width on random floats.
TEST(LinalgConv, LongContractionInKChunks) {
  const std::string hlo = R"(
HloModule m
ENTRY e {
  x = f32[32,64,64,8]{3,2,1,0} parameter(0)
  k = f32[64,64,8,32]{3,2,1,0} parameter(1)
  ROOT c = f32[32,1,1,32]{3,2,1,0} convolution(x, k), window={size=64x64}, dim_labels=b01f_01io->b01f
})";
  absl::StatusOr<std::unique_ptr<hlo::Module>> module = ParseModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  const int64_t B = 32, K = 64 * 64 * 8, O = 32;
  std::mt19937_64 rng(91);
  const int saved = ThreadPoolWidth();
  for (const bool integers : {true, false}) {
    std::vector<Literal> args;
    args.emplace_back(ParseShape("f32[32,64,64,8]{3,2,1,0}").value());
    args.emplace_back(ParseShape("f32[64,64,8,32]{3,2,1,0}").value());
    std::uniform_real_distribution<float> u(-1, 1);
    for (Literal& a : args)
      for (int64_t i = 0; i < a.physical_count(); ++i)
        a.SetRaw<float>(i, integers ? static_cast<float>(static_cast<int64_t>(rng() % 7) - 3) : u(rng));
    std::vector<double> ref(B * O, 0.0);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t q = 0; q < K; ++q) {
        const double xv = args[0].GetRaw<float>(b * K + q);
        for (int64_t o = 0; o < O; ++o) ref[b * O + o] += xv * args[1].GetRaw<float>(q * O + o);
      }
    std::vector<std::vector<uint8_t>> bytes;
    for (int width : {1, 2, 3}) {
      SetThreadPoolWidth(width);
      absl::StatusOr<RunResult> r = RunModule(**module, args);
      ASSERT_TRUE(r.ok()) << r.status();
      const Literal& out = r->results[0];
      bytes.emplace_back(out.data(), out.data() + out.size_bytes());
      for (int64_t i = 0; i < B * O; ++i) {
        if (integers) {
          ASSERT_EQ(out.GetRaw<float>(i), ref[i]) << i;
        } else {
          ASSERT_NEAR(out.GetRaw<float>(i), ref[i], 1e-3) << i;
        }
      }
    }
    EXPECT_EQ(bytes[0], bytes[1]);
    EXPECT_EQ(bytes[0], bytes[2]);
  }
  SetThreadPoolWidth(saved);
}

// The result bytes are the same for every pool width.
TEST(LinalgConv, BitIdenticalAcrossThreadCounts) {
  std::mt19937_64 rng(53);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<ConvSpec> specs = {Spec2D(3, 32, 24, 20, 22, 3, 1, 1, "nhwc"),
                                 Spec2D(3, 32, 24, 20, 22, 3, 1, 1, "nchw"),
                                 Spec2D(2, 48, 16, 15, 17, 3, 2, 1, "odd"),
                                 Spec2D(2, 64, 32, 19, 21, 1, 1, 0, "nchw"),
                                 Spec2D(2, 64, 32, 19, 21, 1, 1, 0, "nhwc")};
  const int saved = ThreadPoolWidth();
  for (const ConvSpec& s : specs) {
    std::vector<int64_t> id = {s.n, s.c}, kd = {s.o, s.c / s.fg};
    id.insert(id.end(), s.in.begin(), s.in.end());
    kd.insert(kd.end(), s.ks.begin(), s.ks.end());
    std::vector<double> x(Prod(id)), w(Prod(kd));
    for (auto& v : x) v = static_cast<float>(u(rng));
    for (auto& v : w) v = static_cast<float>(u(rng));
    const ConvProblem p = MakeConv(s, x, w);
    std::vector<std::vector<uint8_t>> bytes;
    for (int width : {1, 2, 3}) {
      SetThreadPoolWidth(width);
      Literal r = RunHlo(p.hlo, {LitText("f32", p.idims, x), LitText("f32", p.kdims, w)});
      bytes.emplace_back(r.data(), r.data() + r.size_bytes());
      // Close to the exact reference too.
      const std::vector<double> got = Values(r);
      ASSERT_EQ(got.size(), p.ref.size());
      for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], p.ref[i], 1e-3) << p.hlo;
    }
    EXPECT_EQ(bytes[0], bytes[1]) << p.hlo;
    EXPECT_EQ(bytes[0], bytes[2]) << p.hlo;
  }
  SetThreadPoolWidth(saved);
}

// ===================================================================== fft

std::vector<cd> NaiveDft(const std::vector<cd>& x, const std::vector<int64_t>& dims, int r,
                         bool inverse) {
  // Transform the innermost r dims of row-major x.
  std::vector<int64_t> n(dims.end() - r, dims.end());
  const int64_t inner = Prod(n), batch = Prod(dims) / std::max<int64_t>(inner, 1);
  std::vector<cd> y(x.size());
  const double sign = inverse ? 1 : -1;
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<int64_t> k(r, 0);
    for (int64_t ki = 0; ki < inner; ++ki) {
      cd s = 0;
      std::vector<int64_t> j(r, 0);
      for (int64_t ji = 0; ji < inner; ++ji) {
        double ph = 0;
        for (int d = 0; d < r; ++d) ph += static_cast<double>(k[d] * j[d] % n[d]) / n[d];
        s += x[b * inner + ji] * std::polar(1.0, sign * 2 * M_PI * ph);
        j = NextIndex(j, n);
      }
      y[b * inner + ki] = inverse ? s / static_cast<double>(inner) : s;
      k = NextIndex(k, n);
    }
  }
  return y;
}

TEST(LinalgFft, Known1D) {
  Literal r = RunHlo(Module({"c64[4]{0}"}, "c64[4]{0}", "fft", "fft_type=FFT, fft_length={4}"),
                  {"c64[4] {(1, 0), (2, 0), (3, 0), (4, 0)}"});
  EXPECT_EQ(ComplexValues(r), std::vector<cd>({{10, 0}, {-2, 2}, {-2, 0}, {-2, -2}}));
  r = RunHlo(Module({"c64[4]{0}"}, "c64[4]{0}", "fft", "fft_type=IFFT, fft_length={4}"),
          {"c64[4] {(10, 0), (-2, 2), (-2, 0), (-2, -2)}"});
  EXPECT_EQ(ComplexValues(r), std::vector<cd>({{1, 0}, {2, 0}, {3, 0}, {4, 0}}));
  r = RunHlo(Module({"f32[4]{0}"}, "c64[3]{0}", "fft", "fft_type=RFFT, fft_length={4}"),
          {"f32[4]{0} {1, 2, 3, 4}"});
  EXPECT_EQ(ComplexValues(r), std::vector<cd>({{10, 0}, {-2, 2}, {-2, 0}}));
  r = RunHlo(Module({"c64[3]{0}"}, "f32[4]{0}", "fft", "fft_type=IRFFT, fft_length={4}"),
          {"c64[3] {(10, 0), (-2, 2), (-2, 0)}"});
  EXPECT_EQ(Values(r), std::vector<double>({1, 2, 3, 4}));
}

void RandomFfts(bool dbl, int trials, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  const std::string ct = dbl ? "c128" : "c64", rt = dbl ? "f64" : "f32";
  const double tol = dbl ? 1e-9 : 2e-4;
  for (int t = 0; t < trials; ++t) {
    const int r = 1 + rng() % 3;
    const int nb = rng() % 3;
    std::vector<int64_t> dims;
    for (int i = 0; i < nb; ++i) dims.push_back(1 + rng() % 3);
    for (int i = 0; i < r; ++i) dims.push_back(1 + rng() % 6);
    const std::vector<int64_t> n(dims.end() - r, dims.end());
    const std::string fl = absl::StrCat("fft_length={", absl::StrJoin(n, ","), "}");
    const int64_t cnt = Prod(dims);
    std::vector<double> re(cnt), im(cnt);
    for (auto& x : re) x = dbl ? u(rng) : static_cast<float>(u(rng));
    for (auto& x : im) x = dbl ? u(rng) : static_cast<float>(u(rng));
    std::vector<cd> x(cnt);
    for (int64_t i = 0; i < cnt; ++i) x[i] = cd(re[i], im[i]);
    const auto m2m = RandomM2m(dims.size(), rng);
    for (bool inverse : {false, true}) {
      Literal res = RunHlo(Module({ShapeText(ct, dims, m2m)}, ShapeText(ct, dims, RandomM2m(dims.size(), rng)),
                               "fft", absl::StrCat("fft_type=", inverse ? "IFFT" : "FFT", ", ", fl)),
                        {LitText(ct, dims, re, im)});
      const auto want = NaiveDft(x, dims, r, inverse);
      const auto got = ComplexValues(res);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) ASSERT_LT(std::abs(got[i] - want[i]), tol * cnt);
    }
    // RFFT: real input; output's last dim n/2+1.
    std::vector<cd> xr(cnt);
    for (int64_t i = 0; i < cnt; ++i) xr[i] = cd(re[i], 0);
    const auto full = NaiveDft(xr, dims, r, false);
    std::vector<int64_t> cdims = dims;
    cdims.back() = dims.back() / 2 + 1;
    std::vector<cd> half(Prod(cdims));
    {
      std::vector<int64_t> idx(cdims.size(), 0);
      const auto fst = Strides(dims);
      for (size_t i = 0; i < half.size(); ++i) {
        int64_t s = 0;
        for (size_t d = 0; d < idx.size(); ++d) s += idx[d] * fst[d];
        half[i] = full[s];
        idx = NextIndex(idx, cdims);
      }
    }
    Literal res = RunHlo(Module({ShapeText(rt, dims, m2m)}, ShapeText(ct, cdims, RandomM2m(dims.size(), rng)),
                             "fft", absl::StrCat("fft_type=RFFT, ", fl)),
                      {LitText(rt, dims, re)});
    auto got = ComplexValues(res);
    ASSERT_EQ(got.size(), half.size());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_LT(std::abs(got[i] - half[i]), tol * cnt);
    // IRFFT of the RFFT gives the input back.
    std::vector<double> hre, him;
    for (const cd& c : half) {
      hre.push_back(c.real());
      him.push_back(c.imag());
    }
    res = RunHlo(Module({ShapeText(ct, cdims, DefaultM2m(dims.size()))}, ShapeText(rt, dims, m2m), "fft",
                     absl::StrCat("fft_type=IRFFT, ", fl)),
              {LitText(ct, cdims, hre, him)});
    const auto back = Values(res);
    ASSERT_EQ(back.size(), re.size());
    for (size_t i = 0; i < back.size(); ++i) ASSERT_NEAR(back[i], re[i], tol * cnt);
  }
}

TEST(LinalgFft, RandomC64) { RandomFfts(false, 40, 31); }
TEST(LinalgFft, RandomC128) { RandomFfts(true, 40, 32); }

// Large transforms (threaded plans) on every layout: pure tones have a
// known spectrum (N at the tone's frequency, 0 elsewhere).
TEST(LinalgFft, LargeTonesAllLayouts) {
  // Threaded plans from 2^15 points (restored at the end).
  const int saved_threads = FftPlanThreads();
  const int64_t saved_min = FftThreadMinPoints();
  SetFftThreading(2, int64_t{1} << 15);
  const std::vector<int64_t> dims = {3, 256, 128};
  const int64_t n1 = 256, n2 = 128, N = n1 * n2;
  std::vector<double> re(Prod(dims)), im(Prod(dims));
  const int64_t k1[3] = {0, 5, 200}, k2[3] = {0, 77, 3};
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t j1 = 0; j1 < n1; ++j1)
      for (int64_t j2 = 0; j2 < n2; ++j2) {
        const double ph = 2 * M_PI * (static_cast<double>(k1[b] * j1 % n1) / n1 + static_cast<double>(k2[b] * j2 % n2) / n2);
        re[(b * n1 + j1) * n2 + j2] = static_cast<float>(std::cos(ph));
        im[(b * n1 + j1) * n2 + j2] = static_cast<float>(std::sin(ph));
      }
  const std::string x = LitText("c64", dims, re, im);
  const std::vector<std::vector<int64_t>> layouts = {{2, 1, 0}, {0, 1, 2}, {1, 2, 0}, {2, 0, 1}};
  for (size_t li = 0; li < layouts.size(); ++li) {
    const auto& lin = layouts[li];
    const auto& lout = layouts[(li + 1) % layouts.size()];
    Literal r = RunHlo(Module({ShapeText("c64", dims, lin)}, ShapeText("c64", dims, lout), "fft",
                              "fft_type=FFT, fft_length={256,128}"),
                       {x});
    const auto got = ComplexValues(r);
    ASSERT_EQ(got.size(), re.size());
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t j1 = 0; j1 < n1; ++j1)
        for (int64_t j2 = 0; j2 < n2; ++j2) {
          const cd want = (j1 == k1[b] && j2 == k2[b]) ? cd(N, 0) : cd(0, 0);
          ASSERT_LT(std::abs(got[(b * n1 + j1) * n2 + j2] - want), 0.05) << b << " " << j1 << " " << j2;
        }
    // And back.
    std::vector<double> sre, sim;
    for (const cd& c : got) {
      sre.push_back(c.real());
      sim.push_back(c.imag());
    }
    Literal back = RunHlo(Module({ShapeText("c64", dims, lout)}, ShapeText("c64", dims, lin), "fft",
                                 "fft_type=IFFT, fft_length={256,128}"),
                          {LitText("c64", dims, sre, sim)});
    const auto bv = ComplexValues(back);
    for (size_t i = 0; i < bv.size(); ++i) ASSERT_LT(std::abs(bv[i] - cd(re[i], im[i])), 1e-4);
  }
  // RFFT of the real parts (cos tones: N/2 at k and at -k) and IRFFT back.
  const std::vector<int64_t> cdims = {3, 256, 65};
  for (const auto& lin : layouts) {
    Literal r = RunHlo(Module({ShapeText("f32", dims, lin)}, ShapeText("c64", cdims, layouts[3]), "fft",
                              "fft_type=RFFT, fft_length={256,128}"),
                       {LitText("f32", dims, re)});
    const auto got = ComplexValues(r);
    ASSERT_EQ(got.size(), static_cast<size_t>(Prod(cdims)));
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t j1 = 0; j1 < n1; ++j1)
        for (int64_t j2 = 0; j2 < 65; ++j2) {
          double want = 0;
          if (j1 == k1[b] && j2 == k2[b]) want += N / 2.0;
          if (j1 == (n1 - k1[b]) % n1 && j2 == (n2 - k2[b]) % n2) want += N / 2.0;
          ASSERT_LT(std::abs(got[(b * n1 + j1) * 65 + j2] - cd(want, 0)), 0.05) << b << " " << j1 << " " << j2;
        }
    std::vector<double> sre, sim;
    for (const cd& c : got) {
      sre.push_back(c.real());
      sim.push_back(c.imag());
    }
    Literal back = RunHlo(Module({ShapeText("c64", cdims, layouts[1])}, ShapeText("f32", dims, lin), "fft",
                                 "fft_type=IRFFT, fft_length={256,128}"),
                          {LitText("c64", cdims, sre, sim)});
    const auto bv = Values(back);
    ASSERT_EQ(bv.size(), re.size());
    for (size_t i = 0; i < bv.size(); ++i) ASSERT_NEAR(bv[i], re[i], 1e-4);
  }
  SetFftThreading(saved_threads, saved_min);
}

// The result bytes are the same for every pool width (threaded plans).
TEST(LinalgFft, BitIdenticalAcrossThreadCounts) {
  std::mt19937_64 rng(61);
  std::uniform_real_distribution<double> u(-1, 1);
  const int saved = ThreadPoolWidth();
  const int saved_threads = FftPlanThreads();
  const int64_t saved_min = FftThreadMinPoints();
  SetFftThreading(3, int64_t{1} << 15);  // threaded plans, 3 jobs on 1..3 workers
  for (const auto& [dims, len] : std::vector<std::pair<std::vector<int64_t>, std::string>>{
           {{int64_t{1} << 16}, "{65536}"}, {{4, 96, 100}, "{96,100}"}, {{2, 40, 30, 32}, "{40,30,32}"}}) {
    std::vector<double> re(Prod(dims)), im(Prod(dims));
    for (auto& v : re) v = static_cast<float>(u(rng));
    for (auto& v : im) v = static_cast<float>(u(rng));
    const std::string x = LitText("c64", dims, re, im);
    const std::string s = ShapeText("c64", dims, DefaultM2m(dims.size()));
    std::vector<std::vector<uint8_t>> bytes;
    for (int width : {1, 2, 3}) {
      SetThreadPoolWidth(width);
      Literal r = RunHlo(Module({s}, s, "fft", absl::StrCat("fft_type=FFT, fft_length=", len)), {x});
      bytes.emplace_back(r.data(), r.data() + r.size_bytes());
    }
    EXPECT_EQ(bytes[0], bytes[1]) << s;
    EXPECT_EQ(bytes[0], bytes[2]) << s;
  }
  SetThreadPoolWidth(saved);
  SetFftThreading(saved_threads, saved_min);
}

// Batched transforms of 1 MB and more run in chunks of the outermost batch
// dimension (ops_fft.cc); 9 batches of 64x256 make chunks of 2 indices and
// a last one of 1. Tones check the values (FFT: N at the tone, IFFT: 1 at
// minus the tone) for the chunked layout and for one whose batch dim is
// not outermost (unchunked); every width gives the same bytes.
TEST(LinalgFft, ChunkedBatchesTonesAndWidths) {
  const std::vector<int64_t> dims = {9, 64, 256};
  const int64_t N = 256;
  std::vector<double> re(Prod(dims)), im(Prod(dims));
  auto tone = [](int64_t b, int64_t j) { return (b * 37 + j * 3) % 256; };
  for (int64_t b = 0; b < 9; ++b)
    for (int64_t j = 0; j < 64; ++j)
      for (int64_t t = 0; t < N; ++t) {
        const double ph = 2 * M_PI * static_cast<double>(tone(b, j) * t % N) / N;
        re[(b * 64 + j) * N + t] = std::cos(ph);
        im[(b * 64 + j) * N + t] = std::sin(ph);
      }
  const std::string x = LitText("c64", dims, re, im);
  const int saved = ThreadPoolWidth();
  for (const auto& m2m : std::vector<std::vector<int64_t>>{{2, 1, 0}, {2, 0, 1}}) {
    const std::string s = ShapeText("c64", dims, m2m);
    for (const std::string type : {"FFT", "IFFT"}) {
      std::vector<std::vector<uint8_t>> bytes;
      for (int width : {1, 2, 3}) {
        SetThreadPoolWidth(width);
        Literal r = RunHlo(Module({s}, s, "fft", absl::StrCat("fft_type=", type, ", fft_length={256}")), {x});
        bytes.emplace_back(r.data(), r.data() + r.size_bytes());
        if (width > 1) continue;
        const auto got = ComplexValues(r);
        ASSERT_EQ(got.size(), re.size());
        for (int64_t b = 0; b < 9; ++b)
          for (int64_t j = 0; j < 64; ++j)
            for (int64_t k = 0; k < N; ++k) {
              const int64_t at = type == "FFT" ? tone(b, j) : (N - tone(b, j)) % N;
              const cd want = k == at ? cd(type == "FFT" ? N : 1, 0) : cd(0, 0);
              ASSERT_LT(std::abs(got[(b * 64 + j) * N + k] - want), type == "FFT" ? 2e-3 : 1e-5)
                  << type << " " << s << " " << b << " " << j << " " << k;
            }
      }
      EXPECT_EQ(bytes[0], bytes[1]) << type << " " << s;
      EXPECT_EQ(bytes[0], bytes[2]) << type << " " << s;
    }
  }
  SetThreadPoolWidth(saved);
}

// A layout whose transformed dims are not dense (the transformed dim
// outside a batch dim, or a batch dim between transformed ones) runs
// staged: chunks gathered into / scattered from a dense box in cache. Each
// transform then meets the plan the dense layouts use, so the values are
// the dense layouts' bits, for every pool width and with the scatter's
// non-temporal stores (forced here for every size). 5 batches of 64 x 256
// make chunks of 2 with a tail of 1 (kChunkBytes).
TEST(LinalgFft, StagedLayoutsGiveTheDenseLayoutsBits) {
  const std::vector<int64_t> dims = {5, 64, 256}, half = {5, 64, 129};
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> re(Prod(dims)), im(Prod(dims)), hre(Prod(half)), him(Prod(half));
  for (auto* v : {&re, &im, &hre, &him})
    for (double& x : *v) x = static_cast<float>(u(rng));
  const std::vector<int64_t> dense = {2, 1, 0};
  const std::vector<std::vector<int64_t>> others = {{1, 0, 2}, {0, 2, 1}, {2, 0, 1}, {1, 2, 0}};
  struct Case {
    std::string type, in_t, out_t;
    std::vector<int64_t> in_dims, out_dims;
  };
  const std::vector<Case> cases = {{"FFT", "c64", "c64", dims, dims},
                                   {"IFFT", "c64", "c64", dims, dims},
                                   {"IFFT", "c128", "c128", dims, dims},
                                   {"RFFT", "f32", "c64", dims, half},
                                   {"IRFFT", "c64", "f32", half, dims}};
  const int saved = ThreadPoolWidth();
  const int64_t saved_stream = FftStreamOutMinBytes();
  for (const Case& c : cases) {
    const bool complex_in = c.in_t[0] == 'c';
    const std::string x = complex_in ? LitText(c.in_t, c.in_dims, c.in_dims == half ? hre : re,
                                               c.in_dims == half ? him : im)
                                     : LitText(c.in_t, c.in_dims, re);
    const std::string attrs = absl::StrCat("fft_type=", c.type, ", fft_length={256}");
    auto run = [&](const std::vector<int64_t>& lin, const std::vector<int64_t>& lout) {
      Literal r = RunHlo(Module({ShapeText(c.in_t, c.in_dims, lin)}, ShapeText(c.out_t, c.out_dims, lout),
                                "fft", attrs),
                         {x});
      return c.out_t[0] == 'c' ? ComplexValues(r) : [&] {
        std::vector<cd> v;
        for (double d : Values(r)) v.push_back(cd(d, 0));
        return v;
      }();
    };
    SetThreadPoolWidth(1);
    const std::vector<cd> want = run(dense, dense);
    for (const auto& l : others) {
      const std::string what = absl::StrCat(c.type, " ", c.in_t, " layout {", absl::StrJoin(l, ","), "}");
      EXPECT_EQ(run(l, dense), want) << what << " in";
      EXPECT_EQ(run(dense, l), want) << what << " out";
      EXPECT_EQ(run(l, l), want) << what << " both";
    }
    SetThreadPoolWidth(2);
    EXPECT_EQ(run(others[0], others[0]), want) << c.type << " " << c.in_t << " 2 threads";
    SetThreadPoolWidth(1);
    SetFftStreamOutMinBytes(0);
    EXPECT_EQ(run(dense, others[0]), want) << c.type << " " << c.in_t << " streamed";
    SetFftStreamOutMinBytes(saved_stream);
  }
  SetThreadPoolWidth(saved);
}

// ================================================================ cholesky

TEST(LinalgCholesky, Known) {
  // A = L L^T with L = {{2,0,0},{6,1,0},{-8,5,3}}.
  const std::string a = "f32[3,3] {{4, 12, -16}, {12, 37, -43}, {-16, -43, 98}}";
  Literal r = RunHlo(Module({"f32[3,3]{1,0}"}, "f32[3,3]{1,0}", "cholesky", "lower=true"), {a});
  EXPECT_EQ(Values(r), std::vector<double>({2, 0, 0, 6, 1, 0, -8, 5, 3}));
  r = RunHlo(Module({"f32[3,3]{0,1}"}, "f32[3,3]{1,0}", "cholesky", "lower=false"), {a});
  EXPECT_EQ(Values(r), std::vector<double>({2, 6, -8, 0, 1, 5, 0, 0, 3}));
  // Only the named triangle is read: garbage in the other one.
  r = RunHlo(Module({"f64[3,3]{1,0}"}, "f64[3,3]{1,0}", "cholesky", "lower=true"),
          {"f64[3,3] {{4, 99, 99}, {12, 37, 99}, {-16, -43, 98}}"});
  EXPECT_EQ(Values(r), std::vector<double>({2, 0, 0, 6, 1, 0, -8, 5, 3}));
}

TEST(LinalgCholesky, NotPositiveDefiniteGivesNaN) {
  Literal r = RunHlo(Module({"f32[2,2,2]{2,1,0}"}, "f32[2,2,2]{2,1,0}", "cholesky", "lower=true"),
                  {"f32[2,2,2] {{{1, 2}, {2, 1}}, {{4, 0}, {0, 9}}}"});
  const auto v = Values(r);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan(v[i]));
  EXPECT_EQ(std::vector<double>(v.begin() + 4, v.end()), std::vector<double>({2, 0, 0, 3}));
}

TEST(LinalgCholesky, RandomBatchedComplexAndReal) {
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const std::string type : {"f32", "f64", "c64", "c128"}) {
    for (bool lower : {true, false}) {
      const bool cplx = type[0] == 'c';
      const int64_t B = 3, n = 4;
      std::vector<cd> L(B * n * n), A(B * n * n);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j <= i; ++j)
            L[b * n * n + i * n + j] = i == j ? cd(1 + std::fabs(u(rng)), 0) : cd(u(rng), cplx ? u(rng) : 0);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            cd s = 0;
            for (int64_t k = 0; k < n; ++k) s += L[b * n * n + i * n + k] * std::conj(L[b * n * n + j * n + k]);
            A[b * n * n + i * n + j] = s;
          }
      std::vector<double> re, im;
      for (const cd& c : A) {
        re.push_back(c.real());
        im.push_back(c.imag());
      }
      const std::string shape = ShapeText(type, {B, n, n}, RandomM2m(3, rng));
      Literal r = RunHlo(Module({shape}, shape, "cholesky", lower ? "lower=true" : "lower=false"),
                      {LitText(type, {B, n, n}, re, im)});
      const auto got = ComplexValues(r);
      const double tol = (type == "f32" || type == "c64") ? 1e-4 : 1e-10;
      for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            // lower: L; upper: U = L^H.
            const cd want = lower ? L[b * n * n + i * n + j] : std::conj(L[b * n * n + j * n + i]);
            ASSERT_LT(std::abs(got[b * n * n + i * n + j] - want), tol) << type << " lower=" << lower;
          }
    }
  }
}

// ======================================================== triangular-solve

TEST(LinalgTriangularSolve, AllCombinations) {
  std::mt19937_64 rng(51);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const std::string type : {"f32", "f64", "c64", "c128"}) {
    const bool cplx = type[0] == 'c';
    const double tol = (type == "f32" || type == "c64") ? 1e-4 : 1e-10;
    for (int combo = 0; combo < 24; ++combo) {
      const bool left = combo & 1, lower = combo & 2, unit = combo & 4;
      const int tr = combo / 8;  // 0 no, 1 transpose, 2 adjoint
      const int64_t B = 2, m = 3, n = 4, k = left ? m : n;
      std::vector<cd> a(B * k * k), bm(B * m * n);
      for (auto& x : a) x = cd(u(rng) * 100, cplx ? u(rng) : 0);  // garbage outside the triangle
      for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < k; ++i)
          for (int64_t j = 0; j < k; ++j) {
            cd& e = a[b * k * k + i * k + j];
            if (i == j && !unit) e = cd(2 + u(rng), cplx ? u(rng) : 0);
            else if ((lower && j < i) || (!lower && j > i)) e = cd(u(rng), cplx ? u(rng) : 0);
          }
      for (auto& x : bm) x = cd(u(rng), cplx ? u(rng) : 0);
      // Effective op(A) reading only the named triangle.
      auto opa = [&](int64_t b, int64_t i, int64_t j) {
        int64_t r = i, c = j;
        if (tr) std::swap(r, c);
        cd v;
        if (r == c) v = unit ? cd(1) : a[b * k * k + r * k + c];
        else if ((lower && c < r) || (!lower && c > r)) v = a[b * k * k + r * k + c];
        else v = 0;
        return tr == 2 ? std::conj(v) : v;
      };
      std::vector<double> are, aim, bre, bim;
      for (const cd& c : a) {
        are.push_back(c.real());
        aim.push_back(c.imag());
      }
      for (const cd& c : bm) {
        bre.push_back(c.real());
        bim.push_back(c.imag());
      }
      const std::string attrs = absl::StrCat("left_side=", left ? "true" : "false", ", lower=",
                                             lower ? "true" : "false", ", unit_diagonal=",
                                             unit ? "true" : "false", ", transpose_a=",
                                             tr == 0 ? "NO_TRANSPOSE" : tr == 1 ? "TRANSPOSE" : "ADJOINT");
      const std::string hlo = Module({ShapeText(type, {B, k, k}, RandomM2m(3, rng)),
                                      ShapeText(type, {B, m, n}, RandomM2m(3, rng))},
                                     ShapeText(type, {B, m, n}, RandomM2m(3, rng)), "triangular-solve", attrs);
      Literal r = RunHlo(hlo, {LitText(type, {B, k, k}, are, aim), LitText(type, {B, m, n}, bre, bim)});
      const auto x = ComplexValues(r);
      ASSERT_EQ(x.size(), bm.size());
      for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            cd s = 0;
            if (left) {
              for (int64_t p = 0; p < k; ++p) s += opa(b, i, p) * x[b * m * n + p * n + j];
            } else {
              for (int64_t p = 0; p < k; ++p) s += x[b * m * n + i * n + p] * opa(b, p, j);
            }
            ASSERT_LT(std::abs(s - bm[b * m * n + i * n + j]), tol) << hlo;
          }
    }
  }
}

// ============================================================== batch norm

TEST(LinalgBatchNorm, TrainingKnown) {
  const std::string hlo =
      "HloModule m\n\nENTRY %main (x: f32[2,2], s: f32[2], o: f32[2]) -> (f32[2,2], f32[2], f32[2]) {\n"
      "  %x = f32[2,2]{1,0} parameter(0)\n  %s = f32[2]{0} parameter(1)\n  %o = f32[2]{0} parameter(2)\n"
      "  ROOT %r = (f32[2,2]{1,0}, f32[2]{0}, f32[2]{0}) batch-norm-training(%x, %s, %o), epsilon=0, "
      "feature_index=1\n}\n";
  Literal r = RunHlo(hlo, {"f32[2,2] {{1, 2}, {3, 4}}", "f32[2]{0} {1, 2}", "f32[2]{0} {0, 1}"});
  ASSERT_TRUE(r.IsTuple());
  EXPECT_EQ(Values(r.tuple_elements()[0]), std::vector<double>({-1, -1, 1, 3}));
  EXPECT_EQ(Values(r.tuple_elements()[1]), std::vector<double>({2, 3}));
  EXPECT_EQ(Values(r.tuple_elements()[2]), std::vector<double>({1, 1}));
}

TEST(LinalgBatchNorm, InferenceKnown) {
  const std::string hlo =
      "HloModule m\n\nENTRY %main (x: f32[2,2], s: f32[2], o: f32[2], m: f32[2], v: f32[2]) -> f32[2,2] {\n"
      "  %x = f32[2,2]{0,1} parameter(0)\n  %s = f32[2]{0} parameter(1)\n  %o = f32[2]{0} parameter(2)\n"
      "  %m = f32[2]{0} parameter(3)\n  %v = f32[2]{0} parameter(4)\n"
      "  ROOT %r = f32[2,2]{1,0} batch-norm-inference(%x, %s, %o, %m, %v), epsilon=1, feature_index=0\n}\n";
  // feature 0: (x - 1) / sqrt(3 + 1) * 2 + 1; feature 1: (x - 0) / sqrt(0 + 1) * 1 - 1.
  Literal r = RunHlo(hlo, {"f32[2,2] {{3, 5}, {4, 6}}", "f32[2]{0} {2, 1}", "f32[2]{0} {1, -1}", "f32[2]{0} {1, 0}",
                        "f32[2]{0} {3, 0}"});
  EXPECT_EQ(Values(r), std::vector<double>({3, 5, 3, 5}));
}

TEST(LinalgBatchNorm, GradMatchesSpecFormulas) {
  std::mt19937_64 rng(61);
  std::uniform_real_distribution<double> u(-1, 1);
  const int64_t A = 3, F = 2, Bd = 4;  // operand [3,2,4], feature_index=1
  std::vector<double> x(A * F * Bd), dy(A * F * Bd), scale(F), mean(F), var(F);
  for (auto& v : x) v = static_cast<float>(u(rng));
  for (auto& v : dy) v = static_cast<float>(u(rng));
  for (auto& v : scale) v = static_cast<float>(u(rng));
  for (auto& v : mean) v = static_cast<float>(u(rng) * 0.1);
  for (auto& v : var) v = static_cast<float>(0.5 + std::fabs(u(rng)));
  const double eps = 0.125;
  const std::string hlo =
      "HloModule m\n\nENTRY %main (x: f32[3,2,4], s: f32[2], m: f32[2], v: f32[2], g: f32[3,2,4]) -> "
      "(f32[3,2,4], f32[2], f32[2]) {\n"
      "  %x = f32[3,2,4]{0,2,1} parameter(0)\n  %s = f32[2]{0} parameter(1)\n  %m = f32[2]{0} parameter(2)\n"
      "  %v = f32[2]{0} parameter(3)\n  %g = f32[3,2,4]{2,1,0} parameter(4)\n"
      "  ROOT %r = (f32[3,2,4]{2,1,0}, f32[2]{0}, f32[2]{0}) batch-norm-grad(%x, %s, %m, %v, %g), "
      "epsilon=0.125, feature_index=1\n}\n";
  Literal r = RunHlo(hlo, {LitText("f32", {A, F, Bd}, x), LitText("f32", {F}, scale), LitText("f32", {F}, mean),
                        LitText("f32", {F}, var), LitText("f32", {A, F, Bd}, dy)});
  ASSERT_TRUE(r.IsTuple());
  const auto gx = Values(r.tuple_elements()[0]), gs = Values(r.tuple_elements()[1]),
             go = Values(r.tuple_elements()[2]);
  const double m = A * Bd;
  for (int64_t l = 0; l < F; ++l) {
    double c = 0, d = 0, gsum = 0;
    for (int64_t i = 0; i < A; ++i)
      for (int64_t k = 0; k < Bd; ++k) {
        const int64_t e = (i * F + l) * Bd + k;
        c += dy[e] * (x[e] - mean[l]) / (var[l] + eps);
        d += dy[e];
        gsum += dy[e] * (x[e] - mean[l]) / std::sqrt(var[l] + eps);
      }
    EXPECT_NEAR(gs[l], gsum, 1e-5);
    EXPECT_NEAR(go[l], d, 1e-5);
    c /= m;
    d /= m;
    for (int64_t i = 0; i < A; ++i)
      for (int64_t k = 0; k < Bd; ++k) {
        const int64_t e = (i * F + l) * Bd + k;
        EXPECT_NEAR(gx[e], scale[l] / std::sqrt(var[l] + eps) * (dy[e] - d - c * (x[e] - mean[l])), 1e-5);
      }
  }
}

}  // namespace
}  // namespace hlo::cpu
