// Elementwise kernels of the integer family (s1 ... u64) and pred.
// Arithmetic wraps modulo 2^bits (done in unsigned arithmetic: no signed
// overflow UB); sub-byte types are re-normalised by Store. Division,
// shifts, power: see docs/semantics-elementwise.md.
#include <algorithm>

#include "backend_cpu/ew_internal.h"
#include "backend_cpu/ew_types.h"

namespace hlo::cpu::ew {
namespace {

template <class Tr>
using UA = typename Tr::UArith;

// Sign-extension of the B-bit pattern to int64 (the signed reading of the
// bits, also for unsigned types).
template <class Tr>
inline int64_t SignedBits(typename Tr::Storage a) {
  uint64_t p = static_cast<uint64_t>(Tr::Pattern(a));
  if constexpr (Tr::kBits == 64) {
    return static_cast<int64_t>(p);
  } else {
    return static_cast<int64_t>(p << (64 - Tr::kBits)) >> (64 - Tr::kBits);
  }
}

#define HLO_EW_INT_UNARY_OP(Name, expr)       \
  template <class Tr>                         \
  struct Name {                               \
    using S = typename Tr::Storage;           \
    static S Apply(S a) { return static_cast<S>(expr); } \
  };
#define HLO_EW_INT_BINARY_OP(Name, expr)           \
  template <class Tr>                              \
  struct Name {                                    \
    using S = typename Tr::Storage;                \
    static S Apply(S a, S b) { return static_cast<S>(expr); } \
  };

HLO_EW_INT_UNARY_OP(OpCopy, a)
HLO_EW_INT_UNARY_OP(OpNot, ~a)
HLO_EW_INT_UNARY_OP(OpNegate, UA<Tr>(0) - UA<Tr>(a))
HLO_EW_INT_UNARY_OP(OpPopcnt, __builtin_popcountll(static_cast<uint64_t>(Tr::Pattern(a))))
HLO_EW_INT_UNARY_OP(OpClz, Tr::Pattern(a) == 0
                               ? Tr::kBits
                               : __builtin_clzll(static_cast<uint64_t>(Tr::Pattern(a))) -
                                     (64 - Tr::kBits))

HLO_EW_INT_BINARY_OP(OpAdd, UA<Tr>(a) + UA<Tr>(b))
HLO_EW_INT_BINARY_OP(OpSub, UA<Tr>(a) - UA<Tr>(b))
HLO_EW_INT_BINARY_OP(OpMul, UA<Tr>(a) * UA<Tr>(b))
HLO_EW_INT_BINARY_OP(OpAnd, a & b)
HLO_EW_INT_BINARY_OP(OpOr, a | b)
HLO_EW_INT_BINARY_OP(OpXor, a ^ b)
HLO_EW_INT_BINARY_OP(OpMax, a > b ? a : b)
HLO_EW_INT_BINARY_OP(OpMin, a < b ? a : b)
// Shift amounts are read as unsigned B-bit values; >= B saturates.
HLO_EW_INT_BINARY_OP(OpShl, Tr::Pattern(b) >= UA<Tr>(Tr::kBits) ? UA<Tr>(0) : UA<Tr>(UA<Tr>(a) << Tr::Pattern(b)))
HLO_EW_INT_BINARY_OP(OpShrLogical, Tr::Pattern(b) >= UA<Tr>(Tr::kBits) ? UA<Tr>(0) : UA<Tr>(Tr::Pattern(a) >> Tr::Pattern(b)))
HLO_EW_INT_BINARY_OP(OpShrArith, Tr::Pattern(b) >= UA<Tr>(Tr::kBits)
                                     ? (SignedBits<Tr>(a) < 0 ? int64_t{-1} : int64_t{0})
                                     : (SignedBits<Tr>(a) >> Tr::Pattern(b)))
#undef HLO_EW_INT_UNARY_OP
#undef HLO_EW_INT_BINARY_OP

// abs(INT_MIN) = INT_MIN (wraps); identity on unsigned types.
template <class Tr>
struct OpAbs {
  using S = typename Tr::Storage;
  static S Apply(S a) {
    if constexpr (Tr::kSigned) {
      return a < 0 ? static_cast<S>(UA<Tr>(0) - UA<Tr>(a)) : a;
    } else {
      return a;
    }
  }
};

// -1 / 0 / 1 (unsigned: 0 / 1).
template <class Tr>
struct OpSign {
  using S = typename Tr::Storage;
  static S Apply(S a) {
    if constexpr (Tr::kSigned) {
      return static_cast<S>((a > 0) - (a < 0));
    } else {
      return static_cast<S>(a != 0);
    }
  }
};

// x / 0 = -1 (all ones); INT_MIN / -1 = INT_MIN.
template <class Tr>
struct OpDiv {
  using S = typename Tr::Storage;
  static S Apply(S a, S b) {
    if (b == 0) return static_cast<S>(-1);
    if constexpr (Tr::kSigned) {
      if (a == Tr::kMin && b == static_cast<S>(-1)) return Tr::kMin;
    }
    return static_cast<S>(a / b);
  }
};

// x % 0 = x; INT_MIN % -1 = 0; sign of the result follows the dividend.
template <class Tr>
struct OpRem {
  using S = typename Tr::Storage;
  static S Apply(S a, S b) {
    if (b == 0) return a;
    if constexpr (Tr::kSigned) {
      if (a == Tr::kMin && b == static_cast<S>(-1)) return 0;
    }
    return static_cast<S>(a % b);
  }
};

// High half of the double-width product.
template <class Tr>
struct OpMulhi {
  using S = typename Tr::Storage;
  static S Apply(S a, S b) {
    if constexpr (Tr::kBits == 64) {
      if constexpr (Tr::kSigned) {
        __int128 p = static_cast<__int128>(a) * static_cast<__int128>(b);
        return static_cast<S>(static_cast<uint64_t>(static_cast<unsigned __int128>(p) >> 64));
      } else {
        unsigned __int128 p = static_cast<unsigned __int128>(a) * static_cast<unsigned __int128>(b);
        return static_cast<S>(p >> 64);
      }
    } else if constexpr (Tr::kSigned) {
      int64_t p = static_cast<int64_t>(a) * static_cast<int64_t>(b);
      return static_cast<S>(p >> Tr::kBits);
    } else {
      uint64_t p = static_cast<uint64_t>(a) * static_cast<uint64_t>(b);
      return static_cast<S>(p >> Tr::kBits);
    }
  }
};

// Integer power by squaring over the whole exponent (wrapping); a negative
// exponent gives 1 for base 1 and 0 otherwise (XLA: also for base -1);
// x^0 = 1 (also 0^0).
template <class Tr>
struct OpPow {
  using S = typename Tr::Storage;
  static S Apply(S a, S b) {
    if constexpr (Tr::kSigned) {
      if (b < 0) return a == 1 ? S{1} : S{0};
    }
    uint64_t e = static_cast<uint64_t>(b);
    UA<Tr> base = static_cast<UA<Tr>>(a);
    UA<Tr> acc = 1;
    while (e != 0) {
      if (e & 1) acc = static_cast<UA<Tr>>(acc * base);
      base = static_cast<UA<Tr>>(base * base);
      e >>= 1;
    }
    return static_cast<S>(acc);
  }
};

template <class Tr>
struct OpClamp {
  using S = typename Tr::Storage;
  static S Apply(S lo, S x, S hi) {
    S m = x > lo ? x : lo;
    return m < hi ? m : hi;
  }
};

template <ComparisonDirection D>
struct OpCmp {
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

template <template <class> class Op>
ElementwiseKernel Unary(PrimitiveType t) {
  switch (t) {
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return &UnaryLoop<Tr, Tr, Op<Tr>>;
    HLO_EW_INT_TYPES(HLO_CASE)
#undef HLO_CASE
    default: return nullptr;
  }
}

template <template <class> class Op>
ElementwiseKernel Binary(PrimitiveType t) {
  switch (t) {
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return &BinaryLoop<Tr, Tr, Op<Tr>>;
    HLO_EW_INT_TYPES(HLO_CASE)
#undef HLO_CASE
    default: return nullptr;
  }
}

template <template <class> class Op>
ElementwiseKernel Ternary(PrimitiveType t) {
  switch (t) {
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return &TernaryLoop<Tr, Tr, Op<Tr>>;
    HLO_EW_INT_TYPES(HLO_CASE)
#undef HLO_CASE
    default: return nullptr;
  }
}

template <ComparisonDirection D>
ElementwiseKernel CompareDir(PrimitiveType t) {
  switch (t) {
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return &BinaryLoop<Tr, PredT, OpCmp<D>>;
    HLO_EW_INT_TYPES(HLO_CASE)
    HLO_CASE(PRED, PredT)
#undef HLO_CASE
    default: return nullptr;
  }
}

ElementwiseKernel Compare(PrimitiveType t, ComparisonDirection d) {
  using CD = ComparisonDirection;
  switch (d) {
    case CD::kEq: return CompareDir<CD::kEq>(t);
    case CD::kNe: return CompareDir<CD::kNe>(t);
    case CD::kGe: return CompareDir<CD::kGe>(t);
    case CD::kGt: return CompareDir<CD::kGt>(t);
    case CD::kLe: return CompareDir<CD::kLe>(t);
    case CD::kLt: return CompareDir<CD::kLt>(t);
  }
  return nullptr;
}

// pred: logical ops on 0/1 (XLA: add/maximum = or, multiply/minimum = and).
struct PredNot {
  static bool Apply(bool a) { return !a; }
};
struct PredCopy {
  static bool Apply(bool a) { return a; }
};
struct PredAnd {
  static bool Apply(bool a, bool b) { return a && b; }
};
struct PredOr {
  static bool Apply(bool a, bool b) { return a || b; }
};
struct PredXor {
  static bool Apply(bool a, bool b) { return a != b; }
};
struct PredClamp {
  static bool Apply(bool lo, bool x, bool hi) { return (x || lo) && hi; }
};

}  // namespace

ElementwiseKernel SelectIntKernel(Opcode op, PrimitiveType t, const ElementwiseAttrs& attrs) {
  switch (op) {
    case Opcode::kCopy: return Unary<OpCopy>(t);
    case Opcode::kNot: return Unary<OpNot>(t);
    case Opcode::kNegate: return Unary<OpNegate>(t);
    case Opcode::kAbs: return Unary<OpAbs>(t);
    case Opcode::kSign: return Unary<OpSign>(t);
    case Opcode::kPopulationCount: return Unary<OpPopcnt>(t);
    case Opcode::kClz: return Unary<OpClz>(t);
    case Opcode::kAdd: return Binary<OpAdd>(t);
    case Opcode::kSubtract: return Binary<OpSub>(t);
    case Opcode::kMultiply: return Binary<OpMul>(t);
    case Opcode::kDivide: return Binary<OpDiv>(t);
    case Opcode::kRemainder: return Binary<OpRem>(t);
    case Opcode::kAnd: return Binary<OpAnd>(t);
    case Opcode::kOr: return Binary<OpOr>(t);
    case Opcode::kXor: return Binary<OpXor>(t);
    case Opcode::kMaximum: return Binary<OpMax>(t);
    case Opcode::kMinimum: return Binary<OpMin>(t);
    case Opcode::kShiftLeft: return Binary<OpShl>(t);
    case Opcode::kShiftRightLogical: return Binary<OpShrLogical>(t);
    case Opcode::kShiftRightArithmetic: return Binary<OpShrArith>(t);
    case Opcode::kMulhi: return Binary<OpMulhi>(t);
    case Opcode::kPower: return Binary<OpPow>(t);
    case Opcode::kClamp: return Ternary<OpClamp>(t);
    case Opcode::kCompare: return Compare(t, attrs.direction);
    default: return nullptr;
  }
}

ElementwiseKernel SelectPredKernel(Opcode op, const ElementwiseAttrs& attrs) {
  switch (op) {
    case Opcode::kCopy: return &UnaryLoop<PredT, PredT, PredCopy>;
    case Opcode::kNot: return &UnaryLoop<PredT, PredT, PredNot>;
    case Opcode::kAnd:
    case Opcode::kMultiply:
    case Opcode::kMinimum: return &BinaryLoop<PredT, PredT, PredAnd>;
    case Opcode::kOr:
    case Opcode::kAdd:
    case Opcode::kMaximum: return &BinaryLoop<PredT, PredT, PredOr>;
    case Opcode::kXor: return &BinaryLoop<PredT, PredT, PredXor>;
    case Opcode::kClamp: return &TernaryLoop<PredT, PredT, PredClamp>;
    case Opcode::kCompare: return Compare(PrimitiveType::PRED, attrs.direction);
    default: return nullptr;
  }
}

}  // namespace hlo::cpu::ew
