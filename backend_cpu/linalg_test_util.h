// Helpers shared by the linear-algebra tests (linalg_test.cc,
// dot_variants_test.cc): literal texts, logical values of results, and a
// one-instruction module builder.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/test_hlo_text.h"
#include "gtest/gtest.h"

namespace hlo::cpu::linalg_test {

using cd = std::complex<double>;

inline std::string Num(double v) {
  if (v == std::trunc(v) && std::fabs(v) < 1e15) return absl::StrCat(static_cast<int64_t>(v));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Literal text of `type[dims]` holding `re` (+ `im` for complex types) in
// row-major order.
inline std::string LitText(const std::string& type, const std::vector<int64_t>& dims,
                           const std::vector<double>& re, const std::vector<double>& im = {}) {
  const bool cplx = type[0] == 'c';
  // The layout is spelled out: `f32[2] {1, 0}` would read `{1, 0}` as a layout.
  std::vector<int64_t> m2m;
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) m2m.push_back(i);
  std::string out = absl::StrCat(type, "[", absl::StrJoin(dims, ","), "]{", absl::StrJoin(m2m, ","), "} ");
  int64_t pos = 0;
  std::function<void(size_t)> rec = [&](size_t d) {
    if (d == dims.size()) {
      if (cplx) {
        absl::StrAppend(&out, "(", Num(re[pos]), ", ", Num(im.empty() ? 0.0 : im[pos]), ")");
      } else {
        absl::StrAppend(&out, Num(re[pos]));
      }
      ++pos;
      return;
    }
    out += "{";
    for (int64_t i = 0; i < dims[d]; ++i) {
      if (i) out += ", ";
      rec(d + 1);
    }
    out += "}";
  };
  rec(0);
  return out;
}

inline std::string ShapeText(const std::string& type, const std::vector<int64_t>& dims,
                             const std::vector<int64_t>& m2m) {
  return absl::StrCat(type, "[", absl::StrJoin(dims, ","), "]{", absl::StrJoin(m2m, ","), "}");
}

inline std::vector<int64_t> DefaultM2m(size_t rank) {
  std::vector<int64_t> m;
  for (int64_t i = static_cast<int64_t>(rank) - 1; i >= 0; --i) m.push_back(i);
  return m;
}

inline std::vector<int64_t> RandomM2m(size_t rank, std::mt19937_64& rng) {
  std::vector<int64_t> m = DefaultM2m(rank);
  std::shuffle(m.begin(), m.end(), rng);
  return m;
}

// Logical values in row-major order (real parts / complex).
inline std::vector<int64_t> NextIndex(std::vector<int64_t> idx, absl::Span<const int64_t> dims) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (++idx[d] < dims[d]) break;
    idx[d] = 0;
  }
  return idx;
}
// `get(slot)` of every element of `lit`, in row-major logical order.
template <typename T, typename Get>
std::vector<T> LogicalValues(const Literal& lit, Get get) {
  const auto& dims = lit.shape().dims();
  std::vector<T> v;
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t i = 0; i < lit.shape().ElementCount(); ++i) {
    v.push_back(get(lit.Slot(idx)));
    idx = NextIndex(idx, dims);
  }
  return v;
}
inline std::vector<cd> ComplexValues(const Literal& lit) {
  return LogicalValues<cd>(lit, [&lit](int64_t s) { return lit.GetComplex(s); });
}
inline std::vector<double> Values(const Literal& lit) {
  return LogicalValues<double>(lit, [&lit](int64_t s) { return lit.GetDouble(s); });
}

inline int64_t Prod(const std::vector<int64_t>& d) {
  int64_t p = 1;
  for (int64_t x : d) p *= x;
  return p;
}

inline std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

// Runs `hlo` and returns the literal, failing the test on error.
inline Literal RunHlo(const std::string& hlo, const std::vector<std::string>& args) {
  auto r = RunHloText(hlo, args);
  EXPECT_TRUE(r.ok()) << r.status() << "\n" << hlo;
  if (!r.ok()) return Literal();
  return std::move(*r);
}

// A one-instruction module (see EntryModuleText in test_hlo_text.h).
inline std::string Module(const std::vector<std::string>& params, const std::string& out_shape,
                          const std::string& op, const std::string& attrs) {
  return EntryModuleText(params, out_shape, op, attrs);
}

}  // namespace hlo::cpu::linalg_test
