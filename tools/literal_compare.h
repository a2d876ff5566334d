// Element-wise comparison of two results with XLA's tolerance rule
// (run_hlo_module / literal_comparison::Near): integers and pred must be
// equal; a float or complex element mismatches only when BOTH its absolute
// error exceeds abs_bound AND its relative error exceeds rel_bound. NaN
// matches NaN; equal infinities match; inf against a finite value is an
// infinite error.
#pragma once

#include <cstdint>
#include <string>

#include "ir/literal.h"

namespace hlo {

struct CompareReport {
  bool ok = true;
  int64_t elements = 0;
  int64_t mismatches = 0;
  // Human-readable summary: shape problems, or the count and the worst
  // mismatching elements (index, expected, actual, errors).
  std::string message;
};

CompareReport CompareLiterals(const Literal& expected, const Literal& actual, double abs_bound,
                              double rel_bound);

}  // namespace hlo
