// Row kernels of reduce-window: the fast path for pooling (max/min/add
// over windows such as NHWC 1x2x2x1 stride 1x2x2x1 or NCHW 1x1x3x3).
//
// The result is cut into rows along its physically innermost dimension(s)
// and every window position is applied to a whole row at once, so the inner
// loop runs over contiguous (or evenly strided) memory and vectorises. Each
// output element still folds exactly what the per-output kernel of
// ops_reduce.cc folds, in the same order (init first, then the valid window
// positions row-major over the logical window dimensions), so the bits are
// identical to that path and independent of the thread count.
#pragma once

#include <optional>

#include "backend_cpu/reduce_scalar_ops.h"
#include "ir/attribute.h"
#include "ir/literal.h"
#include "ir/shape.h"

namespace hlo::cpu {

// reduce-window of `in` with the scalar `init` and the reducer `op`, all of
// out_shape's element type; `window` may be null (a size-1 window on every
// dimension). Empty when the row kernels do not cover the case (another
// op or type, base dilation, a malformed window): the caller then takes
// the per-output path, which also reports the errors.
std::optional<Literal> ReduceWindowRows(red::BinOp op, const Window* window, const Literal& in,
                                        const Literal& init, const Shape& out_shape);

}  // namespace hlo::cpu
