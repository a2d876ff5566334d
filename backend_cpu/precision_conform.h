// Values whose element types differ from the written shape in float
// precision only: the verifier accepts such shapes (XLA's
// allow_mixed_precision: a fusion or call written f16 over a computation
// that returns f32, an add-dependency written f32 over an f16 operand), so
// the executor converts what an op computed to the types its instruction
// declares, and kernels that write into buffers of the declared type run
// only when the types agree.
#pragma once

#include "absl/status/statusor.h"
#include "ir/literal.h"
#include "ir/shape.h"

namespace hlo::cpu {

// Whether `a` and `b` have the same element types everywhere (tuples
// recursively; dims and layouts are not compared).
bool SameElementTypes(const Shape& a, const Shape& b);

// `lit` with every array leaf converted (round to nearest even) to the
// element type of the matching leaf of `shape`; its layout kept. Leaves
// already of the right type, or whose structure does not match, are
// returned unchanged.
absl::StatusOr<Literal> ConformElementTypes(Literal lit, const Shape& shape);

}  // namespace hlo::cpu
