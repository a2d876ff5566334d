// Shape inference for every opcode, from its operands, attributes and
// called computations. Used by the parser when the text omits a result
// shape, by the verifier to check written shapes, and by the builder
// (client/) to give each new instruction its shape: InferShape works on a
// single instruction that is not yet in a computation. The rules are split
// by op family (shape_inference_<family>.cc, shape_inference_internal.h).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "ir/instruction.h"

namespace hlo {

// The result shape `inst` must have (default layouts). For the opcodes
// whose text must spell the result shape (reshape, broadcast, convert,
// iota, rng, ...), the instruction's current shape is that written shape. Errors name the
// problem (operand count, rank, element type, attribute range, ...), not
// the instruction; callers add location and name.
absl::StatusOr<Shape> InferShape(const Instruction& inst);

// A short rendering of a shape for error messages, without layouts:
// `f32[2,<=3,?]`, `(f32[], token[])`.
std::string ShapeToMessageString(const Shape& shape);

// XLA's ShapeUtil::Compatible: same structure, element types and
// dimensions; layouts and dynamic flags ignored (an unbounded `?` dimension
// matches any size). With `ignore_fp_precision`, any two floating-point
// element types match (XLA's CompatibleIgnoringFpPrecision).
bool ShapesCompatible(const Shape& a, const Shape& b, bool ignore_fp_precision = false);

}  // namespace hlo
