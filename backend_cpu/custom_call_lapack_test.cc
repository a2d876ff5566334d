// JAX's LAPACK custom-call targets (custom_call_lapack*.cc): each result is
// checked against the identity that defines it (P A = L U, L L^H = A,
// Q R = A, A V = V diag(w), U S Vt = A, ...) on random batches, for the four
// element types and for column-major ({1,2,0}, what JAX asks for) and
// row-major operand layouts.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/test_hlo_text.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

using cd = std::complex<double>;

// A dense logical matrix (row-major), complex<double> whatever the type.
struct Mat {
  int64_t rows = 0, cols = 0;
  std::vector<cd> v;
  Mat(int64_t r, int64_t c) : rows(r), cols(c), v(r * c) {}
  cd& operator()(int64_t i, int64_t j) { return v[i * cols + j]; }
  cd operator()(int64_t i, int64_t j) const { return v[i * cols + j]; }
};

Mat Mul(const Mat& a, const Mat& b) {
  Mat c(a.rows, b.cols);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < b.cols; ++j)
      for (int64_t k = 0; k < a.cols; ++k) c(i, j) += a(i, k) * b(k, j);
  return c;
}

Mat Adjoint(const Mat& a) {
  Mat t(a.cols, a.rows);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j) t(j, i) = std::conj(a(i, j));
  return t;
}

double MaxDiff(const Mat& a, const Mat& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  double d = 0;
  for (size_t i = 0; i < a.v.size() && i < b.v.size(); ++i) d = std::max(d, std::abs(a.v[i] - b.v[i]));
  return d;
}

Mat Identity(int64_t n) {
  Mat m(n, n);
  for (int64_t i = 0; i < n; ++i) m(i, i) = 1;
  return m;
}

bool IsComplex(const std::string& t) { return t[0] == 'c'; }
double Tol(const std::string& t) { return t == "f32" || t == "c64" ? 2e-4 : 1e-10; }
std::string RealOf(const std::string& t) {
  return t == "c64" ? "f32" : t == "c128" ? "f64" : t;
}
std::string ComplexOf(const std::string& t) { return t == "f32" || t == "c64" ? "c64" : "c128"; }
// The LAPACK routine prefix letter of a type.
std::string Letter(const std::string& t) {
  return t == "f32" ? "s" : t == "f64" ? "d" : t == "c64" ? "c" : "z";
}

// minor_to_major of JAX's LAPACK layout ({r-2, r-1, r-3, ..., 0}) or row-major.
std::string LayoutText(size_t rank, bool column_major) {
  std::vector<int64_t> m;
  if (column_major && rank >= 2) {
    m = {static_cast<int64_t>(rank) - 2, static_cast<int64_t>(rank) - 1};
    for (int64_t d = static_cast<int64_t>(rank) - 3; d >= 0; --d) m.push_back(d);
  } else {
    for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 0; --d) m.push_back(d);
  }
  return absl::StrCat("{", absl::StrJoin(m, ","), "}");
}

std::string ShapeText(const std::string& t, const std::vector<int64_t>& dims, bool column_major = true) {
  return absl::StrCat(t, "[", absl::StrJoin(dims, ","), "]", LayoutText(dims.size(), column_major));
}

std::string Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Literal text of `batch` matrices (row-major, logical order) of shape
// `dims` (batch dims, rows, cols).
std::string LitText(const std::string& t, const std::vector<int64_t>& dims, const std::vector<Mat>& ms) {
  std::vector<std::string> elems;
  for (const Mat& m : ms)
    for (const cd& x : m.v)
      elems.push_back(IsComplex(t) ? absl::StrCat("(", Num(x.real()), ", ", Num(x.imag()), ")") : Num(x.real()));
  return absl::StrCat(ShapeText(t, dims, false), " ", NestedBraces(dims, elems));
}

Mat Random(int64_t r, int64_t c, bool complex, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Mat m(r, c);
  for (cd& x : m.v) x = cd(u(rng), complex ? u(rng) : 0.0);
  return m;
}

// Hermitian positive definite: b b^H + n I.
Mat RandomHpd(int64_t n, bool complex, std::mt19937_64& rng) {
  Mat b = Random(n, n, complex, rng);
  Mat a = Mul(b, Adjoint(b));
  for (int64_t i = 0; i < n; ++i) a(i, i) += static_cast<double>(n);
  return a;
}

// The index of batch element `b` (row-major over `dims[0..nbatch)`), the
// remaining dims zero.
std::vector<int64_t> BatchIndex(const Literal& lit, size_t nbatch, int64_t b) {
  const auto& dims = lit.shape().dims();
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t d = static_cast<int64_t>(nbatch) - 1; d >= 0; --d) {
    idx[d] = b % dims[d];
    b /= dims[d];
  }
  return idx;
}

// Matrix `b` of a result of rank >= 2 (batch dims, rows, cols).
Mat Get(const Literal& lit, int64_t b) {
  const size_t r = lit.shape().dims().size();
  std::vector<int64_t> idx = BatchIndex(lit, r - 2, b);
  Mat m(lit.shape().dim(r - 2), lit.shape().dim(r - 1));
  for (int64_t i = 0; i < m.rows; ++i)
    for (int64_t j = 0; j < m.cols; ++j) {
      idx[r - 2] = i;
      idx[r - 1] = j;
      m(i, j) = lit.GetComplex(lit.Slot(idx));
    }
  return m;
}

// Vector `b` of a result of rank >= 1 (batch dims, then the vector).
std::vector<cd> GetVec(const Literal& lit, int64_t b) {
  const size_t r = lit.shape().dims().size();
  std::vector<int64_t> idx = BatchIndex(lit, r - 1, b);
  std::vector<cd> v;
  for (int64_t i = 0; i < lit.shape().dim(r - 1); ++i) {
    idx.back() = i;
    v.push_back(lit.GetComplex(lit.Slot(idx)));
  }
  return v;
}

// Element `b` of a per-matrix s32 result (info).
int64_t GetInfo(const Literal& lit, int64_t b) {
  return lit.GetInt(lit.Slot(BatchIndex(lit, lit.shape().dims().size(), b)));
}

std::vector<int64_t> Cat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Module: parameters `params` (shape texts), ROOT custom-call of `target`
// with result shape `out` and `attrs` (may be empty).
std::string CallModule(const std::vector<std::string>& params, const std::string& out,
                       const std::string& target, const std::string& attrs) {
  return EntryModuleText(params, out, "custom-call",
                         absl::StrCat("custom_call_target=\"", target, "\", api_version=API_VERSION_TYPED_FFI",
                                      attrs.empty() ? "" : ", ", attrs));
}

Literal RunOk(const std::string& hlo, const std::vector<std::string>& args) {
  auto r = RunHloText(hlo, args);
  EXPECT_TRUE(r.ok()) << r.status() << "\n" << hlo;
  if (!r.ok()) return Literal();
  return std::move(*r);
}

std::string RunError(const std::string& hlo, const std::vector<std::string>& args) {
  auto r = RunHloText(hlo, args);
  EXPECT_FALSE(r.ok()) << hlo;
  return r.ok() ? "" : std::string(r.status().message());
}

const char* kTypes[] = {"f32", "f64", "c64", "c128"};

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
        if (!in) EXPECT_LT(std::abs(f(i, j) - as[b](i, j)), Tol(t));
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
    if (b == 0) EXPECT_EQ(jpvt[0], cd(static_cast<double>(n)));
    Mat ap(m, n), rr(n, n);
    for (int64_t j = 0; j < n; ++j) {
      const int64_t src = static_cast<int64_t>(jpvt[j].real()) - 1;
      ASSERT_GE(src, 0);
      ASSERT_LT(src, n);
      for (int64_t i = 0; i < m; ++i) ap(i, j) = as[b](i, src);
      for (int64_t i = 0; i <= j; ++i) rr(i, j) = h(i, j);
      if (j) EXPECT_GE(std::abs(rr(j - 1, j - 1)), std::abs(rr(j, j)) * (1 - Tol(t)));
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
        for (char trans : {'N', 'T', 'C'}) CheckTrsm(t, side, uplo, trans, seed % 2 ? 'U' : 'N', seed % 3 == 0, seed++);
}

// ===================================================================== syevd

// Symmetric/Hermitian `a` with garbage in the triangle not named by `uplo`:
// the result must be that of the matrix mirrored from the named triangle.
void CheckSyevd(const std::string& t, char uplo, char mode, bool col, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t n = 4;
  std::vector<Mat> hs, as;
  for (int b = 0; b < 2; ++b) {
    Mat h = Random(n, n, IsComplex(t), rng);
    h = Mul(h, Adjoint(h));
    for (int64_t i = 0; i < n; ++i) h(i, i) = h(i, i).real();
    Mat a = h;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        if (uplo == 'L' ? j > i : j < i) a(i, j) = cd(99, IsComplex(t) ? 7 : 0);
    hs.push_back(h);
    as.push_back(a);
  }
  const std::vector<int64_t> dims = {2, n, n};
  const std::string name = absl::StrCat("lapack_", Letter(t), IsComplex(t) ? "heevd" : "syevd", "_ffi");
  const std::string out = absl::StrCat("(", ShapeText(t, dims, col), ", ", ShapeText(RealOf(t), {2, n}, false),
                                       ", s32[2]{0})");
  const std::string attrs = absl::StrCat("backend_config={mode = ", static_cast<int>(mode), " : ui8, uplo = ",
                                         static_cast<int>(uplo), " : ui8}");
  Literal r = RunOk(CallModule({ShapeText(t, dims, col)}, out, name, attrs), {LitText(t, dims, as)});
  ASSERT_TRUE(r.IsTuple());
  for (int64_t b = 0; b < 2; ++b) {
    SCOPED_TRACE(absl::StrCat(t, " uplo ", std::string(1, uplo), " mode ", std::string(1, mode), " batch ", b));
    EXPECT_EQ(GetInfo(r.tuple_elements()[2], b), 0);
    std::vector<cd> w = GetVec(r.tuple_elements()[1], b);
    double trace = 0, wsum = 0;
    for (int64_t i = 0; i < n; ++i) {
      trace += hs[b](i, i).real();
      wsum += w[i].real();
      if (i) EXPECT_LE(w[i - 1].real(), w[i].real());  // ascending
    }
    EXPECT_NEAR(trace, wsum, Tol(t) * 10 * n);
    if (mode == 'N') continue;
    Mat v = Get(r.tuple_elements()[0], b);
    Mat vw = v;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) vw(i, j) *= w[j];
    EXPECT_LT(MaxDiff(Mul(hs[b], v), vw), Tol(t) * 20);
    EXPECT_LT(MaxDiff(Mul(Adjoint(v), v), Identity(n)), Tol(t) * 10);
  }
}

TEST(LapackSyevd, EigenpairsOfTheNamedTriangle) {
  uint64_t seed = 400;
  for (const char* t : kTypes)
    for (char uplo : {'L', 'U'})
      for (bool col : {true, false}) CheckSyevd(t, uplo, 'V', col, seed++);
  for (const char* t : kTypes) CheckSyevd(t, 'L', 'N', true, seed++);
}

TEST(LapackSyevd, HandComputedAndDefaultsWithoutBackendConfig) {
  // {{2, 1}, {1, 2}}: eigenvalues 1 and 3 with vectors (1, -1)/sqrt2 and
  // (1, 1)/sqrt2. Without backend_config: JAX's mode 'V', uplo 'L'.
  Literal r = RunOk(CallModule({"f64[2,2]{0,1}"}, "(f64[2,2]{0,1}, f64[2]{0}, s32[])", "lapack_dsyevd_ffi", ""),
                    {"f64[2,2] {{2, 1}, {1, 2}}"});
  ASSERT_TRUE(r.IsTuple());
  EXPECT_NEAR(r.tuple_elements()[1].GetDouble(0), 1, 1e-14);
  EXPECT_NEAR(r.tuple_elements()[1].GetDouble(1), 3, 1e-14);
  Mat v = Get(r.tuple_elements()[0], 0);
  EXPECT_NEAR(std::abs(v(0, 0).real()), std::sqrt(0.5), 1e-14);
  EXPECT_NEAR(v(0, 0).real(), -v(1, 0).real(), 1e-14);
  EXPECT_NEAR(v(0, 1).real(), v(1, 1).real(), 1e-14);
}

// ===================================================================== gesdd

void CheckGesdd(const std::string& t, int64_t m, int64_t n, char mode, bool col, uint64_t seed,
                const std::string& routine = "gesdd") {
  std::mt19937_64 rng(seed);
  std::vector<Mat> as = {Random(m, n, IsComplex(t), rng), Random(m, n, IsComplex(t), rng)};
  const int64_t k = std::min(m, n);
  const bool full = mode == 'A';
  const std::string out =
      absl::StrCat("(", ShapeText(t, {2, m, n}, col), ", ", ShapeText(RealOf(t), {2, k}, false), ", ",
                   ShapeText(t, {2, m, full ? m : k}, col), ", ", ShapeText(t, {2, full ? n : k, n}, col),
                   ", s32[2]{0})");
  const std::string attrs = absl::StrCat("backend_config={mode = ", static_cast<int>(mode), " : ui8}");
  Literal r = RunOk(CallModule({ShapeText(t, {2, m, n}, col)}, out, absl::StrCat("lapack_", Letter(t), routine, "_ffi"), attrs),
                    {LitText(t, {2, m, n}, as)});
  ASSERT_TRUE(r.IsTuple());
  for (int64_t b = 0; b < 2; ++b) {
    SCOPED_TRACE(absl::StrCat(t, " ", m, "x", n, " mode ", std::string(1, mode), " batch ", b));
    EXPECT_EQ(GetInfo(r.tuple_elements()[4], b), 0);
    std::vector<cd> s = GetVec(r.tuple_elements()[1], b);
    // sum of s^2 is the squared Frobenius norm.
    double fro = 0, ss = 0;
    for (const cd& x : as[b].v) fro += std::norm(x);
    for (int64_t i = 0; i < k; ++i) {
      ss += s[i].real() * s[i].real();
      if (i) EXPECT_GE(s[i - 1].real(), s[i].real());  // descending
    }
    EXPECT_NEAR(fro, ss, Tol(t) * 10 * fro);
    if (mode == 'N') continue;
    Mat u = Get(r.tuple_elements()[2], b), vt = Get(r.tuple_elements()[3], b);
    Mat us(m, k), vk(k, n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j) us(i, j) = u(i, j) * s[j].real();
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) vk(i, j) = vt(i, j);
    EXPECT_LT(MaxDiff(Mul(us, vk), as[b]), Tol(t) * 10);
    EXPECT_LT(MaxDiff(Mul(Adjoint(u), u), Identity(u.cols)), Tol(t) * 10);
    EXPECT_LT(MaxDiff(Mul(vt, Adjoint(vt)), Identity(vt.rows)), Tol(t) * 10);
  }
}

TEST(LapackGesdd, USVtEqualsInputEveryMode) {
  uint64_t seed = 500;
  for (const char* t : kTypes)
    for (char mode : {'A', 'S', 'N'})
      for (bool col : {true, false}) {
        CheckGesdd(t, 4, 3, mode, col, seed++);
        CheckGesdd(t, 2, 5, mode, col, seed++);
      }
}

TEST(LapackGesvd, USVtEqualsInputEveryMode) {
  uint64_t seed = 550;
  for (const char* t : kTypes)
    for (char mode : {'A', 'S', 'N'}) {
      CheckGesdd(t, 4, 3, mode, true, seed++, "gesvd");
      CheckGesdd(t, 2, 5, mode, false, seed++, "gesvd");
    }
}

TEST(LapackGesdd, ModeOIsUnimplemented) {
  EXPECT_NE(RunError(CallModule({"f32[2,2]{0,1}"}, "(f32[2,2]{0,1}, f32[2]{0}, f32[2,2]{0,1}, f32[2,2]{0,1}, s32[])",
                                "lapack_sgesdd_ffi", "backend_config={mode = 79 : ui8}"),
                     {"f32[2,2] {{1, 0}, {0, 1}}"})
                .find("lapack_sgesdd_ffi: mode 'O'"),
            std::string::npos);
}

TEST(LapackGesdd, OlderJaxlibWorkspaceResultsStayZero) {
  // Dumps from older jaxlib versions append (iwork, work) results: ignored, zero.
  Literal r = RunOk(CallModule({"f32[2,2]{0,1}"},
                               "(f32[2,2]{0,1}, f32[2]{0}, f32[2,2]{0,1}, f32[2,2]{0,1}, s32[], s32[16]{0}, f32[9]{0})",
                               "lapack_sgesdd_ffi", "backend_config={mode = 65 : ui8}"),
                    {"f32[2,2] {{3, 0}, {0, -4}}"});
  ASSERT_TRUE(r.IsTuple());
  ASSERT_EQ(r.tuple_elements().size(), 7u);
  EXPECT_EQ(r.tuple_elements()[1].GetDouble(0), 4);
  EXPECT_EQ(r.tuple_elements()[1].GetDouble(1), 3);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(r.tuple_elements()[5].GetInt(i), 0);
  for (int i = 0; i < 9; ++i) EXPECT_EQ(r.tuple_elements()[6].GetDouble(i), 0);
}

TEST(LapackGesdd, WithoutBackendConfigTheShapesSayAOrS) {
  // u [3,2] and vt [2,2] of a 3x2 matrix: mode 'S'. a = {{0, 2}, {3, 0},
  // {0, 0}}: s = {3, 2}, and u's columns are +-e2 and +-e1.
  Literal r = RunOk(CallModule({"f64[3,2]{0,1}"}, "(f64[3,2]{0,1}, f64[2]{0}, f64[3,2]{0,1}, f64[2,2]{0,1}, s32[])",
                               "lapack_dgesdd_ffi", ""),
                    {"f64[3,2] {{0, 2}, {3, 0}, {0, 0}}"});
  ASSERT_TRUE(r.IsTuple());
  EXPECT_EQ(r.tuple_elements()[4].GetInt(0), 0);
  EXPECT_NEAR(r.tuple_elements()[1].GetDouble(0), 3, 1e-14);
  EXPECT_NEAR(r.tuple_elements()[1].GetDouble(1), 2, 1e-14);
  Mat u = Get(r.tuple_elements()[2], 0);
  EXPECT_NEAR(std::abs(u(1, 0).real()), 1, 1e-14);
  EXPECT_NEAR(std::abs(u(0, 1).real()), 1, 1e-14);
}

// ====================================================================== geev

void CheckGeev(const std::string& t, bool col, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t n = 4;
  // The first matrix holds a rotation block: a complex-conjugate pair.
  std::vector<Mat> as = {Random(n, n, IsComplex(t), rng), Random(n, n, IsComplex(t), rng)};
  as[0](0, 1) = -3;
  as[0](1, 0) = 3;
  const std::string c = ComplexOf(t);
  const std::string vec = ShapeText(c, {2, n, n}, col);
  const std::string w = IsComplex(t) ? ShapeText(t, {2, n}, false)
                                     : absl::StrCat(ShapeText(t, {2, n}, false), ", ", ShapeText(t, {2, n}, false));
  const std::string out = absl::StrCat("(", w, ", ", vec, ", ", vec, ", s32[2]{0})");
  Literal r = RunOk(CallModule({ShapeText(t, {2, n, n}, col)}, out, absl::StrCat("lapack_", Letter(t), "geev_ffi"),
                               "backend_config={compute_left = 86 : ui8, compute_right = 86 : ui8}"),
                    {LitText(t, {2, n, n}, as)});
  ASSERT_TRUE(r.IsTuple());
  const int nw = IsComplex(t) ? 1 : 2;
  for (int64_t b = 0; b < 2; ++b) {
    SCOPED_TRACE(absl::StrCat(t, " batch ", b));
    EXPECT_EQ(GetInfo(r.tuple_elements()[nw + 2], b), 0);
    std::vector<cd> ev = GetVec(r.tuple_elements()[0], b);
    if (nw == 2) {
      std::vector<cd> wi = GetVec(r.tuple_elements()[1], b);
      for (int64_t i = 0; i < n; ++i) ev[i] += cd(0, wi[i].real());
    }
    Mat vl = Get(r.tuple_elements()[nw], b), vr = Get(r.tuple_elements()[nw + 1], b);
    Mat vrw = vr, wvl = Adjoint(vl);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        vrw(i, j) *= ev[j];
        wvl(j, i) *= ev[j];
      }
    EXPECT_LT(MaxDiff(Mul(as[b], vr), vrw), Tol(t) * 20);             // A vr_j = w_j vr_j
    EXPECT_LT(MaxDiff(Mul(Adjoint(vl), as[b]), wvl), Tol(t) * 20);    // vl_j^H A = w_j vl_j^H
  }
  if (!IsComplex(t)) {
    // The rotation block made at least one complex pair in the real case.
    bool pair = false;
    for (const cd& x : GetVec(r.tuple_elements()[1], 0)) pair |= x.real() != 0;
    EXPECT_TRUE(pair);
  }
}

TEST(LapackGeev, EigenvectorsLeftAndRight) {
  uint64_t seed = 600;
  for (const char* t : kTypes)
    for (bool col : {true, false}) CheckGeev(t, col, seed++);
}

TEST(LapackGeev, RotationPairAndNonFiniteInput) {
  // {{0, -1}, {1, 0}} has eigenvalues +-i; the second matrix holds a NaN,
  // which jaxlib does not hand to LAPACK: info -4.
  Literal r = RunOk(CallModule({"f64[2,2,2]{1,2,0}"},
                               "(f64[2,2]{1,0}, f64[2,2]{1,0}, c128[2,2,2]{1,2,0}, c128[2,2,2]{1,2,0}, s32[2]{0})",
                               "lapack_dgeev_ffi", "backend_config={compute_left = 78 : ui8, compute_right = 86 : ui8}"),
                    {"f64[2,2,2] {{{0, -1}, {1, 0}}, {{1, nan}, {0, 1}}}"});
  ASSERT_TRUE(r.IsTuple());
  EXPECT_EQ(GetInfo(r.tuple_elements()[4], 0), 0);
  EXPECT_EQ(GetInfo(r.tuple_elements()[4], 1), -4);
  std::vector<cd> wr = GetVec(r.tuple_elements()[0], 0), wi = GetVec(r.tuple_elements()[1], 0);
  EXPECT_NEAR(wr[0].real(), 0, 1e-14);
  EXPECT_NEAR(std::abs(wi[0].real()), 1, 1e-14);
  EXPECT_NEAR(wi[0].real(), -wi[1].real(), 1e-14);
  // Left vectors were not asked for: they stay zero.
  for (const cd& x : Get(r.tuple_elements()[2], 0).v) EXPECT_EQ(x, cd(0));
  // The right vectors of a conjugate pair are conjugates of each other.
  Mat vr = Get(r.tuple_elements()[3], 0);
  EXPECT_EQ(vr(0, 0), std::conj(vr(0, 1)));
  EXPECT_EQ(vr(1, 0), std::conj(vr(1, 1)));
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

// ============================================================ gehrd, sytrd

// Q = H(0) H(1) ... with H(i) = I - tau_i v_i v_i^H, v_i zero above row
// i + 1, one at row i + 1 and the stored column i below it (the reflector
// layout gehrd and sytrd with uplo 'L' share).
Mat LowerReflectorsQ(const Mat& stored, const std::vector<cd>& tau) {
  const int64_t n = stored.rows;
  Mat q = Identity(n);
  for (size_t i = 0; i < tau.size(); ++i) {
    std::vector<cd> v(n);
    v[i + 1] = 1;
    for (int64_t r = static_cast<int64_t>(i) + 2; r < n; ++r) v[r] = stored(r, i);
    Mat h = Identity(n);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < n; ++c) h(r, c) -= tau[i] * v[r] * std::conj(v[c]);
    q = Mul(q, h);
  }
  return q;
}

void CheckGehrd(const std::string& t, bool col, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t n = 5;
  std::vector<Mat> as = {Random(n, n, IsComplex(t), rng), Random(n, n, IsComplex(t), rng)};
  const std::string a = ShapeText(t, {2, n, n}, col);
  const std::string out = absl::StrCat("(", a, ", ", ShapeText(t, {2, n - 1}, false), ", s32[2]{0})");
  Literal r = RunOk(CallModule({a}, out, absl::StrCat("lapack_", Letter(t), "gehrd_ffi"),
                               "backend_config={high = 5 : i32, low = 1 : i32}"),
                    {LitText(t, {2, n, n}, as)});
  ASSERT_TRUE(r.IsTuple());
  for (int64_t b = 0; b < 2; ++b) {
    SCOPED_TRACE(absl::StrCat(t, " batch ", b));
    EXPECT_EQ(GetInfo(r.tuple_elements()[2], b), 0);
    Mat stored = Get(r.tuple_elements()[0], b);
    Mat h(n, n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = std::max<int64_t>(0, i - 1); j < n; ++j) h(i, j) = stored(i, j);
    Mat q = LowerReflectorsQ(stored, GetVec(r.tuple_elements()[1], b));
    EXPECT_LT(MaxDiff(Mul(Mul(Adjoint(q), as[b]), q), h), Tol(t) * 20);
  }
}

TEST(LapackGehrd, UnitarySimilarityToHessenberg) {
  uint64_t seed = 900;
  for (const char* t : kTypes)
    for (bool col : {true, false}) CheckGehrd(t, col, seed++);
}

void CheckSytrd(const std::string& t, char uplo, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t n = 5;
  Mat hm = Random(n, n, IsComplex(t), rng);
  hm = Mul(hm, Adjoint(hm));
  for (int64_t i = 0; i < n; ++i) hm(i, i) = hm(i, i).real();
  const std::string a = ShapeText(t, {1, n, n});
  const std::string rt = RealOf(t);
  const std::string out = absl::StrCat("(", a, ", ", ShapeText(rt, {1, n}, false), ", ", ShapeText(rt, {1, n - 1}, false),
                                       ", ", ShapeText(t, {1, n - 1}, false), ", s32[1]{0})");
  const std::string name = absl::StrCat("lapack_", Letter(t), IsComplex(t) ? "hetrd" : "sytrd", "_ffi");
  Literal r = RunOk(CallModule({a}, out, name, absl::StrCat("backend_config={uplo = ", static_cast<int>(uplo), " : ui8}")),
                    {LitText(t, {1, n, n}, {hm})});
  ASSERT_TRUE(r.IsTuple());
  SCOPED_TRACE(absl::StrCat(t, " uplo ", std::string(1, uplo)));
  EXPECT_EQ(GetInfo(r.tuple_elements()[4], 0), 0);
  std::vector<cd> d = GetVec(r.tuple_elements()[1], 0), e = GetVec(r.tuple_elements()[2], 0);
  Mat tri(n, n);
  for (int64_t i = 0; i < n; ++i) {
    tri(i, i) = d[i];
    if (i + 1 < n) tri(i, i + 1) = tri(i + 1, i) = e[i];
  }
  // A unitary similarity keeps the trace and the Frobenius norm.
  double tr = 0, ttr = 0, fro = 0, tfro = 0;
  for (int64_t i = 0; i < n; ++i) {
    tr += hm(i, i).real();
    ttr += d[i].real();
  }
  for (const cd& x : hm.v) fro += std::norm(x);
  for (const cd& x : tri.v) tfro += std::norm(x);
  EXPECT_NEAR(tr, ttr, Tol(t) * 10 * fro);
  EXPECT_NEAR(fro, tfro, Tol(t) * 10 * fro);
  if (uplo == 'L') {
    Mat q = LowerReflectorsQ(Get(r.tuple_elements()[0], 0), GetVec(r.tuple_elements()[3], 0));
    EXPECT_LT(MaxDiff(Mul(Mul(Adjoint(q), hm), q), tri), Tol(t) * 20);
  }
}

TEST(LapackSytrd, UnitarySimilarityToTridiagonal) {
  uint64_t seed = 1000;
  for (const char* t : kTypes)
    for (char uplo : {'L', 'U'}) CheckSytrd(t, uplo, seed++);
}

// ====================================================================== gees

void CheckGees(const std::string& t, bool col, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t n = 4;
  std::vector<Mat> as = {Random(n, n, IsComplex(t), rng), Random(n, n, IsComplex(t), rng)};
  const std::string a = ShapeText(t, {2, n, n}, col), w = ShapeText(t, {2, n}, false);
  const std::string out = absl::StrCat("(", a, ", ", a, ", ", w, ", ", IsComplex(t) ? "" : w + ", ", "s32[2]{0}, s32[2]{0})");
  Literal r = RunOk(CallModule({a}, out, absl::StrCat("lapack_", Letter(t), "gees_ffi"),
                               "backend_config={mode = 86 : ui8, sort = 78 : ui8}"),
                    {LitText(t, {2, n, n}, as)});
  ASSERT_TRUE(r.IsTuple());
  const size_t nw = IsComplex(t) ? 1 : 2;
  for (int64_t b = 0; b < 2; ++b) {
    SCOPED_TRACE(absl::StrCat(t, " batch ", b));
    EXPECT_EQ(GetInfo(r.tuple_elements()[3 + nw], b), 0);
    EXPECT_EQ(GetInfo(r.tuple_elements()[2 + nw], b), 0);  // nothing selected without sorting
    Mat tm = Get(r.tuple_elements()[0], b), vs = Get(r.tuple_elements()[1], b);
    // Quasi-upper-triangular: nothing below the first sub-diagonal (none
    // at all for complex types).
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j + (IsComplex(t) ? 0 : 1) < i; ++j) EXPECT_EQ(tm(i, j), cd(0));
    EXPECT_LT(MaxDiff(Mul(as[b], vs), Mul(vs, tm)), Tol(t) * 20);
    EXPECT_LT(MaxDiff(Mul(Adjoint(vs), vs), Identity(n)), Tol(t) * 10);
    // The eigenvalues sum to the trace.
    std::vector<cd> ev = GetVec(r.tuple_elements()[2], b);
    cd sum = 0, trace = 0;
    for (int64_t i = 0; i < n; ++i) {
      sum += ev[i] + (nw == 2 ? cd(0, GetVec(r.tuple_elements()[3], b)[i].real()) : cd(0));
      trace += as[b](i, i);
    }
    EXPECT_LT(std::abs(sum - trace), Tol(t) * 20);
  }
}

TEST(LapackGees, SchurFormAndVectors) {
  uint64_t seed = 1100;
  for (const char* t : kTypes)
    for (bool col : {true, false}) CheckGees(t, col, seed++);
  EXPECT_NE(RunError(CallModule({"f64[2,2]{0,1}"}, "(f64[2,2]{0,1}, f64[2,2]{0,1}, f64[2]{0}, f64[2]{0}, s32[], s32[])",
                                "lapack_dgees_ffi", "backend_config={mode = 86 : ui8, sort = 83 : ui8}"),
                     {"f64[2,2] {{1, 0}, {0, 1}}"})
                .find("lapack_dgees_ffi: sort 'S'"),
            std::string::npos);
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
