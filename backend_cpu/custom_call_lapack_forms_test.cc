// JAX's LAPACK condensed-form targets (custom_call_lapack_forms.cc):
// Q^H A Q is Hessenberg / tridiagonal, A vs = vs T with T (quasi-)upper
// triangular, on random batches for the four element types.
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

}  // namespace
}  // namespace hlo::cpu
