// Helpers shared by the ops_*.cc files (not part of the public API).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "client/ops.h"

namespace hlo::client::internal {

using Attrs = std::vector<std::pair<std::string, AttrValue>>;

inline AttrValue IntList(absl::Span<const int64_t> v) { return std::vector<int64_t>(v.begin(), v.end()); }

// The builder of the first valid operand (nullptr if none: an earlier
// error, already recorded in that builder).
XlaBuilder* BuilderOf(absl::Span<const XlaOp> ops);

// Records `message` (prefixed with `op_name`) in `b`; returns an invalid op.
XlaOp Fail(XlaBuilder* b, absl::string_view op_name, absl::string_view message);

// The op's shape; the caller checked the op is valid.
const Shape& ShapeOf(XlaOp op);
bool IsArrayShape(const Shape& s);

// Broadcasts `op` to `out_dims` the way XLA's AddBroadcastSequence does: a
// scalar by broadcast{}; a same-rank operand by reshaping away its size-1
// dimensions that expand, then broadcast into the remaining ones. Returns
// `op` when the dimensions already match.
XlaOp BroadcastTo(absl::string_view op_name, XlaOp op, absl::Span<const int64_t> out_dims);

// A window from per-dimension sizes, strides, padding and dilations (empty
// spans mean 1 / (0, 0)).
absl::StatusOr<Window> MakeWindow(absl::Span<const int64_t> sizes, absl::Span<const int64_t> strides,
                                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                                  absl::Span<const int64_t> base_dilations,
                                  absl::Span<const int64_t> window_dilations);

// The computation attribute for `comp`, or records the error.
Computation* Use(XlaBuilder* b, absl::string_view op_name, const XlaComputation& comp);

}  // namespace hlo::client::internal

namespace hlo::client {
// The ops_*.cc files use the helpers unqualified.
using internal::Attrs;
using internal::BuilderOf;
using internal::Fail;
using internal::IntList;
using internal::ShapeOf;
}  // namespace hlo::client
