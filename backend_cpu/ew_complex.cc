// Elementwise kernels of the complex family (c64, c128). Formulas follow
// XLA's elemental IR emitter where it defines them (multiply, divide, abs,
// sign, exp, log, log1p, power, rsqrt of zero); the remaining functions use
// <complex> (C++ / C99 Annex G branch cuts).
#include <cmath>
#include <complex>
#include <limits>

#include "backend_cpu/ew_internal.h"
#include "backend_cpu/ew_types.h"

namespace hlo::cpu::ew {
namespace {

template <class R>
using Cx = std::complex<R>;

// |z| = max * sqrt(1 + (min/max)^2); when that is NaN ((0,0), (inf,inf) or
// a NaN part) the result is min (so |(inf, NaN)| = NaN... as XLA).
template <class R>
inline R CAbs(Cx<R> z) {
  R ar = std::fabs(z.real()), ai = std::fabs(z.imag());
  R mx = FMax(ar, ai), mn = FMin(ar, ai);
  R q = mn / mx;
  R r = mx * std::sqrt(R(1) + q * q);
  return IsNan(r) ? mn : r;
}

struct OpAbs {
  template <class R>
  static R Apply(Cx<R> z) {
    return CAbs(z);
  }
};
struct OpReal {
  template <class R>
  static R Apply(Cx<R> z) {
    return z.real();
  }
};
struct OpImag {
  template <class R>
  static R Apply(Cx<R> z) {
    return z.imag();
  }
};

#define HLO_EW_CX_UNARY_OP(Name, expr) \
  struct Name {                        \
    template <class R>                 \
    static Cx<R> Apply(Cx<R> z) {      \
      return expr;                     \
    }                                  \
  };

HLO_EW_CX_UNARY_OP(OpCopy, z)
HLO_EW_CX_UNARY_OP(OpNegate, Cx<R>(-z.real(), -z.imag()))
HLO_EW_CX_UNARY_OP(OpSqrt, std::sqrt(z))
HLO_EW_CX_UNARY_OP(OpSin, std::sin(z))
HLO_EW_CX_UNARY_OP(OpCos, std::cos(z))
HLO_EW_CX_UNARY_OP(OpTan, std::tan(z))
HLO_EW_CX_UNARY_OP(OpTanh, std::tanh(z))
HLO_EW_CX_UNARY_OP(OpSinh, std::sinh(z))
HLO_EW_CX_UNARY_OP(OpCosh, std::cosh(z))
HLO_EW_CX_UNARY_OP(OpAsin, std::asin(z))
HLO_EW_CX_UNARY_OP(OpAcos, std::acos(z))
HLO_EW_CX_UNARY_OP(OpAsinh, std::asinh(z))
HLO_EW_CX_UNARY_OP(OpAcosh, std::acosh(z))
HLO_EW_CX_UNARY_OP(OpAtanh, std::atanh(z))
#undef HLO_EW_CX_UNARY_OP

// sign(z) = z / |z|, 0 for z == 0.
struct OpSign {
  template <class R>
  static Cx<R> Apply(Cx<R> z) {
    R a = CAbs(z);
    if (a == R(0)) return Cx<R>(0, 0);
    return Cx<R>(z.real() / a, z.imag() / a);
  }
};

// exp(a + bi) = e^a (cos b + i sin b).
struct OpExp {
  template <class R>
  static Cx<R> Apply(Cx<R> z) {
    R e = std::exp(z.real());
    return Cx<R>(e * std::cos(z.imag()), e * std::sin(z.imag()));
  }
};

// expm1(a + bi) = (expm1(a) cos b - 2 sin^2(b/2)) + i e^a sin b (accurate
// near 0; XLA computes e^a cos b - 1).
struct OpExpm1 {
  template <class R>
  static Cx<R> Apply(Cx<R> z) {
    R a = z.real(), b = z.imag();
    R s = std::sin(b / 2);
    R re = std::expm1(a) * std::cos(b) - 2 * s * s;
    R im = std::exp(a) * std::sin(b);
    return Cx<R>(re, im);
  }
};

// log(z) = log|z| + i atan2(b, a).
struct OpLog {
  template <class R>
  static Cx<R> Apply(Cx<R> z) {
    return Cx<R>(std::log(CAbs(z)), std::atan2(z.imag(), z.real()));
  }
};

// log1p(a + bi) = 0.5 log1p(a^2 + 2a + b^2) + i atan2(b, a + 1).
struct OpLog1p {
  template <class R>
  static Cx<R> Apply(Cx<R> z) {
    R a = z.real(), b = z.imag();
    R s = a * a + 2 * a + b * b;
    return Cx<R>(R(0.5) * std::log1p(s), std::atan2(b, a + 1));
  }
};

// (a+bi)^(c+di) = (a^2+b^2)^(c/2) e^(-d t) (cos q + i sin q),
// t = atan2(b, a), q = c t + (d/2) ln(a^2+b^2); 0^(c+0i) = 1 if c == 0,
// 0 if c > 0 (XLA's EmitComplexPower).
template <class R>
inline Cx<R> CPow(Cx<R> x, Cx<R> y) {
  R a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
  R aa_bb = a * a + b * b;
  if (aa_bb == R(0) && d == R(0) && c >= R(0)) return Cx<R>(c == R(0) ? R(1) : R(0), R(0));
  R t = std::atan2(b, a);
  R coeff = std::pow(aa_bb, R(0.5) * c) * std::exp(-d * t);
  R q = c * t + R(0.5) * d * std::log(aa_bb);
  return Cx<R>(coeff * std::cos(q), coeff * std::sin(q));
}

struct OpPow {
  template <class R>
  static Cx<R> Apply(Cx<R> x, Cx<R> y) {
    return CPow(x, y);
  }
};

// cbrt as power 1/3 (principal branch), as XLA.
struct OpCbrt {
  template <class R>
  static Cx<R> Apply(Cx<R> z) {
    return CPow(z, Cx<R>(R(1) / R(3), R(0)));
  }
};

// rsqrt(0) = (inf, NaN) (XLA); otherwise 1 / sqrt(z).
struct OpRsqrt {
  template <class R>
  static Cx<R> Apply(Cx<R> z) {
    if (z.real() == R(0) && z.imag() == R(0)) {
      return Cx<R>(std::numeric_limits<R>::infinity(), std::numeric_limits<R>::quiet_NaN());
    }
    Cx<R> s = std::sqrt(z);
    return Cx<R>(1, 0) / s;
  }
};

struct OpLogistic {
  template <class R>
  static Cx<R> Apply(Cx<R> z) {
    Cx<R> e = OpExp::Apply(Cx<R>(-z.real(), -z.imag()));
    return Cx<R>(1, 0) / (Cx<R>(1, 0) + e);
  }
};

struct OpAdd {
  template <class R>
  static Cx<R> Apply(Cx<R> x, Cx<R> y) {
    return Cx<R>(x.real() + y.real(), x.imag() + y.imag());
  }
};
struct OpSub {
  template <class R>
  static Cx<R> Apply(Cx<R> x, Cx<R> y) {
    return Cx<R>(x.real() - y.real(), x.imag() - y.imag());
  }
};
// Textbook product (no Annex G inf recovery), as XLA.
struct OpMul {
  template <class R>
  static Cx<R> Apply(Cx<R> x, Cx<R> y) {
    return Cx<R>(x.real() * y.real() - x.imag() * y.imag(),
                 x.real() * y.imag() + x.imag() * y.real());
  }
};

// Smith's algorithm plus XLA's three recoveries when both parts are NaN:
// zero divisor, infinite numerator / finite divisor, finite numerator /
// infinite divisor.
struct OpDiv {
  template <class R>
  static Cx<R> Apply(Cx<R> x, Cx<R> y) {
    const R inf = std::numeric_limits<R>::infinity();
    R ar = x.real(), ai = x.imag(), br = y.real(), bi = y.imag();
    R cr, ci;
    if (std::fabs(br) < std::fabs(bi)) {
      R ratio = br / bi;
      R denom = bi + br * ratio;
      cr = (ar * ratio + ai) / denom;
      ci = (ai * ratio - ar) / denom;
    } else {
      R ratio = bi / br;
      R denom = br + bi * ratio;
      cr = (ar + ai * ratio) / denom;
      ci = (ai - ar * ratio) / denom;
    }
    if (!(IsNan(cr) && IsNan(ci))) return Cx<R>(cr, ci);
    if (br == 0 && bi == 0 && (!IsNan(ar) || !IsNan(ai))) {
      R s = std::copysign(inf, br);
      return Cx<R>(s * ar, s * ai);
    }
    bool a_inf = std::isinf(ar) || std::isinf(ai);
    bool b_fin = std::isfinite(br) && std::isfinite(bi);
    if (a_inf && b_fin) {
      R sr = std::copysign(std::isinf(ar) ? R(1) : R(0), ar);
      R si = std::copysign(std::isinf(ai) ? R(1) : R(0), ai);
      return Cx<R>(inf * (sr * br + si * bi), inf * (si * br - sr * bi));
    }
    bool b_inf = std::isinf(br) || std::isinf(bi);
    bool a_fin = std::isfinite(ar) && std::isfinite(ai);
    if (b_inf && a_fin) {
      R sr = std::copysign(std::isinf(br) ? R(1) : R(0), br);
      R si = std::copysign(std::isinf(bi) ? R(1) : R(0), bi);
      return Cx<R>(R(0) * (ar * sr + ai * si), R(0) * (ai * sr - ar * si));
    }
    return Cx<R>(cr, ci);
  }
};

// EQ: both parts equal (ordered); NE: either part unequal (unordered).
struct OpEq {
  template <class R>
  static bool Apply(Cx<R> x, Cx<R> y) {
    return x.real() == y.real() && x.imag() == y.imag();
  }
};
struct OpNe {
  template <class R>
  static bool Apply(Cx<R> x, Cx<R> y) {
    return x.real() != y.real() || x.imag() != y.imag();
  }
};

template <class Op>
ElementwiseKernel Unary(PrimitiveType t) {
  if (t == PrimitiveType::C64) return &UnaryLoop<C64T, C64T, Op>;
  if (t == PrimitiveType::C128) return &UnaryLoop<C128T, C128T, Op>;
  return nullptr;
}
template <class Op>
ElementwiseKernel UnaryToReal(PrimitiveType t) {
  if (t == PrimitiveType::C64) return &UnaryLoop<C64T, F32T, Op>;
  if (t == PrimitiveType::C128) return &UnaryLoop<C128T, F64T, Op>;
  return nullptr;
}
template <class Op>
ElementwiseKernel Binary(PrimitiveType t) {
  if (t == PrimitiveType::C64) return &BinaryLoop<C64T, C64T, Op>;
  if (t == PrimitiveType::C128) return &BinaryLoop<C128T, C128T, Op>;
  return nullptr;
}
template <class Op>
ElementwiseKernel BinaryToPred(PrimitiveType t) {
  if (t == PrimitiveType::C64) return &BinaryLoop<C64T, PredT, Op>;
  if (t == PrimitiveType::C128) return &BinaryLoop<C128T, PredT, Op>;
  return nullptr;
}

}  // namespace

ElementwiseKernel SelectComplexKernel(Opcode op, PrimitiveType t, const ElementwiseAttrs& attrs) {
  switch (op) {
    case Opcode::kAbs: return UnaryToReal<OpAbs>(t);
    case Opcode::kReal: return UnaryToReal<OpReal>(t);
    case Opcode::kImag: return UnaryToReal<OpImag>(t);
    case Opcode::kCopy: return Unary<OpCopy>(t);
    case Opcode::kNegate: return Unary<OpNegate>(t);
    case Opcode::kSign: return Unary<OpSign>(t);
    case Opcode::kExp: return Unary<OpExp>(t);
    case Opcode::kExpm1: return Unary<OpExpm1>(t);
    case Opcode::kLog: return Unary<OpLog>(t);
    case Opcode::kLog1p: return Unary<OpLog1p>(t);
    case Opcode::kSqrt: return Unary<OpSqrt>(t);
    case Opcode::kRsqrt: return Unary<OpRsqrt>(t);
    case Opcode::kCbrt: return Unary<OpCbrt>(t);
    case Opcode::kSin: return Unary<OpSin>(t);
    case Opcode::kCos: return Unary<OpCos>(t);
    case Opcode::kTan: return Unary<OpTan>(t);
    case Opcode::kTanh: return Unary<OpTanh>(t);
    case Opcode::kSinh: return Unary<OpSinh>(t);
    case Opcode::kCosh: return Unary<OpCosh>(t);
    case Opcode::kAsin: return Unary<OpAsin>(t);
    case Opcode::kAcos: return Unary<OpAcos>(t);
    case Opcode::kAsinh: return Unary<OpAsinh>(t);
    case Opcode::kAcosh: return Unary<OpAcosh>(t);
    case Opcode::kAtanh: return Unary<OpAtanh>(t);
    case Opcode::kLogistic: return Unary<OpLogistic>(t);
    case Opcode::kAdd: return Binary<OpAdd>(t);
    case Opcode::kSubtract: return Binary<OpSub>(t);
    case Opcode::kMultiply: return Binary<OpMul>(t);
    case Opcode::kDivide: return Binary<OpDiv>(t);
    case Opcode::kPower: return Binary<OpPow>(t);
    case Opcode::kCompare:
      if (attrs.direction == ComparisonDirection::kEq) return BinaryToPred<OpEq>(t);
      if (attrs.direction == ComparisonDirection::kNe) return BinaryToPred<OpNe>(t);
      return nullptr;
    default: return nullptr;
  }
}

}  // namespace hlo::cpu::ew
