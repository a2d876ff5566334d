// Elementwise kernels of the float family. f32 and f64 run natively; every
// narrower float type (f16, bf16, f8*, f4) decodes tiles to f32, runs the
// f32 kernel and rounds back once (RNE), as XLA's CPU backend does.
// Exceptions that work on the stored bits: reduce-precision (the type's own
// format) and compare with type=TOTALORDER.
#include <cmath>
#include <type_traits>

#include "backend_cpu/ew_internal.h"
#include "backend_cpu/ew_math.h"
#include "backend_cpu/ew_math_spans.h"
#include "backend_cpu/ew_types.h"

namespace hlo::cpu::ew {
namespace {

// ---------------------------------------------------------------- ops

// kVec: the op is branch-free and call-free for f32/f64 (inline code the
// compiler vectorises), so its f32/f64 loops are the runtime-dispatched
// *LoopV clones (ew_types.h). Ops that call libm per element stay on the
// plain loops (a wider ISA would not help them).
#define HLO_EW_FLOAT_UNARY_OP(Name, vec, expr) \
  struct Name {                                \
    static constexpr bool kVec = vec;          \
    template <class C>                         \
    static C Apply(C x) {                      \
      return expr;                             \
    }                                          \
  };

HLO_EW_FLOAT_UNARY_OP(OpAbs, true, std::fabs(x))
HLO_EW_FLOAT_UNARY_OP(OpAcos, false, std::acos(x))
HLO_EW_FLOAT_UNARY_OP(OpAcosh, false, std::acosh(x))
HLO_EW_FLOAT_UNARY_OP(OpAsin, false, std::asin(x))
HLO_EW_FLOAT_UNARY_OP(OpAsinh, false, std::asinh(x))
HLO_EW_FLOAT_UNARY_OP(OpAtanh, false, std::atanh(x))
HLO_EW_FLOAT_UNARY_OP(OpCbrt, false, std::cbrt(x))
HLO_EW_FLOAT_UNARY_OP(OpCeil, true, std::ceil(x))
HLO_EW_FLOAT_UNARY_OP(OpCos, false, std::cos(x))
HLO_EW_FLOAT_UNARY_OP(OpCosh, false, std::cosh(x))
HLO_EW_FLOAT_UNARY_OP(OpErf, true, math::Erf(x))
HLO_EW_FLOAT_UNARY_OP(OpExpm1, true, math::Expm1(x))
HLO_EW_FLOAT_UNARY_OP(OpFloor, true, std::floor(x))
HLO_EW_FLOAT_UNARY_OP(OpLog, true, math::Log(x))
HLO_EW_FLOAT_UNARY_OP(OpLog1p, true, math::Log1p(x))
HLO_EW_FLOAT_UNARY_OP(OpNegate, true, -x)
HLO_EW_FLOAT_UNARY_OP(OpRoundAfz, false, std::round(x))
HLO_EW_FLOAT_UNARY_OP(OpRoundEven, true, std::nearbyint(x))
HLO_EW_FLOAT_UNARY_OP(OpRsqrt, true, C(1) / std::sqrt(x))
HLO_EW_FLOAT_UNARY_OP(OpSin, false, std::sin(x))
HLO_EW_FLOAT_UNARY_OP(OpSinh, false, std::sinh(x))
HLO_EW_FLOAT_UNARY_OP(OpSqrt, true, std::sqrt(x))
HLO_EW_FLOAT_UNARY_OP(OpTan, false, std::tan(x))
HLO_EW_FLOAT_UNARY_OP(OpCopy, true, x)
// sign: NaN -> NaN (the operand), +-0 -> +-0, else +-1.
HLO_EW_FLOAT_UNARY_OP(OpSign, true, IsNan(x) ? x : std::copysign(x != C(0) ? C(1) : C(0), x))
#undef HLO_EW_FLOAT_UNARY_OP

// Ops whose f32 loops run as staged spans (ew_math_spans.h: the same bits
// as Apply per element, faster).
#define HLO_EW_FLOAT_STAGED_OP(Name, scalar, span)              \
  struct Name {                                                 \
    static constexpr bool kVec = true;                          \
    template <class C>                                          \
    static C Apply(C x) {                                       \
      return scalar(x);                                         \
    }                                                           \
    [[gnu::always_inline]] static void SpanF32(const float* x, float* y, int64_t n) { \
      span(x, y, n);                                            \
    }                                                           \
  };
HLO_EW_FLOAT_STAGED_OP(OpExp, math::Exp, math::ExpSpan)
HLO_EW_FLOAT_STAGED_OP(OpLogistic, math::Logistic, math::LogisticSpan)
HLO_EW_FLOAT_STAGED_OP(OpTanh, math::Tanh, math::TanhSpan)
#undef HLO_EW_FLOAT_STAGED_OP

template <class Op, class = void>
struct HasSpanF32 : std::false_type {};
template <class Op>
struct HasSpanF32<Op, std::void_t<decltype(&Op::SpanF32)>> : std::true_type {};

template <class Op>
HLO_EW_CLONES void StagedLoopF32(const void* const* in, void* out, int64_t begin, int64_t end,
                                 const KernelParams&) {
  Op::SpanF32(static_cast<const float*>(in[0]) + begin, static_cast<float*>(out) + begin, end - begin);
}

struct OpImag {
  static constexpr bool kVec = true;
  template <class C>
  static C Apply(C) {
    return C(0);
  }
};

struct OpIsFinite {
  static constexpr bool kVec = true;
  template <class C>
  static bool Apply(C x) {
    return std::isfinite(x);
  }
};

#define HLO_EW_FLOAT_BINARY_OP(Name, vec, expr) \
  struct Name {                                 \
    static constexpr bool kVec = vec;           \
    template <class C>                          \
    static C Apply(C a, C b) {                  \
      return expr;                              \
    }                                           \
  };
HLO_EW_FLOAT_BINARY_OP(OpAdd, true, a + b)
HLO_EW_FLOAT_BINARY_OP(OpSub, true, a - b)
HLO_EW_FLOAT_BINARY_OP(OpMul, true, a* b)
HLO_EW_FLOAT_BINARY_OP(OpDiv, true, a / b)
HLO_EW_FLOAT_BINARY_OP(OpRem, false, std::fmod(a, b))
HLO_EW_FLOAT_BINARY_OP(OpMax, true, FMax(a, b))
HLO_EW_FLOAT_BINARY_OP(OpMin, true, FMin(a, b))
HLO_EW_FLOAT_BINARY_OP(OpPow, false, std::pow(a, b))
HLO_EW_FLOAT_BINARY_OP(OpAtan2, false, std::atan2(a, b))
#undef HLO_EW_FLOAT_BINARY_OP

// clamp(lo, x, hi) = min(hi, max(lo, x)) with NaN-propagating min/max.
struct OpClamp {
  static constexpr bool kVec = true;
  template <class C>
  static C Apply(C lo, C x, C hi) {
    return FMin(hi, FMax(lo, x));
  }
};

// IEEE comparisons: ordered, except NE which is unordered (true on NaN).
template <ComparisonDirection D>
struct OpCmp {
  static constexpr bool kVec = true;
  template <class C>
  static bool Apply(C a, C b) {
    switch (D) {
      case ComparisonDirection::kEq: return a == b;
      case ComparisonDirection::kNe: return a != b;
      case ComparisonDirection::kGe: return a >= b;
      case ComparisonDirection::kGt: return a > b;
      case ComparisonDirection::kLe: return a <= b;
      case ComparisonDirection::kLt: return a < b;
    }
    return false;
  }
};

// Total order on the stored bits: sign-magnitude mapped to a signed key
// (negative values: -1 - magnitude), so -NaN < -inf < ... < -0 < +0 < ... <
// +inf < +NaN and EQ is bit equality. f8e8m0fnu (no sign bit) compares its
// bits as unsigned.
template <class T>
inline int64_t TotalOrderKey(typename T::Storage s) {
  constexpr int B = T::kBits;
  uint64_t u;
  if constexpr (sizeof(s) == 8) {
    u = BitCast<uint64_t>(s);
  } else if constexpr (sizeof(s) == 4) {
    u = BitCast<uint32_t>(s);
  } else {
    u = static_cast<uint64_t>(s);
  }
  if constexpr (B < 64) u &= (uint64_t{1} << B) - 1;
  if constexpr (T::kType == PrimitiveType::F8E8M0FNU) {
    return static_cast<int64_t>(u);
  } else {
    int64_t mag = static_cast<int64_t>(u & ((uint64_t{1} << (B - 1)) - 1));
    return (u >> (B - 1)) ? -1 - mag : mag;
  }
}

template <class T, ComparisonDirection D>
struct OpTotalCmp {
  static bool Apply(typename T::Storage a, typename T::Storage b) {
    return OpCmp<D>::Apply(TotalOrderKey<T>(a), TotalOrderKey<T>(b));
  }
};

struct OpMakeComplex {
  template <class C>
  static std::complex<C> Apply(C re, C im) {
    return std::complex<C>(re, im);
  }
};

// ---------------------------------------------------------------- dispatch

// The dispatched (vectorised, ISA-cloned) loop for kVec ops, else the plain
// one (only the chosen template is instantiated).
template <class In, class Out, class Op>
constexpr ElementwiseKernel UnaryK() {
  if constexpr (HasSpanF32<Op>::value && std::is_same_v<In, F32T> && std::is_same_v<Out, F32T>) {
    return &StagedLoopF32<Op>;
  } else if constexpr (Op::kVec) {
    return &UnaryLoopV<In, Out, Op>;
  } else {
    return &UnaryLoop<In, Out, Op>;
  }
}
template <class In, class Out, class Op>
constexpr ElementwiseKernel BinaryK() {
  if constexpr (Op::kVec) {
    return &BinaryLoopV<In, Out, Op>;
  } else {
    return &BinaryLoop<In, Out, Op>;
  }
}
template <class In, class Out, class Op>
constexpr ElementwiseKernel TernaryK() {
  if constexpr (Op::kVec) {
    return &TernaryLoopV<In, Out, Op>;
  } else {
    return &TernaryLoop<In, Out, Op>;
  }
}

template <class Op>
ElementwiseKernel Unary(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::F32: return UnaryK<F32T, F32T, Op>();
    case PrimitiveType::F64: return UnaryK<F64T, F64T, Op>();
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return &ViaF32<Tr, 1, UnaryK<F32T, F32T, Op>(), true>;
      HLO_EW_NARROW_FLOAT_TYPES(HLO_CASE)
#undef HLO_CASE
    default: return nullptr;
  }
}

template <class Op>
ElementwiseKernel UnaryToPred(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::F32: return UnaryK<F32T, PredT, Op>();
    case PrimitiveType::F64: return UnaryK<F64T, PredT, Op>();
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return &ViaF32<Tr, 1, UnaryK<F32T, PredT, Op>(), false>;
      HLO_EW_NARROW_FLOAT_TYPES(HLO_CASE)
#undef HLO_CASE
    default: return nullptr;
  }
}

template <class Op>
ElementwiseKernel Binary(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::F32: return BinaryK<F32T, F32T, Op>();
    case PrimitiveType::F64: return BinaryK<F64T, F64T, Op>();
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return &ViaF32<Tr, 2, BinaryK<F32T, F32T, Op>(), true>;
      HLO_EW_NARROW_FLOAT_TYPES(HLO_CASE)
#undef HLO_CASE
    default: return nullptr;
  }
}

// f32/f64 only: narrower types decode tiles and have no scalar form.
template <class Op>
ElementwiseKernel BinaryScalar(PrimitiveType t, int scalar) {
  switch (t) {
    case PrimitiveType::F32:
      return scalar == 0 ? &BinaryScalarLoopV<F32T, F32T, Op, 0> : &BinaryScalarLoopV<F32T, F32T, Op, 1>;
    case PrimitiveType::F64:
      return scalar == 0 ? &BinaryScalarLoopV<F64T, F64T, Op, 0> : &BinaryScalarLoopV<F64T, F64T, Op, 1>;
    default: return nullptr;
  }
}

template <class Op>
ElementwiseKernel BinaryToPred(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::F32: return BinaryK<F32T, PredT, Op>();
    case PrimitiveType::F64: return BinaryK<F64T, PredT, Op>();
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return &ViaF32<Tr, 2, BinaryK<F32T, PredT, Op>(), false>;
      HLO_EW_NARROW_FLOAT_TYPES(HLO_CASE)
#undef HLO_CASE
    default: return nullptr;
  }
}

template <class Op>
ElementwiseKernel Ternary(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::F32: return TernaryK<F32T, F32T, Op>();
    case PrimitiveType::F64: return TernaryK<F64T, F64T, Op>();
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return &ViaF32<Tr, 3, TernaryK<F32T, F32T, Op>(), true>;
      HLO_EW_NARROW_FLOAT_TYPES(HLO_CASE)
#undef HLO_CASE
    default: return nullptr;
  }
}

template <ComparisonDirection D>
ElementwiseKernel TotalOrderCompare(PrimitiveType t) {
  switch (t) {
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return &BinaryLoop<BitsOf<Tr>, PredT, OpTotalCmp<Tr, D>>;
    HLO_EW_FLOAT_TYPES(HLO_CASE)
#undef HLO_CASE
    default: return nullptr;
  }
}

ElementwiseKernel Compare(PrimitiveType t, const ElementwiseAttrs& attrs) {
  using CD = ComparisonDirection;
  switch (attrs.comparison_type) {
    case ComparisonType::kDefault:
    case ComparisonType::kFloat:
      switch (attrs.direction) {
        case CD::kEq: return BinaryToPred<OpCmp<CD::kEq>>(t);
        case CD::kNe: return BinaryToPred<OpCmp<CD::kNe>>(t);
        case CD::kGe: return BinaryToPred<OpCmp<CD::kGe>>(t);
        case CD::kGt: return BinaryToPred<OpCmp<CD::kGt>>(t);
        case CD::kLe: return BinaryToPred<OpCmp<CD::kLe>>(t);
        case CD::kLt: return BinaryToPred<OpCmp<CD::kLt>>(t);
      }
      return nullptr;
    case ComparisonType::kTotalOrder:
      switch (attrs.direction) {
        case CD::kEq: return TotalOrderCompare<CD::kEq>(t);
        case CD::kNe: return TotalOrderCompare<CD::kNe>(t);
        case CD::kGe: return TotalOrderCompare<CD::kGe>(t);
        case CD::kGt: return TotalOrderCompare<CD::kGt>(t);
        case CD::kLe: return TotalOrderCompare<CD::kLe>(t);
        case CD::kLt: return TotalOrderCompare<CD::kLt>(t);
      }
      return nullptr;
    default:
      return nullptr;  // SIGNED / UNSIGNED on floats: rejected by the caller
  }
}

// reduce-precision on the type's own format (float_format).
// With f32's full exponent range (exponent_bits >= 8) only the mantissa is
// rounded: nearest even on the bits, as float_format's ReducePrecisionBits
// does (a NaN keeps its bits; with no mantissa bit left it would become
// inf, so mantissa_bits = 0 takes the general path), in a loop the compiler
// vectorises. Rounding to bf16 precision (8, 7) is the hot case: widened
// bf16 fusions (fusion_widen_bf16.h) round an inexact op's result with it
// wherever the rounded value is needed.
HLO_EW_CLONES void RoundMantissaF32(const uint32_t* __restrict x, uint32_t* __restrict y, int64_t n,
                                    int drop) {
  const uint32_t half_minus_one = (uint32_t{1} << (drop - 1)) - 1;
  const uint32_t keep = ~((uint32_t{1} << drop) - 1);
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t bits = x[i];
    const uint32_t rounded = (bits + ((bits >> drop) & 1u) + half_minus_one) & keep;
    y[i] = (bits & 0x7fffffffu) > 0x7f800000u ? bits : rounded;
  }
}

void ReducePrecisionF32(const void* const* in, void* out, int64_t b, int64_t e,
                        const KernelParams& p) {
  const float* __restrict x = static_cast<const float*>(in[0]);
  float* __restrict y = static_cast<float*>(out);
  if (p.exponent_bits >= 8 && p.mantissa_bits > 0 && p.mantissa_bits < 23) {
    RoundMantissaF32(reinterpret_cast<const uint32_t*>(x) + b, reinterpret_cast<uint32_t*>(y) + b, e - b,
                     23 - p.mantissa_bits);
    return;
  }
  for (int64_t i = b; i < e; ++i) y[i] = ReducePrecision(x[i], p.exponent_bits, p.mantissa_bits);
}
void ReducePrecisionF64(const void* const* in, void* out, int64_t b, int64_t e,
                        const KernelParams& p) {
  const double* __restrict x = static_cast<const double*>(in[0]);
  double* __restrict y = static_cast<double*>(out);
  for (int64_t i = b; i < e; ++i) y[i] = ReducePrecision(x[i], p.exponent_bits, p.mantissa_bits);
}
template <class T>
void ReducePrecisionBitsLoop(const void* const* in, void* out, int64_t b, int64_t e,
                             const KernelParams& p) {
  using S = typename T::Storage;
  const S* __restrict x = static_cast<const S*>(in[0]);
  S* __restrict y = static_cast<S*>(out);
  for (int64_t i = b; i < e; ++i) {
    y[i] = static_cast<S>(ReducePrecisionOfType(T::kType, x[i], p.exponent_bits, p.mantissa_bits));
  }
}

ElementwiseKernel ReducePrecisionKernel(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::F32: return &ReducePrecisionF32;
    case PrimitiveType::F64: return &ReducePrecisionF64;
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return &ReducePrecisionBitsLoop<Tr>;
      HLO_EW_NARROW_FLOAT_TYPES(HLO_CASE)
#undef HLO_CASE
    default: return nullptr;
  }
}

}  // namespace

ElementwiseKernel SelectFloatScalarOperandKernel(Opcode op, PrimitiveType t, int scalar) {
  if (scalar != 0 && scalar != 1) return nullptr;
  switch (op) {
    case Opcode::kAdd: return BinaryScalar<OpAdd>(t, scalar);
    case Opcode::kSubtract: return BinaryScalar<OpSub>(t, scalar);
    case Opcode::kMultiply: return BinaryScalar<OpMul>(t, scalar);
    case Opcode::kDivide: return BinaryScalar<OpDiv>(t, scalar);
    case Opcode::kMaximum: return BinaryScalar<OpMax>(t, scalar);
    case Opcode::kMinimum: return BinaryScalar<OpMin>(t, scalar);
    default: return nullptr;
  }
}

ElementwiseKernel SelectFloatKernel(Opcode op, PrimitiveType t, const ElementwiseAttrs& attrs) {
  switch (op) {
    case Opcode::kAbs: return Unary<OpAbs>(t);
    case Opcode::kAcos: return Unary<OpAcos>(t);
    case Opcode::kAcosh: return Unary<OpAcosh>(t);
    case Opcode::kAsin: return Unary<OpAsin>(t);
    case Opcode::kAsinh: return Unary<OpAsinh>(t);
    case Opcode::kAtanh: return Unary<OpAtanh>(t);
    case Opcode::kCbrt: return Unary<OpCbrt>(t);
    case Opcode::kCeil: return Unary<OpCeil>(t);
    case Opcode::kCos: return Unary<OpCos>(t);
    case Opcode::kCosh: return Unary<OpCosh>(t);
    case Opcode::kErf: return Unary<OpErf>(t);
    case Opcode::kExp: return Unary<OpExp>(t);
    case Opcode::kExpm1: return Unary<OpExpm1>(t);
    case Opcode::kFloor: return Unary<OpFloor>(t);
    case Opcode::kImag: return Unary<OpImag>(t);
    case Opcode::kIsFinite: return UnaryToPred<OpIsFinite>(t);
    case Opcode::kLog: return Unary<OpLog>(t);
    case Opcode::kLog1p: return Unary<OpLog1p>(t);
    case Opcode::kLogistic: return Unary<OpLogistic>(t);
    case Opcode::kNegate: return Unary<OpNegate>(t);
    case Opcode::kReal: return Unary<OpCopy>(t);
    case Opcode::kRoundNearestAfz: return Unary<OpRoundAfz>(t);
    case Opcode::kRoundNearestEven: return Unary<OpRoundEven>(t);
    case Opcode::kRsqrt: return Unary<OpRsqrt>(t);
    case Opcode::kSign: return Unary<OpSign>(t);
    case Opcode::kSin: return Unary<OpSin>(t);
    case Opcode::kSinh: return Unary<OpSinh>(t);
    case Opcode::kSqrt: return Unary<OpSqrt>(t);
    case Opcode::kTan: return Unary<OpTan>(t);
    case Opcode::kTanh: return Unary<OpTanh>(t);
    case Opcode::kAdd: return Binary<OpAdd>(t);
    case Opcode::kSubtract: return Binary<OpSub>(t);
    case Opcode::kMultiply: return Binary<OpMul>(t);
    case Opcode::kDivide: return Binary<OpDiv>(t);
    case Opcode::kRemainder: return Binary<OpRem>(t);
    case Opcode::kMaximum: return Binary<OpMax>(t);
    case Opcode::kMinimum: return Binary<OpMin>(t);
    case Opcode::kPower: return Binary<OpPow>(t);
    case Opcode::kAtan2: return Binary<OpAtan2>(t);
    case Opcode::kCompare: return Compare(t, attrs);
    case Opcode::kClamp: return Ternary<OpClamp>(t);
    case Opcode::kReducePrecision: return ReducePrecisionKernel(t);
    default: return nullptr;
  }
}

ElementwiseKernel SelectMakeComplexKernel(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::F32: return &BinaryLoop<F32T, C64T, OpMakeComplex>;
    case PrimitiveType::F64: return &BinaryLoop<F64T, C128T, OpMakeComplex>;
    default: return nullptr;
  }
}

}  // namespace hlo::cpu::ew
