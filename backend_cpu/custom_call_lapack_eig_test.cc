// JAX's LAPACK eigen- and singular value targets (custom_call_lapack_eig.cc),
// checked by A V = V diag(w), V^H V = I, U diag(s) Vt = A and the
// invariants (trace, Frobenius norm, ordering) on random batches, for the
// four element types and both operand layouts.
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
      if (i) {  // ascending
        EXPECT_LE(w[i - 1].real(), w[i].real());
      }
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
      if (i) {  // descending
        EXPECT_GE(s[i - 1].real(), s[i].real());
      }
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

}  // namespace
}  // namespace hlo::cpu
