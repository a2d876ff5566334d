#include "tools/literal_compare.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ir/printer.h"

namespace hlo {
namespace {

struct Mismatch {
  std::string where;
  std::string expected, actual;
  double abs_err = 0, rel_err = 0;
};

// Multi-index of row-major position `i` in `dims`.
std::string IndexText(int64_t i, absl::Span<const int64_t> dims) {
  std::vector<int64_t> idx(dims.size());
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    idx[d] = dims[d] == 0 ? 0 : i % dims[d];
    i = dims[d] == 0 ? 0 : i / dims[d];
  }
  return absl::StrCat("{", absl::StrJoin(idx, ","), "}");
}

double RelError(double abs_err, double expected_magnitude) {
  if (abs_err == 0) return 0;
  if (expected_magnitude == 0) return std::numeric_limits<double>::infinity();
  return abs_err / expected_magnitude;
}

void CompareArrays(const Literal& e, const Literal& a, const std::string& path, double abs_bound,
                   double rel_bound, CompareReport* report, std::vector<Mismatch>* worst) {
  const Shape& se = e.shape();
  const Shape& sa = a.shape();
  if (se.element_type() != sa.element_type() || se.dims() != sa.dims()) {
    report->ok = false;
    absl::StrAppend(&report->message, "shape mismatch at ", path.empty() ? "the result" : path,
                    ": expected ", ShapeToString(se, false), ", actual ",
                    ShapeToString(sa, false), "\n");
    return;
  }
  const std::vector<int64_t> es = PhysicalIndexTable(se);
  const std::vector<int64_t> as = PhysicalIndexTable(sa);
  const PrimitiveType t = se.element_type();
  const bool is_float = IsFloat(t), is_complex = IsComplex(t);
  for (size_t i = 0; i < es.size(); ++i) {
    ++report->elements;
    double abs_err = 0, magnitude = 0;
    bool mismatch = false;
    std::string ev, av;
    if (is_float || is_complex) {
      const std::complex<double> x = is_complex ? e.GetComplex(es[i]) : e.GetDouble(es[i]);
      const std::complex<double> y = is_complex ? a.GetComplex(as[i]) : a.GetDouble(as[i]);
      const bool xnan = std::isnan(x.real()) || std::isnan(x.imag());
      const bool ynan = std::isnan(y.real()) || std::isnan(y.imag());
      if (xnan || ynan) {
        mismatch = xnan != ynan;
        abs_err = mismatch ? std::numeric_limits<double>::infinity() : 0;
      } else if (x == y) {
        abs_err = 0;
      } else {
        abs_err = std::abs(x - y);
        if (std::isnan(abs_err)) abs_err = std::numeric_limits<double>::infinity();  // inf - inf
        magnitude = std::abs(x);
        mismatch = abs_err > abs_bound && RelError(abs_err, magnitude) > rel_bound;
      }
      if (mismatch) {
        ev = is_complex ? absl::StrFormat("(%g, %g)", x.real(), x.imag()) : absl::StrFormat("%.9g", x.real());
        av = is_complex ? absl::StrFormat("(%g, %g)", y.real(), y.imag()) : absl::StrFormat("%.9g", y.real());
      }
    } else {
      const int64_t x = e.GetInt(es[i]), y = a.GetInt(as[i]);
      mismatch = x != y;
      abs_err = mismatch ? std::numeric_limits<double>::infinity() : 0;
      if (mismatch) {
        ev = absl::StrCat(x);
        av = absl::StrCat(y);
      }
    }
    if (!mismatch) continue;
    ++report->mismatches;
    report->ok = false;
    Mismatch m{absl::StrCat(path, IndexText(static_cast<int64_t>(i), se.dims())), ev, av, abs_err,
               RelError(abs_err, magnitude)};
    worst->push_back(std::move(m));
    // Keep the 10 largest relative errors.
    std::sort(worst->begin(), worst->end(),
              [](const Mismatch& p, const Mismatch& q) { return p.rel_err > q.rel_err; });
    if (worst->size() > 10) worst->pop_back();
  }
}

void CompareRecursive(const Literal& e, const Literal& a, const std::string& path, double abs_bound,
                      double rel_bound, CompareReport* report, std::vector<Mismatch>* worst) {
  if (e.IsTuple() || a.IsTuple()) {
    if (e.IsTuple() != a.IsTuple() ||
        e.tuple_elements().size() != a.tuple_elements().size()) {
      report->ok = false;
      absl::StrAppend(&report->message, "tuple shape mismatch at ",
                      path.empty() ? "the result" : path, "\n");
      return;
    }
    for (size_t i = 0; i < e.tuple_elements().size(); ++i)
      CompareRecursive(e.tuple_elements()[i], a.tuple_elements()[i], absl::StrCat(path, "{", i, "}"),
                       abs_bound, rel_bound, report, worst);
    return;
  }
  if (!e.shape().IsArray() || !a.shape().IsArray()) return;  // tokens
  CompareArrays(e, a, path, abs_bound, rel_bound, report, worst);
}

}  // namespace

CompareReport CompareLiterals(const Literal& expected, const Literal& actual, double abs_bound,
                              double rel_bound) {
  CompareReport report;
  std::vector<Mismatch> worst;
  CompareRecursive(expected, actual, "", abs_bound, rel_bound, &report, &worst);
  if (report.mismatches > 0) {
    absl::StrAppend(&report.message, report.mismatches, " of ", report.elements,
                    " elements mismatch (abs_error_bound=", abs_bound,
                    ", rel_error_bound=", rel_bound, "); largest relative errors:\n");
    for (const Mismatch& m : worst)
      absl::StrAppend(&report.message, "  at ", m.where, ": expected ", m.expected, ", actual ",
                      m.actual, " (abs error ", absl::StrFormat("%.3g", m.abs_err),
                      ", rel error ", absl::StrFormat("%.3g", m.rel_err), ")\n");
  }
  return report;
}

}  // namespace hlo
