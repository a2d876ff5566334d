// The broadcasting rules of element-wise binary ops at the builder level
// (the seeds' broadcasting document, XLA's XlaBuilder::BinaryOp):
//  * same rank: every dimension pair is equal or one of them is 1 (a
//    "degenerate" dimension), the result takes the larger; a non-empty
//    broadcast_dimensions must be the identity;
//  * different ranks: a scalar broadcasts without broadcast_dimensions;
//    otherwise broadcast_dimensions maps dimension i of the lower-rank
//    operand to dimension broadcast_dimensions[i] of the higher-rank one
//    (strictly increasing, sizes equal or one of them 1), the operand is
//    first broadcast "in dim" to the higher rank, then degenerate
//    dimensions broadcast as above.
// The text format has none of this: the builder lowers the plan to
// explicit broadcast/reshape instructions.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/shape.h"

namespace hlo::client {

struct BinaryBroadcastPlan {
  // Dimensions of the result (element type decided by the op's rule).
  std::vector<int64_t> result_dims;
  // For the lower-rank operand (0 = lhs, 1 = rhs; -1 when the ranks are
  // equal or it is a scalar): the dims of its in-dim broadcast, i.e. the
  // result dims with its own sizes at broadcast_dimensions.
  int lower = -1;
  std::vector<int64_t> in_dim_dims;
};

// The plan for `op_name`(lhs, rhs) or an InvalidArgument error naming the
// op and both shapes.
absl::StatusOr<BinaryBroadcastPlan> PlanBinaryBroadcast(absl::string_view op_name, const Shape& lhs,
                                                        const Shape& rhs,
                                                        absl::Span<const int64_t> broadcast_dimensions);

// Degenerate-dimension broadcast of two same-rank dimension lists.
absl::StatusOr<std::vector<int64_t>> DegenerateBroadcastDims(absl::Span<const int64_t> a,
                                                             absl::Span<const int64_t> b);

}  // namespace hlo::client
