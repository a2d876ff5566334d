// Calling a computation (reducer, comparator, map's to_apply) element by
// element on scalars: what the generic paths of the reduction family share
// (ops_reduce.cc, ops_sort.cc, ops_reduction.cc, which defines the functions
// declared here).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "backend_cpu/thread_pool.h"
#include "ir/computation.h"
#include "ir/literal.h"

namespace hlo::cpu {

// Stores element `slot` of `src` into the scalar `dst`, converting between
// float types of different precision (reducer parameters may differ in
// floating-point precision from the values fed to them).
absl::Status CopyScalarInto(const Literal& src, int64_t slot, Literal* dst);
// Stores the scalar `src` into element `slot` of `dst` (same conversions).
absl::Status CopyScalarOut(const Literal& src, Literal* dst, int64_t slot);
// A scalar of the element type of parameter `i` of `comp`.
Literal ScalarLiteralOfParam(const Computation& comp, int64_t i);

// Scalar arguments for parameters 0 to count-1 of a computation, reused from
// call to call: one scalar per parameter and the pointers ctx.call takes.
struct ScalarArgs {
  ScalarArgs(const Computation& comp, int64_t count) {
    for (int64_t i = 0; i < count; ++i) values.push_back(ScalarLiteralOfParam(comp, i));
    for (const Literal& v : values) ptrs.push_back(&v);
  }
  ScalarArgs(const ScalarArgs&) = delete;  // `ptrs` points into `values`
  ScalarArgs& operator=(const ScalarArgs&) = delete;

  std::vector<Literal> values;
  std::vector<const Literal*> ptrs;
};

// Runs fn(begin, end, status) on the fixed blocks of [0, n) that
// ParallelFor(n, min_block) would use, one after the other on the calling
// thread: ctx.call is re-entrant but not thread-safe (the executor keeps
// per-device bookkeeping). Each block gets its own OK `status` to set on
// failure. Every block runs; returns the first error in block order.
template <class F>
absl::Status CallBlocks(int64_t n, int64_t min_block, F&& fn) {
  absl::Status first;
  const int64_t bs = ParallelForBlockSize(n, min_block);
  for (int64_t b = 0; b < n; b += bs) {
    absl::Status status;
    fn(b, std::min(n, b + bs), status);
    if (first.ok()) first = std::move(status);
  }
  return first;
}

}  // namespace hlo::cpu
