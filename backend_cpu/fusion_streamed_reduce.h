// Internal to backend_cpu: reductions over leading dimensions inside a
// fusion (batch-norm statistics of NHWC activations: sums over N, H, W per
// channel) of elementwise trees computed only for them. The row split
// (fusion_rows.h) computes such a reduce whole, and so its operand tree:
// every node materialized at full size, then read again by the reduce op.
// Planned here (rowplan::StreamedReduce), the tree runs block of rows by
// block of rows in cache and is folded into column accumulators, reading
// its leaves once. Same bits as the op-by-op run: elementwise kernels
// compute each element alone, and ColumnFolder folds each column row
// after row, as the reduce op does.
#pragma once

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backend_cpu/fusion_plan.h"
#include "ir/literal.h"

namespace hlo::cpu {

// Finds the whole reduces of `plan` that stream, fills
// plan->streamed_reduces, streamed_reduce_of and in_streamed_tree.
// `position` maps an instruction to its position in plan->split.order.
void PlanStreamedReduces(FusionPlan* plan, const absl::flat_hash_map<const Instruction*, int>& position);

// The value of streamed reduce `sr`, given the whole values computed so far
// (its leaves and init among them), in the reduce's own layout.
absl::StatusOr<Literal> RunStreamedReduce(const FusionPlan& plan, const rowplan::StreamedReduce& sr,
                                          absl::Span<const Literal* const> whole);

}  // namespace hlo::cpu
