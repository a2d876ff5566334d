// Parameters, constants, iota, and the element-wise ops: binary ops with
// the seeds' implicit broadcasting, comparisons, unary ops, select, clamp
// and conversions.
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "client/broadcasting.h"
#include "client/ops_internal.h"
#include "ir/shape_inference.h"

namespace hlo::client {

Literal LiteralR0OfType(PrimitiveType t, double v) {
  Literal lit(Shape::Scalar(t));
  if (IsFloatOrComplex(t)) {
    lit.SetDouble(0, v);
  } else {
    lit.SetInt(0, static_cast<int64_t>(v));
  }
  return lit;
}

XlaOp Parameter(XlaBuilder* b, int64_t parameter_number, const Shape& shape, const std::string& name) {
  return b->AddParameter(parameter_number, shape, name);
}

XlaOp ConstantLiteral(XlaBuilder* b, const Literal& literal) { return b->AddConstant(literal); }

XlaOp Zero(XlaBuilder* b, PrimitiveType type) { return b->AddConstant(LiteralR0OfType(type, 0)); }
XlaOp One(XlaBuilder* b, PrimitiveType type) { return b->AddConstant(LiteralR0OfType(type, 1)); }

namespace {

// Lowest (or highest) value of an integer type, as the literal stores it.
int64_t IntegerExtreme(PrimitiveType t, bool highest) {
  const int bits = PrimitiveTypeBitWidth(t);
  if (IsPred(t)) return highest ? 1 : 0;
  if (IsUnsignedInt(t)) return highest ? (bits >= 64 ? -1 : (int64_t{1} << bits) - 1) : 0;
  if (bits >= 64) return highest ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  return highest ? (int64_t{1} << (bits - 1)) - 1 : -(int64_t{1} << (bits - 1));
}

XlaOp Extreme(XlaBuilder* b, PrimitiveType type, bool highest) {
  Literal lit(Shape::Scalar(type));
  if (IsFloat(type)) {
    lit.SetDouble(0, highest ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
  } else {
    lit.SetInt(0, IntegerExtreme(type, highest));
  }
  return b->AddConstant(std::move(lit));
}

}  // namespace

XlaOp MinValue(XlaBuilder* b, PrimitiveType type) { return Extreme(b, type, false); }
XlaOp MaxValue(XlaBuilder* b, PrimitiveType type) { return Extreme(b, type, true); }

XlaOp Iota(XlaBuilder* b, const Shape& shape, int64_t iota_dimension) {
  return b->AddInstruction("Iota", Opcode::kIota, {}, {{"iota_dimension", iota_dimension}}, shape);
}

XlaOp Iota(XlaBuilder* b, PrimitiveType type, int64_t size) {
  return Iota(b, Shape::Array(type, {size}), 0);
}

// ---------------------------------------------------------------------------
// Binary ops
// ---------------------------------------------------------------------------

XlaOp BinaryOp(absl::string_view op_name, Opcode opcode, XlaOp lhs, XlaOp rhs,
               absl::Span<const int64_t> broadcast_dimensions, Attrs attrs) {
  XlaBuilder* b = BuilderOf({lhs, rhs});
  if (b == nullptr || !b->CheckOperands(op_name, {lhs, rhs})) return XlaOp();
  const Shape lhs_shape = ShapeOf(lhs), rhs_shape = ShapeOf(rhs);
  absl::StatusOr<BinaryBroadcastPlan> plan =
      PlanBinaryBroadcast(op_name, lhs_shape, rhs_shape, broadcast_dimensions);
  if (!plan.ok()) return b->ReportError(plan.status());
  // Checked before lowering so that the message names the caller's shapes
  // (the op's own rule would see the broadcast ones).
  const PrimitiveType lt = lhs_shape.element_type(), rt = rhs_shape.element_type();
  if (lt != rt && !(IsFloat(lt) && IsFloat(rt)))
    return Fail(b, op_name,
                absl::StrCat("operands must have the same element type (lhs ", ShapeToMessageString(lhs_shape),
                             ", rhs ", ShapeToMessageString(rhs_shape), ")"));
  XlaOp ops[2] = {lhs, rhs};
  if (plan->lower >= 0) {
    // In-dim broadcast of the lower-rank operand to the higher rank, its
    // own sizes kept at broadcast_dimensions (they may still be 1).
    XlaOp& low = ops[plan->lower];
    Shape in_dim = Shape::Array(ShapeOf(low).element_type(), plan->in_dim_dims);
    low = b->AddInstruction(op_name, Opcode::kBroadcast, {low}, {{"dimensions", IntList(broadcast_dimensions)}},
                            in_dim);
  }
  for (XlaOp& op : ops) op = internal::BroadcastTo(op_name, op, plan->result_dims);
  if (!ops[0].valid() || !ops[1].valid()) return XlaOp();
  return b->AddInstruction(op_name, opcode, {ops[0], ops[1]}, std::move(attrs));
}

#define HLO_CLIENT_BINARY(Name, opcode)                                              \
  XlaOp Name(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions) { \
    return BinaryOp(#Name, Opcode::opcode, lhs, rhs, broadcast_dimensions);          \
  }
HLO_CLIENT_BINARY(Add, kAdd)
HLO_CLIENT_BINARY(Sub, kSubtract)
HLO_CLIENT_BINARY(Mul, kMultiply)
HLO_CLIENT_BINARY(Div, kDivide)
HLO_CLIENT_BINARY(Rem, kRemainder)
HLO_CLIENT_BINARY(Max, kMaximum)
HLO_CLIENT_BINARY(Min, kMinimum)
HLO_CLIENT_BINARY(Pow, kPower)
HLO_CLIENT_BINARY(Atan2, kAtan2)
HLO_CLIENT_BINARY(Complex, kComplex)
HLO_CLIENT_BINARY(And, kAnd)
HLO_CLIENT_BINARY(Or, kOr)
HLO_CLIENT_BINARY(Xor, kXor)
HLO_CLIENT_BINARY(ShiftLeft, kShiftLeft)
HLO_CLIENT_BINARY(ShiftRightArithmetic, kShiftRightArithmetic)
HLO_CLIENT_BINARY(ShiftRightLogical, kShiftRightLogical)
#undef HLO_CLIENT_BINARY

XlaOp Compare(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions, const std::string& direction) {
  return BinaryOp("Compare", Opcode::kCompare, lhs, rhs, broadcast_dimensions,
                  {{"direction", AttrValue(direction)}});
}

#define HLO_CLIENT_COMPARE(Name, dir)                                                \
  XlaOp Name(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions) { \
    return BinaryOp(#Name, Opcode::kCompare, lhs, rhs, broadcast_dimensions,         \
                    {{"direction", AttrValue(std::string(dir))}});                   \
  }
HLO_CLIENT_COMPARE(Eq, "EQ")
HLO_CLIENT_COMPARE(Ne, "NE")
HLO_CLIENT_COMPARE(Ge, "GE")
HLO_CLIENT_COMPARE(Gt, "GT")
HLO_CLIENT_COMPARE(Le, "LE")
HLO_CLIENT_COMPARE(Lt, "LT")
#undef HLO_CLIENT_COMPARE

// ---------------------------------------------------------------------------
// Unary ops
// ---------------------------------------------------------------------------

namespace {
XlaOp Unary(absl::string_view op_name, Opcode opcode, XlaOp x) {
  XlaBuilder* b = x.builder();
  if (b == nullptr) return XlaOp();
  return b->AddInstruction(op_name, opcode, {x});
}
}  // namespace

#define HLO_CLIENT_UNARY(Name, opcode) \
  XlaOp Name(XlaOp x) { return Unary(#Name, Opcode::opcode, x); }
HLO_CLIENT_UNARY(Abs, kAbs)
HLO_CLIENT_UNARY(Neg, kNegate)
HLO_CLIENT_UNARY(Not, kNot)
HLO_CLIENT_UNARY(Sign, kSign)
HLO_CLIENT_UNARY(Ceil, kCeil)
HLO_CLIENT_UNARY(Floor, kFloor)
HLO_CLIENT_UNARY(Round, kRoundNearestAfz)
HLO_CLIENT_UNARY(RoundNearestEven, kRoundNearestEven)
HLO_CLIENT_UNARY(Exp, kExp)
HLO_CLIENT_UNARY(Expm1, kExpm1)
HLO_CLIENT_UNARY(Log, kLog)
HLO_CLIENT_UNARY(Log1p, kLog1p)
HLO_CLIENT_UNARY(Logistic, kLogistic)
HLO_CLIENT_UNARY(Sqrt, kSqrt)
HLO_CLIENT_UNARY(Rsqrt, kRsqrt)
HLO_CLIENT_UNARY(Cbrt, kCbrt)
HLO_CLIENT_UNARY(Tanh, kTanh)
HLO_CLIENT_UNARY(Sin, kSin)
HLO_CLIENT_UNARY(Cos, kCos)
HLO_CLIENT_UNARY(Tan, kTan)
HLO_CLIENT_UNARY(Erf, kErf)
HLO_CLIENT_UNARY(IsFinite, kIsFinite)
HLO_CLIENT_UNARY(Real, kReal)
HLO_CLIENT_UNARY(Imag, kImag)
HLO_CLIENT_UNARY(Clz, kClz)
HLO_CLIENT_UNARY(PopulationCount, kPopulationCount)
#undef HLO_CLIENT_UNARY

XlaOp Square(XlaOp x) { return Mul(x, x); }

XlaOp Reciprocal(XlaOp x) {
  XlaBuilder* b = x.builder();
  if (b == nullptr || !b->CheckOperands("Reciprocal", {x})) return XlaOp();
  return Div(b->AddConstant(LiteralR0OfType(ShapeOf(x).element_type(), 1)), x);
}

XlaOp Select(XlaOp pred, XlaOp on_true, XlaOp on_false) {
  XlaBuilder* b = BuilderOf({pred, on_true, on_false});
  if (b == nullptr || !b->CheckOperands("Select", {pred, on_true, on_false})) return XlaOp();
  // XLA's Select broadcasts a scalar predicate to the operands' shape.
  const Shape& t = ShapeOf(on_true);
  if (ShapeOf(pred).rank() == 0 && internal::IsArrayShape(t) && t.rank() > 0)
    pred = internal::BroadcastTo("Select", pred, t.dims());
  return b->AddInstruction("Select", Opcode::kSelect, {pred, on_true, on_false});
}

XlaOp Clamp(XlaOp min, XlaOp operand, XlaOp max) {
  XlaBuilder* b = BuilderOf({min, operand, max});
  if (b == nullptr) return XlaOp();
  return b->AddInstruction("Clamp", Opcode::kClamp, {min, operand, max});
}

XlaOp ConvertElementType(XlaOp operand, PrimitiveType new_element_type) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr || !b->CheckOperands("ConvertElementType", {operand})) return XlaOp();
  Shape s = ShapeOf(operand);
  if (!internal::IsArrayShape(s))
    return Fail(b, "ConvertElementType", absl::StrCat("operand must be an array, got ", ShapeToMessageString(s)));
  return b->AddInstruction("ConvertElementType", Opcode::kConvert, {operand}, {},
                           Shape::Array(new_element_type, s.dims()));
}

XlaOp BitcastConvertType(XlaOp operand, PrimitiveType new_element_type) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr || !b->CheckOperands("BitcastConvertType", {operand})) return XlaOp();
  const Shape& s = ShapeOf(operand);
  if (!internal::IsArrayShape(s))
    return Fail(b, "BitcastConvertType", absl::StrCat("operand must be an array, got ", ShapeToMessageString(s)));
  // Different widths add or drop a minor dimension of width ratio (XLA).
  std::vector<int64_t> dims(s.dims().begin(), s.dims().end());
  const int from = PrimitiveTypeBitWidth(s.element_type()), to = PrimitiveTypeBitWidth(new_element_type);
  if (from > to && to > 0) {
    dims.push_back(from / to);
  } else if (from < to) {
    if (dims.empty() || dims.back() * from != to)
      return Fail(b, "BitcastConvertType",
                  absl::StrCat("converting ", ShapeToMessageString(s), " to ", PrimitiveTypeName(new_element_type),
                               " needs a minor dimension of size ", from > 0 ? to / from : 0));
    dims.pop_back();
  }
  return b->AddInstruction("BitcastConvertType", Opcode::kBitcastConvert, {operand}, {},
                           Shape::Array(new_element_type, dims));
}

XlaOp ReducePrecision(XlaOp operand, int64_t exponent_bits, int64_t mantissa_bits) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->AddInstruction("ReducePrecision", Opcode::kReducePrecision, {operand},
                           {{"exponent_bits", exponent_bits}, {"mantissa_bits", mantissa_bits}});
}

}  // namespace hlo::client
