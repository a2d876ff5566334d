// Shape inference for every opcode, from its operands, attributes and
// called computations. Used by the parser when the text omits a result
// shape and by the verifier to check written shapes.
#pragma once

#include "absl/status/statusor.h"
#include "ir/instruction.h"

namespace hlo {

// The result shape `inst` must have (default layouts). Errors name the
// problem (operand count, rank, element type, attribute range, ...), not
// the instruction; callers add location and name.
absl::StatusOr<Shape> InferShape(const Instruction& inst);

}  // namespace hlo
