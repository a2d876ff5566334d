// Helpers of the LAPACK custom-call tests (custom_call_lapack*_test.cc):
// dense complex<double> matrices read from result literals, the identities'
// products, random inputs, and HLO text for one custom-call.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/test_hlo_text.h"
#include "gtest/gtest.h"

namespace hlo::cpu::lapack_test {

using cd = std::complex<double>;

// A dense logical matrix (row-major), complex<double> whatever the type.
struct Mat {
  int64_t rows = 0, cols = 0;
  std::vector<cd> v;
  Mat(int64_t r, int64_t c) : rows(r), cols(c), v(r * c) {}
  cd& operator()(int64_t i, int64_t j) { return v[i * cols + j]; }
  cd operator()(int64_t i, int64_t j) const { return v[i * cols + j]; }
};

inline Mat Mul(const Mat& a, const Mat& b) {
  Mat c(a.rows, b.cols);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < b.cols; ++j)
      for (int64_t k = 0; k < a.cols; ++k) c(i, j) += a(i, k) * b(k, j);
  return c;
}

inline Mat Adjoint(const Mat& a) {
  Mat t(a.cols, a.rows);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j) t(j, i) = std::conj(a(i, j));
  return t;
}

inline double MaxDiff(const Mat& a, const Mat& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  double d = 0;
  for (size_t i = 0; i < a.v.size() && i < b.v.size(); ++i) d = std::max(d, std::abs(a.v[i] - b.v[i]));
  return d;
}

inline Mat Identity(int64_t n) {
  Mat m(n, n);
  for (int64_t i = 0; i < n; ++i) m(i, i) = 1;
  return m;
}

inline bool IsComplex(const std::string& t) { return t[0] == 'c'; }
inline double Tol(const std::string& t) { return t == "f32" || t == "c64" ? 2e-4 : 1e-10; }
inline std::string RealOf(const std::string& t) {
  return t == "c64" ? "f32" : t == "c128" ? "f64" : t;
}
inline std::string ComplexOf(const std::string& t) { return t == "f32" || t == "c64" ? "c64" : "c128"; }
// The LAPACK routine prefix letter of a type.
inline std::string Letter(const std::string& t) {
  return t == "f32" ? "s" : t == "f64" ? "d" : t == "c64" ? "c" : "z";
}

// minor_to_major of JAX's LAPACK layout ({r-2, r-1, r-3, ..., 0}) or row-major.
inline std::string LayoutText(size_t rank, bool column_major) {
  std::vector<int64_t> m;
  if (column_major && rank >= 2) {
    m = {static_cast<int64_t>(rank) - 2, static_cast<int64_t>(rank) - 1};
    for (int64_t d = static_cast<int64_t>(rank) - 3; d >= 0; --d) m.push_back(d);
  } else {
    for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 0; --d) m.push_back(d);
  }
  return absl::StrCat("{", absl::StrJoin(m, ","), "}");
}

inline std::string ShapeText(const std::string& t, const std::vector<int64_t>& dims, bool column_major = true) {
  return absl::StrCat(t, "[", absl::StrJoin(dims, ","), "]", LayoutText(dims.size(), column_major));
}

inline std::string Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Literal text of `batch` matrices (row-major, logical order) of shape
// `dims` (batch dims, rows, cols).
inline std::string LitText(const std::string& t, const std::vector<int64_t>& dims, const std::vector<Mat>& ms) {
  std::vector<std::string> elems;
  for (const Mat& m : ms)
    for (const cd& x : m.v)
      elems.push_back(IsComplex(t) ? absl::StrCat("(", Num(x.real()), ", ", Num(x.imag()), ")") : Num(x.real()));
  return absl::StrCat(ShapeText(t, dims, false), " ", NestedBraces(dims, elems));
}

inline Mat Random(int64_t r, int64_t c, bool complex, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Mat m(r, c);
  for (cd& x : m.v) x = cd(u(rng), complex ? u(rng) : 0.0);
  return m;
}

// Hermitian positive definite: b b^H + n I.
inline Mat RandomHpd(int64_t n, bool complex, std::mt19937_64& rng) {
  Mat b = Random(n, n, complex, rng);
  Mat a = Mul(b, Adjoint(b));
  for (int64_t i = 0; i < n; ++i) a(i, i) += static_cast<double>(n);
  return a;
}

// The index of batch element `b` (row-major over `dims[0..nbatch)`), the
// remaining dims zero.
inline std::vector<int64_t> BatchIndex(const Literal& lit, size_t nbatch, int64_t b) {
  const auto& dims = lit.shape().dims();
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t d = static_cast<int64_t>(nbatch) - 1; d >= 0; --d) {
    idx[d] = b % dims[d];
    b /= dims[d];
  }
  return idx;
}

// Matrix `b` of a result of rank >= 2 (batch dims, rows, cols).
inline Mat Get(const Literal& lit, int64_t b) {
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
inline std::vector<cd> GetVec(const Literal& lit, int64_t b) {
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
inline int64_t GetInfo(const Literal& lit, int64_t b) {
  return lit.GetInt(lit.Slot(BatchIndex(lit, lit.shape().dims().size(), b)));
}

inline std::vector<int64_t> Cat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Module: parameters `params` (shape texts), ROOT custom-call of `target`
// with result shape `out` and `attrs` (may be empty).
inline std::string CallModule(const std::vector<std::string>& params, const std::string& out,
                       const std::string& target, const std::string& attrs) {
  return EntryModuleText(params, out, "custom-call",
                         absl::StrCat("custom_call_target=\"", target, "\", api_version=API_VERSION_TYPED_FFI",
                                      attrs.empty() ? "" : ", ", attrs));
}

inline Literal RunOk(const std::string& hlo, const std::vector<std::string>& args) {
  auto r = RunHloText(hlo, args);
  EXPECT_TRUE(r.ok()) << r.status() << "\n" << hlo;
  if (!r.ok()) return Literal();
  return std::move(*r);
}

inline std::string RunError(const std::string& hlo, const std::vector<std::string>& args) {
  auto r = RunHloText(hlo, args);
  EXPECT_FALSE(r.ok()) << hlo;
  return r.ok() ? "" : std::string(r.status().message());
}

inline const char* const kTypes[] = {"f32", "f64", "c64", "c128"};

}  // namespace hlo::cpu::lapack_test
