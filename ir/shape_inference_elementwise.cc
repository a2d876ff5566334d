// Shape rules: element-wise ops (unary, binary, select, clamp) and type conversions.
// Part of ir/shape_inference (see shape_inference_internal.h).
#include "ir/shape_inference_internal.h"

namespace hlo::shape_internal {
namespace {

// Elementwise dims of two same-rank shapes (unbounded dims yield to bounded).
absl::StatusOr<Shape> MergeDims(const Ctx& c, const Shape& a, const Shape& b, int64_t ia, int64_t ib,
                                PrimitiveType t) {
  if (a.rank() != b.rank())
    return Invalid(c.name(), " operands ", ia, " and ", ib, " must have the same shape, got ", S(a), " and ",
                   S(b));
  std::vector<int64_t> dims(a.rank());
  DynamicVector dyn(a.rank());
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (IsUnbounded(a, i)) {
      dims[i] = b.dim(i);
      dyn[i] = b.is_dynamic_dim(i);
    } else if (IsUnbounded(b, i)) {
      dims[i] = a.dim(i);
      dyn[i] = a.is_dynamic_dim(i);
    } else if (a.dim(i) != b.dim(i)) {
      return Invalid(c.name(), " operands ", ia, " and ", ib, " must have the same shape, got ", S(a),
                     " and ", S(b), " (dimension ", i, ": ", a.dim(i), " vs ", b.dim(i), ")");
    } else {
      dims[i] = a.dim(i);
      dyn[i] = a.is_dynamic_dim(i) || b.is_dynamic_dim(i);
    }
  }
  return MakeArray(t, dims, dyn);
}

}  // namespace

// Elementwise
// ---------------------------------------------------------------------------

absl::StatusOr<Shape> Unary(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  const Opcode op = c.inst.opcode();
  if (op == Opcode::kCopy) return c.op(0);  // copy may copy tuples too
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& s = c.op(0);
  const PrimitiveType t = s.element_type();
  auto bad = [&](absl::string_view want) {
    return Invalid(c.name(), " expects ", want, " operand, got ", S(s));
  };
  switch (op) {
    case Opcode::kAbs:
      if (IsComplex(t)) return WithType(s, ComplexComponentType(t));
      if (IsSignedInt(t) || IsFloat(t)) return s;
      return bad("a signed integer, floating-point or complex");
    case Opcode::kReal:
    case Opcode::kImag:
      if (IsComplex(t)) return WithType(s, ComplexComponentType(t));
      if (IsFloat(t)) return s;
      return bad("a floating-point or complex");
    case Opcode::kIsFinite:
      if (!IsFloat(t)) return bad("a floating-point");
      return WithType(s, PrimitiveType::PRED);
    case Opcode::kCeil:
    case Opcode::kFloor:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
      if (!IsFloat(t)) return bad("a floating-point");
      return s;
    case Opcode::kClz:
    case Opcode::kPopulationCount:
      if (!IsInteger(t)) return bad("an integer");
      return s;
    case Opcode::kNot:
      if (!IsInteger(t) && !IsPred(t)) return bad("a pred or integer");
      return s;
    case Opcode::kNegate:
      if (IsPred(t)) return bad("an integer, floating-point or complex");
      return s;
    case Opcode::kSign:
      if (!IsSignedInt(t) && !IsFloatOrComplex(t)) return bad("a signed or complex");
      return s;
    default:
      // Transcendental ops: exp, log, sin, tanh, sqrt, ...
      if (!IsFloatOrComplex(t)) return bad("a floating-point or complex");
      return s;
  }
}

absl::StatusOr<Shape> Binary(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& a = c.op(0);
  const Shape& b = c.op(1);
  const PrimitiveType ta = a.element_type(), tb = b.element_type();
  const Opcode op = c.inst.opcode();
  if (!SameTypeIgnoringFp(ta, tb))
    return Invalid(c.name(), " operands must have the same element type, got ", TN(ta), " and ", TN(tb));
  PrimitiveType result = HigherPrecision(ta, tb);
  switch (op) {
    case Opcode::kCompare:
      result = PrimitiveType::PRED;
      break;
    case Opcode::kComplex:
      if (ta == PrimitiveType::F32 && tb == PrimitiveType::F32) {
        result = PrimitiveType::C64;
      } else if (ta == PrimitiveType::F64 && tb == PrimitiveType::F64) {
        result = PrimitiveType::C128;
      } else {
        return Invalid("complex expects two f32 or two f64 operands, got ", TN(ta), " and ", TN(tb));
      }
      break;
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
      if (!IsInteger(ta) && !IsPred(ta))
        return Invalid(c.name(), " expects pred or integer operands, got ", TN(ta));
      break;
    case Opcode::kSubtract:
    case Opcode::kAtan2:
    case Opcode::kPower:
    case Opcode::kDivide:
    case Opcode::kRemainder:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kMulhi:
      if (IsPred(ta)) return Invalid(c.name(), " expects arithmetic operands, got pred");
      break;
    default:
      break;
  }
  return MergeDims(c, a, b, 0, 1, result);
}

absl::StatusOr<Shape> Select(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 3));
  const Shape& pred = c.op(0);
  const Shape& t = c.op(1);
  const Shape& f = c.op(2);
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  if (!IsPred(pred.element_type()))
    return Invalid("select's predicate (operand 0) must have element type pred, got ", S(pred));
  if (!ShapesCompatible(t, f, /*ignore_fp_precision=*/true))
    return Invalid("select's operands 1 and 2 must have the same shape, got ", S(t), " and ", S(f));
  if (t.IsTuple()) {
    if (!pred.IsScalar()) return Invalid("select of tuples needs a scalar predicate, got ", S(pred));
    return t;
  }
  HLO_RETURN_IF_ERROR(ExpectArray(c, 1));
  HLO_ASSIGN_OR_RETURN(Shape r,
                       MergeDims(c, t, f, 1, 2, HigherPrecision(t.element_type(), f.element_type())));
  if (!pred.IsScalar() && !SameDims(pred, r))
    return Invalid("select's predicate must be a scalar or have the dimensions of the operands, got ",
                   S(pred), " for operands ", S(t));
  return r;
}

absl::StatusOr<Shape> Clamp(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 3));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& lo = c.op(0);
  const Shape& x = c.op(1);
  const Shape& hi = c.op(2);
  for (int64_t i : {0, 2}) {
    if (!SameTypeIgnoringFp(c.op(i).element_type(), x.element_type()))
      return Invalid("clamp operands must have the same element type, got ", S(lo), ", ", S(x), ", ", S(hi));
    if (!c.op(i).IsScalar() && !SameDims(c.op(i), x))
      return Invalid("clamp's ", i == 0 ? "min" : "max", " (operand ", i,
                     ") must be a scalar or have the shape of the operand, got ", S(c.op(i)), " for operand ",
                     S(x));
  }
  return x;
}


absl::StatusOr<Shape> Convert(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& w = c.inst.shape();
  if (!w.IsArray() || w.IsTuple()) return Invalid("convert must produce an array, written shape is ", S(w));
  return WithType(c.op(0), w.element_type());
}

absl::StatusOr<Shape> BitcastConvert(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& in = c.op(0);
  const Shape& w = c.inst.shape();
  if (!w.IsArray() || w.IsTuple())
    return Invalid("bitcast-convert must produce an array, written shape is ", S(w));
  const PrimitiveType to = w.element_type();
  if (IsComplex(in.element_type()) != IsComplex(to))
    return Invalid("bitcast-convert between complex and real types: ", S(in), " to ", TN(to));
  const int64_t bin = PrimitiveTypeBitWidth(in.element_type());
  const int64_t bout = PrimitiveTypeBitWidth(to);
  if (bin == bout) return WithType(in, to);
  if (bin <= 0 || bout <= 0)
    return Invalid("bitcast-convert between ", TN(in.element_type()), " and ", TN(to));
  if (bin > bout) {
    if (bin % bout != 0)
      return Invalid("bitcast-convert from ", TN(in.element_type()), " to ", TN(to), ": bit widths ", bin,
                     " and ", bout, " are not multiples");
    DimVector dims = in.dims();
    DynamicVector dyn = in.dynamic_dims();
    dims.push_back(bin / bout);
    dyn.push_back(false);
    return MakeArray(to, dims, dyn);
  }
  if (bout % bin != 0)
    return Invalid("bitcast-convert from ", TN(in.element_type()), " to ", TN(to), ": bit widths ", bin,
                   " and ", bout, " are not multiples");
  if (in.rank() == 0 || in.dims().back() != bout / bin)
    return Invalid("bitcast-convert from ", TN(in.element_type()), " to the wider ", TN(to),
                   " needs a minor-most operand dimension of size ", bout / bin, ", got ", S(in));
  std::vector<int64_t> dims(in.dims().begin(), in.dims().end() - 1);
  DynamicVector dyn(in.dynamic_dims().begin(), in.dynamic_dims().end() - 1);
  return MakeArray(to, dims, dyn);
}

absl::StatusOr<Shape> StochasticConvert(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& x = c.op(0);
  const Shape& bits = c.op(1);
  const Shape& w = c.inst.shape();
  if (!IsFloat(x.element_type()))
    return Invalid("stochastic-convert expects a floating-point operand, got ", S(x));
  if (!IsUnsignedInt(bits.element_type()) ||
      PrimitiveTypeBitWidth(bits.element_type()) != PrimitiveTypeBitWidth(x.element_type()))
    return Invalid(
        "stochastic-convert's random bits (operand 1) must be unsigned integers of the operand's width, got ",
        S(bits), " for ", S(x));
  if (!SameDims(x, bits))
    return Invalid("stochastic-convert operands must have the same dimensions, got ", S(x), " and ", S(bits));
  if (!w.IsArray() || w.IsTuple()) return Invalid("stochastic-convert must produce an array, written ", S(w));
  return WithType(x, w.element_type());
}

}  // namespace hlo::shape_internal
