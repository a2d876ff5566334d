// Shape rules: dynamic dimension sizes, reduce-precision, rng, identity-like ops.
// Part of ir/shape_inference (see shape_inference_internal.h).
#include "ir/shape_inference_internal.h"

namespace hlo::shape_internal {

// Misc
// ---------------------------------------------------------------------------

absl::StatusOr<Shape> GetDimensionSize(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntList(c, "dimensions"));
  if (dims.size() != 1) return Invalid(c.name(), " expects exactly one dimension, got ", L(dims));
  HLO_RETURN_IF_ERROR(CheckDims(c, dims, c.op(0).rank(), "dimensions"));
  if (c.op(0).dim(dims[0]) > std::numeric_limits<int32_t>::max())
    return Invalid("get-dimension-size: dimension ", dims[0], " of ", S(c.op(0)), " exceeds the s32 range");
  return Shape::Scalar(PrimitiveType::S32);
}

absl::StatusOr<Shape> SetDimensionSize(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntList(c, "dimensions"));
  if (dims.size() != 1) return Invalid(c.name(), " expects exactly one dimension, got ", L(dims));
  HLO_RETURN_IF_ERROR(CheckDims(c, dims, c.op(0).rank(), "dimensions"));
  if (c.op(0).dim(dims[0]) > std::numeric_limits<int32_t>::max())
    return Invalid("set-dimension-size: dimension ", dims[0], " of ", S(c.op(0)), " exceeds the s32 range");
  if (!c.op(1).IsScalar() || c.op(1).element_type() != PrimitiveType::S32)
    return Invalid("set-dimension-size size (operand 1) must be an s32 scalar, got ", S(c.op(1)));
  Shape r = c.op(0);
  r.set_dynamic_dim(dims[0], true);
  return r;
}

absl::StatusOr<Shape> ReducePrecision(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  if (!IsFloat(c.op(0).element_type()))
    return Invalid("reduce-precision needs a floating-point operand, got ", S(c.op(0)));
  HLO_ASSIGN_OR_RETURN(int64_t e, Int(c, "exponent_bits"));
  HLO_ASSIGN_OR_RETURN(int64_t m, Int(c, "mantissa_bits"));
  if (e < 1) return Invalid("reduce-precision exponent_bits must be >= 1, got ", e);
  if (m < 0) return Invalid("reduce-precision mantissa_bits must be >= 0, got ", m);
  return c.op(0);
}

absl::StatusOr<Shape> Rng(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_RETURN_IF_ERROR(ExpectScalar(c, 0, "a"));
  HLO_RETURN_IF_ERROR(ExpectScalar(c, 1, "b"));
  const PrimitiveType t = c.op(0).element_type();
  if (t != c.op(1).element_type())
    return Invalid("rng parameters must have the same element type, got ", S(c.op(0)), " and ", S(c.op(1)));
  HLO_ASSIGN_OR_RETURN(std::string dist, Enum(c, "distribution"));
  if (dist == "rng_normal" && !IsFloat(t))
    return Invalid("rng_normal needs floating-point parameters, got ", TN(t));
  if (dist == "rng_uniform" && !IsFloat(t) && !IsInteger(t) && !IsPred(t))
    return Invalid("rng_uniform needs numeric parameters, got ", TN(t));
  const Shape& w = c.inst.shape();
  if (!w.IsArray() || w.IsTuple()) return Invalid("rng must produce an array, written shape is ", S(w));
  return WithType(w, t);
}

absl::StatusOr<Shape> RngBitGenerator(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& w = c.inst.shape();
  if (!w.IsTuple()) return w;  // XLA accepts a bare bits result
  if (w.tuple_size() != 2 || !w.tuple_shape(1).IsArray() || w.tuple_shape(1).IsTuple())
    return Invalid("rng-bit-generator must produce a tuple (state, bits), got ", S(w));
  const PrimitiveType bt = w.tuple_shape(1).element_type();
  if (!IsUnsignedInt(bt) && !IsSignedInt(bt))
    return Invalid("rng-bit-generator output bits must be integers, got ", S(w.tuple_shape(1)));
  return Shape::Tuple({c.op(0), w.tuple_shape(1)});
}

absl::StatusOr<Shape> CopyStart(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  return Shape::Tuple({c.op(0), c.op(0), U32()});
}

absl::StatusOr<Shape> Identity(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  return c.op(0);
}

absl::StatusOr<Shape> Written(const Ctx& c) { return c.inst.shape(); }

absl::StatusOr<Shape> TupleOrOperands(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  return TupleOrSingle(OperandShapes(c));
}

}  // namespace hlo::shape_internal
