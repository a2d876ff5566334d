// XLA:CPU's order for reductions of narrow floats.
//
// XLA's CPU compiler rewrites every reduce with a reduced dimension longer
// than 32 into a tree (its TreeReductionRewriter, window 32): a
// reduce-window with windows of min(size, 32) along each reduced
// dimension, stride = window, "same" padding split evenly (the extra
// element high), repeated until no reduced dimension is longer than 32,
// then the reduce of what is left. Each window and the final reduce fold
// their elements in row-major order from the init value, rounding to the
// type after every step. For f32 and wider the order changes a result by
// an ulp or so; for bf16 and f16 it decides whether a long sum stagnates
// (a bf16 running sum stops growing at 256 times its addends), so these
// follow XLA's tree to give XLA's values (docs/ops-reduction.md).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "backend_cpu/reduce_scalar_ops.h"
#include "ir/element_type.h"

namespace hlo::cpu {

// Whether a reduce of `type` with reducer `op` over these dimensions takes
// XLA's order here: bf16 or f16, add or multiply, something reduced (with
// no reduced dimension longer than 32 the tree is the final reduce alone:
// a row-major fold per output).
bool UsesReductionTree(PrimitiveType type, red::BinOp op, absl::Span<const int64_t> dims,
                       const std::vector<bool>& reduced);

// Reduces `in` (row-major `dims`) over the `reduced` dimensions into `out`
// (row-major kept dimensions) in the tree order, from the element at `init`.
// Requires UsesReductionTree.
void ReduceByTree(PrimitiveType type, red::BinOp op, absl::Span<const int64_t> dims,
                  const std::vector<bool>& reduced, const void* in, const void* init, void* out);

}  // namespace hlo::cpu
