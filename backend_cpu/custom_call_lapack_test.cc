// JAX's LAPACK custom-call targets, factorizations and solves
// (custom_call_lapack.cc): each result is checked against the identity that
// defines it (P A = L U, L L^H = A, Q R = A, op(a) x = alpha b, T x = b) on
// random batches, for the four element types and for column-major
// ({1,2,0}, what JAX asks for) and row-major operand layouts.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/lapack_test_util.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

using namespace lapack_test;  // NOLINT: the shared test vocabulary

// ===================================================================== getrf

void CheckGetrf(const std::string& t, std::vector<int64_t> batch, int64_t m, int64_t n, bool col, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t nb = std::max<int64_t>(1, [&] { int64_t p = 1; for (auto d : batch) p *= d; return p; }());
  std::vector<Mat> as;
  for (int64_t b = 0; b < nb; ++b) as.push_back(Random(m, n, IsComplex(t), rng));
  const int64_t k = std::min(m, n);
  const std::vector<int64_t> dims = Cat(batch, {m, n});
  const std::string out = absl::StrCat("(", ShapeText(t, dims, col), ", ", ShapeText("s32", Cat(batch, {k}), false), ", ",
                                       ShapeText("s32", batch, false), ")");
  Literal r = RunOk(CallModule({ShapeText(t, dims, col)}, out, absl::StrCat("lapack_", Letter(t), "getrf_ffi"), ""),
                  {LitText(t, dims, as)});
  ASSERT_TRUE(r.IsTuple());
  for (int64_t b = 0; b < nb; ++b) {
    SCOPED_TRACE(absl::StrCat(t, " ", m, "x", n, " batch ", b));
    EXPECT_EQ(GetInfo(r.tuple_elements()[2], b), 0);
    Mat lu = Get(r.tuple_elements()[0], b);
    std::vector<cd> piv = GetVec(r.tuple_elements()[1], b);
    // P A: the row swaps i <-> piv[i]-1 in order (pivots are 1-based).
    Mat pa = as[b];
    for (int64_t i = 0; i < k; ++i) {
      const int64_t p = static_cast<int64_t>(piv[i].real()) - 1;
      ASSERT_GE(p, i);
      ASSERT_LT(p, m);
      for (int64_t j = 0; j < n; ++j) std::swap(pa(i, j), pa(p, j));
    }
    Mat l(m, k), u(k, n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j) l(i, j) = i == j ? cd(1) : i > j ? lu(i, j) : cd(0);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) u(i, j) = j >= i ? lu(i, j) : cd(0);
    EXPECT_LT(MaxDiff(Mul(l, u), pa), Tol(t));
  }
}

TEST(LapackGetrf, PLUEqualsPAAllTypesShapesLayouts) {
  uint64_t seed = 1;
  for (const char* t : kTypes)
    for (bool col : {true, false}) {
      CheckGetrf(t, {2}, 4, 4, col, seed++);
      CheckGetrf(t, {3}, 5, 3, col, seed++);
      CheckGetrf(t, {}, 3, 5, col, seed++);
      CheckGetrf(t, {2, 2}, 3, 3, col, seed++);
    }
}

TEST(LapackGetrf, SingularMatrixReportsInfo) {
  // Column 2 is zero: U(2,2) = 0 exactly, LAPACK's info is its 1-based index.
  Literal r = RunOk(CallModule({"f64[3,3]{0,1}"}, "(f64[3,3]{0,1}, s32[3]{0}, s32[])", "lapack_dgetrf_ffi", ""),
                  {"f64[3,3] {{1, 2, 0}, {3, 4, 0}, {5, 6, 0}}"});
  ASSERT_TRUE(r.IsTuple());
  EXPECT_EQ(r.tuple_elements()[2].GetInt(0), 3);
}

// ===================================================================== potrf

void CheckPotrf(const std::string& t, bool lower, bool col, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t n = 4;
  std::vector<Mat> as = {RandomHpd(n, IsComplex(t), rng), RandomHpd(n, IsComplex(t), rng)};
  const std::vector<int64_t> dims = {2, n, n};
  const std::string out = absl::StrCat("(", ShapeText(t, dims, col), ", s32[2]{0})");
  const std::string attrs = absl::StrCat("backend_config={uplo = ", lower ? 76 : 85, " : ui8}");
  Literal r = RunOk(CallModule({ShapeText(t, dims, col)}, out, absl::StrCat("lapack_", Letter(t), "potrf_ffi"), attrs),
                  {LitText(t, dims, as)});
  ASSERT_TRUE(r.IsTuple());
  for (int64_t b = 0; b < 2; ++b) {
    SCOPED_TRACE(absl::StrCat(t, lower ? " lower" : " upper", " batch ", b));
    EXPECT_EQ(GetInfo(r.tuple_elements()[1], b), 0);
    Mat f = Get(r.tuple_elements()[0], b);
    Mat tri(n, n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const bool in = lower ? j <= i : j >= i;
        tri(i, j) = in ? f(i, j) : cd(0);
        // LAPACK leaves the other triangle as it was.
        if (!in) {
          EXPECT_LT(std::abs(f(i, j) - as[b](i, j)), Tol(t));
        }
      }
    Mat prod = lower ? Mul(tri, Adjoint(tri)) : Mul(Adjoint(tri), tri);
    EXPECT_LT(MaxDiff(prod, as[b]), Tol(t) * 10);
  }
}

TEST(LapackPotrf, FactorTimesAdjointIsInput) {
  uint64_t seed = 100;
  for (const char* t : kTypes)
    for (bool lower : {true, false})
      for (bool col : {true, false}) CheckPotrf(t, lower, col, seed++);
}

TEST(LapackPotrf, NotPositiveDefiniteAndDefaultUplo) {
  // No backend_config: JAX's only choice, uplo 'L'. The second matrix has a
  // negative leading minor of order 2: info 2.
  Literal r = RunOk(CallModule({"f32[2,2,2]{1,2,0}"}, "(f32[2,2,2]{1,2,0}, s32[2]{0})", "lapack_spotrf_ffi", ""),
                  {"f32[2,2,2] {{{4, 7}, {2, 5}}, {{1, 2}, {2, 1}}}"});
  ASSERT_TRUE(r.IsTuple());
  EXPECT_EQ(r.tuple_elements()[1].GetInt(r.tuple_elements()[1].Slot({0})), 0);
  EXPECT_EQ(r.tuple_elements()[1].GetInt(r.tuple_elements()[1].Slot({1})), 2);
  Mat f = Get(r.tuple_elements()[0], 0);
  // 4 = 2*2, 2 = 1*2, 5 = 1 + 2*2: L = {{2, 0}, {1, 2}}; the 7 above stays.
  EXPECT_EQ(f(0, 0), cd(2));
  EXPECT_EQ(f(1, 0), cd(1));
  EXPECT_EQ(f(1, 1), cd(2));
  EXPECT_EQ(f(0, 1), cd(7));
}

// ============================================================ geqrf + orgqr

void CheckQr(const std::string& t, int64_t m, int64_t n, bool col, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Mat> as = {Random(m, n, IsComplex(t), rng), Random(m, n, IsComplex(t), rng)};
  const int64_t k = std::min(m, n);
  const std::string a = ShapeText(t, {2, m, n}, col);
  const std::string tau = ShapeText(t, {2, k}, false);
  const std::string l = Letter(t);
  // orgqr needs rows >= columns: JAX pads a wide R's reflectors to m x m.
  const std::string hlo = absl::StrCat(
      "HloModule m\n\nENTRY %main (p: ", a, ") -> (", a, ", ", a, ") {\n  %p = ", a, " parameter(0)\n",
      "  %f = (", a, ", ", tau, ") custom-call(%p), custom_call_target=\"lapack_", l,
      "geqrf_ffi\", api_version=API_VERSION_TYPED_FFI\n  %h = ", a, " get-tuple-element(%f), index=0\n",
      "  %tau = ", tau, " get-tuple-element(%f), index=1\n  %q = ", a, " custom-call(%h, %tau), custom_call_target=\"lapack_", l,
      IsComplex(t) ? "ungqr" : "orgqr", "_ffi\", api_version=API_VERSION_TYPED_FFI\n  ROOT %r = (", a, ", ", a,
      ") tuple(%h, %q)\n}\n");
  Literal r = RunOk(hlo, {LitText(t, {2, m, n}, as)});
  ASSERT_TRUE(r.IsTuple());
  for (int64_t b = 0; b < 2; ++b) {
    SCOPED_TRACE(absl::StrCat(t, " ", m, "x", n, " batch ", b));
    Mat h = Get(r.tuple_elements()[0], b), q = Get(r.tuple_elements()[1], b);
    Mat rr(n, n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i; j < n; ++j) rr(i, j) = h(i, j);
    EXPECT_LT(MaxDiff(Mul(q, rr), as[b]), Tol(t) * 10);
    EXPECT_LT(MaxDiff(Mul(Adjoint(q), q), Identity(n)), Tol(t) * 10);
  }
}

TEST(LapackGeqrfOrgqr, QTimesREqualsInputAndQOrthonormal) {
  uint64_t seed = 200;
  for (const char* t : kTypes)
    for (bool col : {true, false}) {
      CheckQr(t, 5, 3, col, seed++);
      CheckQr(t, 4, 4, col, seed++);
    }
}

TEST(LapackGeqrf, WideMatrixAndKnownReflector) {
  // a = {{3, 1}, {4, 2}}: the first column has norm 5, so R(0,0) = -5 (LAPACK
  // makes beta = -sign(alpha) * norm) and tau = (beta - alpha)/beta = 1.6.
  Literal r = RunOk(CallModule({"f64[2,2]{0,1}"}, "(f64[2,2]{0,1}, f64[2]{0})", "lapack_dgeqrf_ffi", ""),
                  {"f64[2,2] {{3, 1}, {4, 2}}"});
  ASSERT_TRUE(r.IsTuple());
  EXPECT_NEAR(Get(r.tuple_elements()[0], 0)(0, 0).real(), -5, 1e-12);
  EXPECT_NEAR(r.tuple_elements()[1].GetDouble(0), 1.6, 1e-12);
}

TEST(LapackGeqrf, OlderFourResultFormHasZeroInfoAndWork) {
  // Older jaxlib: (a, tau, info, work). Same a and tau as the new form.
  Literal r = RunOk(CallModule({"f64[2,2]{0,1}"}, "(f64[2,2]{0,1}, f64[2]{0}, s32[], f64[64]{0})",
                               "lapack_dgeqrf_ffi", ""),
                    {"f64[2,2] {{3, 1}, {4, 2}}"});
  ASSERT_TRUE(r.IsTuple());
  EXPECT_NEAR(Get(r.tuple_elements()[0], 0)(0, 0).real(), -5, 1e-12);
  EXPECT_NEAR(r.tuple_elements()[1].GetDouble(0), 1.6, 1e-12);
  EXPECT_EQ(r.tuple_elements()[2].GetInt(0), 0);
  EXPECT_EQ(r.tuple_elements()[3].GetDouble(63), 0);
}

// geqp3 then orgqr: a[:, jpvt - 1] = Q R, and column pivoting makes
// |R(i,i)| non-increasing.
void CheckGeqp3(const std::string& t, int64_t m, int64_t n, bool col, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Mat> as = {Random(m, n, IsComplex(t), rng), Random(m, n, IsComplex(t), rng)};
  for (int64_t i = 0; i < m; ++i) as[0](i, n - 1) *= 10.0;  // the last column is the largest
  const std::string a = ShapeText(t, {2, m, n}, col), jp = "s32[2," + std::to_string(n) + "]{1,0}";
  const std::string tau = ShapeText(t, {2, n}, false);
  const std::string l = Letter(t);
  const std::string hlo = absl::StrCat(
      "HloModule m\n\nENTRY %main (p: ", a, ", j: ", jp, ") -> (", a, ", ", jp, ", ", a, ") {\n  %p = ", a,
      " parameter(0)\n  %j = ", jp, " parameter(1)\n  %f = (", a, ", ", jp, ", ", tau, ") custom-call(%p, %j), custom_call_target=\"lapack_", l,
      "geqp3_ffi\", api_version=API_VERSION_TYPED_FFI\n  %h = ", a, " get-tuple-element(%f), index=0\n",
      "  %jo = ", jp, " get-tuple-element(%f), index=1\n  %tau = ", tau, " get-tuple-element(%f), index=2\n",
      "  %q = ", a, " custom-call(%h, %tau), custom_call_target=\"lapack_", l, IsComplex(t) ? "ungqr" : "orgqr",
      "_ffi\", api_version=API_VERSION_TYPED_FFI\n  ROOT %r = (", a, ", ", jp, ", ", a, ") tuple(%h, %jo, %q)\n}\n");
  std::vector<std::string> zeros(2 * n, "0");
  Literal r = RunOk(hlo, {LitText(t, {2, m, n}, as), absl::StrCat("s32[2,", n, "] ", NestedBraces({2, n}, zeros))});
  ASSERT_TRUE(r.IsTuple());
  for (int64_t b = 0; b < 2; ++b) {
    SCOPED_TRACE(absl::StrCat(t, " ", m, "x", n, " batch ", b));
    Mat h = Get(r.tuple_elements()[0], b), q = Get(r.tuple_elements()[2], b);
    std::vector<cd> jpvt = GetVec(r.tuple_elements()[1], b);
    if (b == 0) {
      EXPECT_EQ(jpvt[0], cd(static_cast<double>(n)));
    }
    Mat ap(m, n), rr(n, n);
    for (int64_t j = 0; j < n; ++j) {
      const int64_t src = static_cast<int64_t>(jpvt[j].real()) - 1;
      ASSERT_GE(src, 0);
      ASSERT_LT(src, n);
      for (int64_t i = 0; i < m; ++i) ap(i, j) = as[b](i, src);
      for (int64_t i = 0; i <= j; ++i) rr(i, j) = h(i, j);
      if (j) {
        EXPECT_GE(std::abs(rr(j - 1, j - 1)), std::abs(rr(j, j)) * (1 - Tol(t)));
      }
    }
    EXPECT_LT(MaxDiff(Mul(q, rr), ap), Tol(t) * 50);
    EXPECT_LT(MaxDiff(Mul(Adjoint(q), q), Identity(n)), Tol(t) * 10);
  }
}

TEST(LapackGeqp3, PermutedInputEqualsQRWithFallingDiagonal) {
  uint64_t seed = 700;
  for (const char* t : kTypes)
    for (bool col : {true, false}) {
      CheckGeqp3(t, 5, 3, col, seed++);
      CheckGeqp3(t, 3, 3, col, seed++);
    }
}

// ===================================================================== trsm

void CheckTrsm(const std::string& t, char side, char uplo, char trans, char diag, bool alpha_operand, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t m = 3, n = 4, k = side == 'L' ? m : n;
  std::vector<Mat> as, bs;
  for (int b = 0; b < 2; ++b) {
    Mat a = Random(k, k, IsComplex(t), rng);
    for (int64_t i = 0; i < k; ++i) a(i, i) += 4.0;  // well conditioned
    as.push_back(a);
    bs.push_back(Random(m, n, IsComplex(t), rng));
  }
  const std::string a = ShapeText(t, {2, k, k}), bsh = ShapeText(t, {2, m, n});
  std::vector<std::string> params = {a, bsh};
  std::vector<std::string> args = {LitText(t, {2, k, k}, as), LitText(t, {2, m, n}, bs)};
  const cd alpha = alpha_operand ? cd(2, IsComplex(t) ? -1 : 0) : cd(1);
  if (alpha_operand) {
    params.push_back(absl::StrCat(t, "[]"));
    args.push_back(absl::StrCat(t, "[] ", IsComplex(t) ? "(2, -1)" : "2"));
  }
  const std::string attrs = absl::StrCat("backend_config={diag = ", static_cast<int>(diag), " : ui8, side = ",
                                         static_cast<int>(side), " : ui8, trans_x = ", static_cast<int>(trans),
                                         " : ui8, uplo = ", static_cast<int>(uplo), " : ui8}");
  Literal x = RunOk(CallModule(params, bsh, absl::StrCat("lapack_", Letter(t), "trsm_ffi"), attrs), args);
  for (int64_t b = 0; b < 2; ++b) {
    SCOPED_TRACE(absl::StrCat(t, " ", std::string{side, uplo, trans, diag}, " batch ", b));
    // The triangle of a that is read, with a unit diagonal for diag 'U'.
    Mat op(k, k);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j) {
        const bool in = uplo == 'L' ? j <= i : j >= i;
        op(i, j) = i == j && diag == 'U' ? cd(1) : in ? as[b](i, j) : cd(0);
      }
    if (trans != 'N') {
      op = Adjoint(op);
      if (trans == 'T')
        for (cd& v : op.v) v = std::conj(v);
    }
    Mat xs = Get(x, b);
    Mat lhs = side == 'L' ? Mul(op, xs) : Mul(xs, op);
    Mat rhs = bs[b];
    for (cd& v : rhs.v) v *= alpha;
    EXPECT_LT(MaxDiff(lhs, rhs), Tol(t) * 10);
  }
}

TEST(LapackTrsm, SolvesEveryVariant) {
  uint64_t seed = 300;
  for (const char* t : kTypes)
    for (char side : {'L', 'R'})
      for (char uplo : {'L', 'U'})
        for (char trans : {'N', 'T', 'C'}) {
          CheckTrsm(t, side, uplo, trans, seed % 2 ? 'U' : 'N', seed % 3 == 0, seed);
          ++seed;
        }
}


TEST(LapackTrsm, OlderBlasNameWithAlphaOperand) {
  // blas_dtrsm_ffi(a, b, alpha): side 'R', uplo 'U', transpose: x a^T = 2 b
  // with a = {{2, 1}, {0, 4}} (the 5 below is not read), b = {{1, 2}}:
  // x a^T = (2 x1 + x2, 4 x2) = 2 b = (2, 4): x = {{0.5, 1}}.
  Literal x = RunOk(CallModule({"f64[2,2]{0,1}", "f64[1,2]{0,1}", "f64[]"}, "f64[1,2]{0,1}", "blas_dtrsm_ffi",
                               "backend_config={diag = 78 : ui8, side = 82 : ui8, trans_x = 84 : ui8, uplo = 85 : ui8}"),
                    {"f64[2,2] {{2, 1}, {5, 4}}", "f64[1,2] {{1, 2}}", "f64[] 2"});
  Mat m = Get(x, 0);
  EXPECT_EQ(m(0, 0), cd(0.5));
  EXPECT_EQ(m(0, 1), cd(1));
}


// ====================================================================== gtsv

void CheckGtsv(const std::string& t, bool col, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t m = 5, n = 2;
  std::vector<Mat> dl, d, du, bs;
  for (int b = 0; b < 2; ++b) {
    dl.push_back(Random(1, m, IsComplex(t), rng));
    du.push_back(Random(1, m, IsComplex(t), rng));
    Mat dd = Random(1, m, IsComplex(t), rng);
    for (cd& x : dd.v) x += 4.0;  // diagonally dominant
    d.push_back(dd);
    bs.push_back(Random(m, n, IsComplex(t), rng));
  }
  const std::string v = ShapeText(t, {2, m}, false), bsh = ShapeText(t, {2, m, n}, col);
  const std::string out = absl::StrCat("(", v, ", ", v, ", ", v, ", ", bsh, ", s32[2]{0})");
  Literal r = RunOk(CallModule({v, v, v, bsh}, out, absl::StrCat("lapack_", Letter(t), "gtsv_ffi"), ""),
                    {LitText(t, {2, m}, dl), LitText(t, {2, m}, d), LitText(t, {2, m}, du), LitText(t, {2, m, n}, bs)});
  ASSERT_TRUE(r.IsTuple());
  for (int64_t b = 0; b < 2; ++b) {
    SCOPED_TRACE(absl::StrCat(t, " batch ", b));
    EXPECT_EQ(GetInfo(r.tuple_elements()[4], b), 0);
    Mat tri(m, m);
    for (int64_t i = 0; i < m; ++i) {
      tri(i, i) = d[b](0, i);
      if (i > 0) tri(i, i - 1) = dl[b](0, i);      // dl[0] is not used
      if (i + 1 < m) tri(i, i + 1) = du[b](0, i);  // du[m-1] is not used
    }
    EXPECT_LT(MaxDiff(Mul(tri, Get(r.tuple_elements()[3], b)), bs[b]), Tol(t) * 10);
  }
}

TEST(LapackGtsv, TridiagonalTimesSolutionIsB) {
  uint64_t seed = 800;
  for (const char* t : kTypes)
    for (bool col : {true, false}) CheckGtsv(t, col, seed++);
}


// ==================================================================== errors

TEST(LapackErrors, ClearMessagesNamingTheTarget) {
  EXPECT_NE(RunError(CallModule({"f32[2,2]{0,1}"}, "(f32[2,2]{0,1}, s32[2]{0}, s32[])", "lapack_dgetrf_ffi", ""),
                     {"f32[2,2] {{1, 2}, {3, 4}}"})
                .find("lapack_dgetrf_ffi: expects f64 operands, got f32"),
            std::string::npos);
  EXPECT_NE(RunError(CallModule({"f32[2,2]{0,1}"}, "(f32[2,2]{0,1}, s32[])", "lapack_spotrf_ffi",
                                "backend_config={uplo = 88 : ui8}"),
                     {"f32[2,2] {{1, 0}, {0, 1}}"})
                .find("lapack_spotrf_ffi: attribute uplo = 88 is not one of 76 ('L'), 85 ('U')"),
            std::string::npos);
  EXPECT_NE(RunError(CallModule({"f32[2,2]{0,1}", "f32[2,2]{0,1}"}, "f32[2,2]{0,1}", "lapack_strsm_ffi",
                                "backend_config={side = 76 : ui8}"),
                     {"f32[2,2] {{1, 0}, {0, 1}}", "f32[2,2] {{1, 0}, {0, 1}}"})
                .find("lapack_strsm_ffi: missing attribute uplo"),
            std::string::npos);
  EXPECT_NE(RunError(CallModule({"f32[2,3]{0,1}"}, "(f32[2,3]{0,1}, s32[3]{0}, s32[])", "lapack_sgetrf_ffi", ""),
                     {"f32[2,3] {{1, 2, 3}, {3, 4, 5}}"})
                .find("result 1 (pivots) must be s32[2]"),
            std::string::npos);
}

}  // namespace
}  // namespace hlo::cpu
