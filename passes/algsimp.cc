// algsimp: local algebraic rewrites. Every rule is a small function that
// returns the replacement of `x` (an existing or a newly built
// instruction) or nullptr. The rule list (with the exactness argument of
// each) is in docs/passes-algsimp.md; rule numbers below match it.
#include "passes/algsimp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/float_format.h"
#include "passes/algsimp_util.h"

namespace hlo {
namespace {

using passes_internal::Builder;
using passes_internal::GetScalarLike;
using passes_internal::IsAllOnesBits;
using passes_internal::IsFloatValue;
using passes_internal::IsIntValue;
using passes_internal::IsNegativeZero;

PrimitiveType Ty(const Instruction* x) { return x->shape().element_type(); }
bool IsInt(const Instruction* x) { return IsInteger(Ty(x)); }
bool IsIntOrPred(const Instruction* x) { return IsInteger(Ty(x)) || IsPred(Ty(x)); }
bool IsFp(const Instruction* x) { return IsFloat(Ty(x)); }
bool IsScalarLike(const Instruction* x) { return GetScalarLike(x).has_value(); }
// Integer value 0 (ints/pred) or +0.0 (floats).
bool IsZero(const Instruction* x) { return IsIntValue(x, 0) || IsFloatValue(x, 0.0); }
bool IsOne(const Instruction* x) { return IsIntValue(x, 1) || IsFloatValue(x, 1.0); }
bool Is(const Instruction* x, Opcode op) { return x->opcode() == op; }

std::vector<int64_t> IntList(const Instruction* x, absl::string_view name) {
  const auto* v = x->GetAttr<std::vector<int64_t>>(name);
  return v ? *v : std::vector<int64_t>{};
}

// A copy of x's opcode, shape and attributes with new operands.
Instruction* CloneWith(Builder& b, const Instruction* x, const std::vector<Instruction*>& ops) {
  Instruction* y = b.Add(x->opcode(), x->shape(), ops);
  for (const auto& [n, v] : x->attrs()) y->SetAttr(n, v);
  return y;
}

// A zero (false) of x's shape.
Instruction* Zeros(Builder& b, const Instruction* x) {
  return b.BroadcastScalar(b.ScalarIntConstant(Ty(x), 0), x->shape());
}

// Bits of the largest / smallest value of an integer type, as GetInt returns them.
bool IntExtremes(PrimitiveType t, int64_t* lo, int64_t* hi) {
  if (!IsInteger(t)) return false;
  const int w = PrimitiveTypeBitWidth(t);
  if (IsSignedInt(t)) {
    *lo = w >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (w - 1));
    *hi = w >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (w - 1)) - 1;
  } else {
    *lo = 0;
    *hi = w >= 64 ? -1 : static_cast<int64_t>((uint64_t{1} << w) - 1);
  }
  return true;
}

// The value `x` holds is the lowest (for max) / highest (for min) value of its type.
bool IsLowest(const Instruction* x) {
  int64_t lo, hi;
  if (IntExtremes(Ty(x), &lo, &hi)) return IsIntValue(x, lo);
  if (IsPred(Ty(x))) return IsIntValue(x, 0);
  return IsFloatValue(x, -std::numeric_limits<double>::infinity());
}
bool IsHighest(const Instruction* x) {
  int64_t lo, hi;
  if (IntExtremes(Ty(x), &lo, &hi)) return IsIntValue(x, hi);
  if (IsPred(Ty(x))) return IsIntValue(x, 1);
  return IsFloatValue(x, std::numeric_limits<double>::infinity());
}

// ---------------------------------------------------------------- binary ops

// R1: constants to the right of commutative ops: op(c, x) -> op(x, c).
Instruction* CanonicalizeConstantRhs(Instruction* x, Builder& b) {
  switch (x->opcode()) {
    case Opcode::kAdd: case Opcode::kMultiply: case Opcode::kAnd: case Opcode::kOr:
    case Opcode::kXor: case Opcode::kMaximum: case Opcode::kMinimum: break;
    default: return nullptr;
  }
  auto is_const = [](const Instruction* i) { return Is(i, Opcode::kConstant) || IsScalarLike(i); };
  if (!is_const(x->operand(0)) || is_const(x->operand(1))) return nullptr;
  return CloneWith(b, x, {x->operand(1), x->operand(0)});
}

Instruction* SimplifyAdd(Instruction* x, Builder& b) {
  Instruction* a = x->operand(0);
  Instruction* c = x->operand(1);
  // R2: x + 0 -> x (integers).
  if (IsInt(x) && IsIntValue(c, 0)) return a;
  // R3: x + (-0.0) -> x (floats; exact for every x, -0 included).
  if (IsNegativeZero(c)) return a;
  // R4: x + negate(y) -> x - y (IEEE defines a - b as a + (-b)).
  if (!IsPred(Ty(x)) && Is(c, Opcode::kNegate)) return b.Binary(Opcode::kSubtract, a, c->operand(0));
  return nullptr;
}

Instruction* SimplifySubtract(Instruction* x, Builder& b) {
  Instruction* a = x->operand(0);
  Instruction* c = x->operand(1);
  // R5: x - 0 -> x (integers, and floats with +0.0: -0 - +0 = -0).
  if ((IsInt(x) && IsIntValue(c, 0)) || IsFloatValue(c, 0.0)) return a;
  // R6: 0 - x -> negate(x) (integers with 0; floats only with -0.0).
  if ((IsInt(x) && IsIntValue(a, 0)) || IsNegativeZero(a)) return b.Unary(Opcode::kNegate, c);
  // R7: x - x -> 0 (integers; inf - inf is NaN for floats).
  if (IsInt(x) && a == c) return Zeros(b, x);
  // R8: x - negate(y) -> x + y.
  if (Is(c, Opcode::kNegate)) return b.Binary(Opcode::kAdd, a, c->operand(0));
  return nullptr;
}

Instruction* SimplifyMultiply(Instruction* x, Builder& b) {
  Instruction* a = x->operand(0);
  Instruction* c = x->operand(1);
  if (IsPred(Ty(x)) || IsComplex(Ty(x))) return nullptr;  // complex: inf*0 terms appear
  // R9: x * 1 -> x.
  if (IsOne(c)) return a;
  // R10: x * 0 -> 0 (integers; the zero operand already has x's shape).
  if (IsInt(x) && IsIntValue(c, 0)) return c;
  // R11: x * -1 -> negate(x) (signed integers; wraps identically).
  if (IsSignedInt(Ty(x)) && IsIntValue(c, -1)) return b.Unary(Opcode::kNegate, a);
  // R12: negate(a) * negate(b) -> a * b.
  if (Is(a, Opcode::kNegate) && Is(c, Opcode::kNegate))
    return b.Binary(Opcode::kMultiply, a->operand(0), c->operand(0));
  return nullptr;
}

// The reciprocal of a scalar-like float constant that is a power of two
// whose reciprocal is a normal number of the type (so both it and the
// division are exact scalings), else nullopt.
std::optional<double> ExactReciprocal(const Instruction* c) {
  const PrimitiveType t = Ty(c);
  if (t != PrimitiveType::F16 && t != PrimitiveType::BF16 && t != PrimitiveType::F32 &&
      t != PrimitiveType::F64)
    return std::nullopt;
  // Normal exponents of the IEEE format: biased 1 .. 2^e - 2.
  const FloatFormat& f = *GetFloatFormat(t);
  const int min_exp = 1 - f.exponent_bias;
  const int max_exp = (1 << f.exponent_bits) - 2 - f.exponent_bias;
  const std::optional<passes_internal::ScalarLike> s = GetScalarLike(c);
  if (!s) return std::nullopt;
  const double v = s->lit->GetDouble(s->slot);
  if (!std::isfinite(v) || v == 0) return std::nullopt;
  int e = 0;
  if (std::fabs(std::frexp(v, &e)) != 0.5) return std::nullopt;  // v = +-2^(e-1)
  const int k = e - 1;
  if (-k < min_exp || -k > max_exp) return std::nullopt;
  return 1.0 / v;
}

Instruction* SimplifyDivide(Instruction* x, Builder& b) {
  // R13: x / 1 -> x (integers and floats).
  if (!IsComplex(Ty(x)) && IsOne(x->operand(1))) return x->operand(0);
  // R77: x / 2^k -> x * 2^-k when 2^-k is a normal value of the type: the
  // quotient and the product are the same real number, rounded once (NaN,
  // infinities, zeros and flushed subnormals alike), and a multiply is
  // several times cheaper than a divide. XLA rewrites x / c -> x * (1/c)
  // for every constant; for others it changes results, and we do not.
  if (IsFp(x) && x->operand(0)->opcode() != Opcode::kConstant) {
    if (std::optional<double> r = ExactReciprocal(x->operand(1)))
      return b.Binary(Opcode::kMultiply, x->operand(0),
                      b.BroadcastScalar(b.ScalarConstant(Ty(x), *r), x->shape()));
  }
  return nullptr;
}

Instruction* SimplifyMaxMin(Instruction* x, Builder&) {
  Instruction* a = x->operand(0);
  Instruction* c = x->operand(1);
  if (IsComplex(Ty(x))) return nullptr;
  // R14/R15: max(x, x) -> x, min(x, x) -> x.
  if (a == c) return a;
  // R16: max(x, lowest) -> x (-inf for floats; NaN still propagates).
  if (Is(x, Opcode::kMaximum) && IsLowest(c)) return a;
  // R17: min(x, highest) -> x (+inf for floats).
  if (Is(x, Opcode::kMinimum) && IsHighest(c)) return a;
  return nullptr;
}

Instruction* SimplifyAndOr(Instruction* x, Builder&) {
  Instruction* a = x->operand(0);
  Instruction* c = x->operand(1);
  if (!IsIntOrPred(x)) return nullptr;
  if (Is(x, Opcode::kAnd)) {
    if (IsAllOnesBits(c)) return a;     // R18: x & true -> x
    if (IsIntValue(c, 0)) return c;     // R19: x & false -> false
  } else {
    if (IsIntValue(c, 0)) return a;     // R20: x | false -> x
    if (IsAllOnesBits(c)) return c;     // R21: x | true -> true
  }
  // R22/R23: x & x -> x, x | x -> x.
  if (a == c) return a;
  return nullptr;
}

Instruction* SimplifyComplementary(Instruction* x, Builder& b) {
  Instruction* a = x->operand(0);
  Instruction* c = x->operand(1);
  if (!IsIntOrPred(x)) return nullptr;
  if (!((Is(c, Opcode::kNot) && c->operand(0) == a) || (Is(a, Opcode::kNot) && a->operand(0) == c)))
    return nullptr;
  // R73: x & ~x -> 0; x | ~x -> all-ones; x ^ ~x -> all-ones.
  if (Is(x, Opcode::kAnd)) return Zeros(b, x);
  return b.BroadcastScalar(b.ScalarIntConstant(Ty(x), IsPred(Ty(x)) ? 1 : -1), x->shape());
}

Instruction* SimplifyXor(Instruction* x, Builder& b) {
  Instruction* a = x->operand(0);
  Instruction* c = x->operand(1);
  if (!IsIntOrPred(x)) return nullptr;
  if (IsIntValue(c, 0)) return a;                              // R24: x ^ 0 -> x
  if (a == c) return Zeros(b, x);                              // R25: x ^ x -> 0
  if (IsAllOnesBits(c)) return b.Unary(Opcode::kNot, a);       // R26: x ^ ~0 -> not(x)
  return nullptr;
}

Instruction* SimplifyPower(Instruction* x, Builder& b) {
  Instruction* a = x->operand(0);
  Instruction* e = x->operand(1);
  if (!IsInt(x) && !IsFp(x)) return nullptr;
  // R40: pow(x, 1) -> x.
  if (IsOne(e)) return a;
  // R41: pow(x, 0) -> 1 (IEEE pow(x, 0) = 1 even for NaN; XLA int pow(0,0) = 1).
  if (IsZero(e)) return b.BroadcastScalar(b.ScalarConstant(Ty(x), 1), x->shape());
  // R42: pow(x, 2) -> x * x (floats; as XLA).
  if (IsFp(x) && IsFloatValue(e, 2.0)) return b.Binary(Opcode::kMultiply, a, a);
  // R78: pow(x, 3) -> x * (x * x) (floats; as XLA, whose float
  // normalization computes narrow types' products in f32 and rounds once).
  if (IsFp(x) && IsFloatValue(e, 3.0)) {
    const PrimitiveType t = Ty(x);
    if (t == PrimitiveType::F32 || t == PrimitiveType::F64)
      return b.Binary(Opcode::kMultiply, a, b.Binary(Opcode::kMultiply, a, a));
    Instruction* wide = b.Add(Opcode::kConvert, passes_internal::ArrayShape(PrimitiveType::F32, a->shape().dims()), {a});
    Instruction* cube = b.Binary(Opcode::kMultiply, wide, b.Binary(Opcode::kMultiply, wide, wide));
    return b.Add(Opcode::kConvert, passes_internal::DefaultLayoutShape(x->shape()), {cube});
  }
  // R79: pow(x, -1) -> 1 / x (floats; as XLA): the correctly rounded
  // reciprocal, what pow(x, -1) is to be (+-0 -> +-inf, +-inf -> +-0).
  if (IsFp(x) && IsFloatValue(e, -1.0))
    return b.Binary(Opcode::kDivide, b.BroadcastScalar(b.ScalarConstant(Ty(x), 1), x->shape()), a);
  return nullptr;
}

Instruction* SimplifyShift(Instruction* x, Builder&) {
  // R43: shift(x, 0) -> x (all three shifts).
  if (IsInt(x) && IsIntValue(x->operand(1), 0)) return x->operand(0);
  return nullptr;
}

// -------------------------------------------------------------- select/compare

Instruction* SimplifySelect(Instruction* x, Builder& b) {
  Instruction* p = x->operand(0);
  Instruction* t = x->operand(1);
  Instruction* f = x->operand(2);
  if (!x->shape().IsArray()) return nullptr;
  // R27: select(true, a, b) -> a; select(false, a, b) -> b.
  if (IsIntValue(p, 1)) return t;
  if (IsIntValue(p, 0)) return f;
  // R28: select(p, a, a) -> a.
  if (t == f) return t;
  // R29: select(not(p), a, b) -> select(p, b, a).
  if (Is(p, Opcode::kNot)) return CloneWith(b, x, {p->operand(0), f, t});
  return nullptr;
}

Instruction* SimplifyCompare(Instruction* x, Builder& b) {
  Instruction* a = x->operand(0);
  if (a != x->operand(1)) return nullptr;
  const std::string* dir = x->GetAttr<std::string>("direction");
  if (dir == nullptr) return nullptr;
  const std::string* type = x->GetAttr<std::string>("type");
  // R30: compare(x, x) is known for integers/pred, and for floats under TOTALORDER.
  if (!IsIntOrPred(a) && !(IsFp(a) && type != nullptr && *type == "TOTALORDER")) return nullptr;
  const bool v = *dir == "EQ" || *dir == "GE" || *dir == "LE";
  return b.BroadcastScalar(b.ScalarIntConstant(PrimitiveType::PRED, v ? 1 : 0), x->shape());
}

// ----------------------------------------------------------------- unary ops

Instruction* SimplifyNot(Instruction* x, Builder& b) {
  Instruction* a = x->operand(0);
  // R36: not(not(x)) -> x.
  if (Is(a, Opcode::kNot)) return a->operand(0);
  // R31: not(compare(a, b, d)) -> compare(a, b, !d) for integer/pred operands
  // (no NaN: the inverse direction is the negation).
  if (Is(a, Opcode::kCompare) && a->user_count() == 1 && IsIntOrPred(a->operand(0))) {
    const std::string* dir = a->GetAttr<std::string>("direction");
    if (dir == nullptr) return nullptr;
    std::string inv = *dir == "EQ" ? "NE" : *dir == "NE" ? "EQ" : *dir == "LT" ? "GE"
                    : *dir == "GE" ? "LT" : *dir == "GT" ? "LE" : *dir == "LE" ? "GT" : "";
    if (inv.empty()) return nullptr;
    Instruction* y = CloneWith(b, a, {a->operand(0), a->operand(1)});
    y->SetAttr("direction", inv);
    return y;
  }
  return nullptr;
}

// R75: f(f(x)) -> f(x) for the idempotent floor, ceil, round-nearest-*,
// sign.
Instruction* SimplifyIdempotent(Instruction* x, Builder&) {
  if (Is(x->operand(0), x->opcode())) return x->operand(0);
  return nullptr;
}

Instruction* SimplifyNegate(Instruction* x, Builder&) {
  // R32: negate(negate(x)) -> x.
  if (Is(x->operand(0), Opcode::kNegate)) return x->operand(0)->operand(0);
  return nullptr;
}

Instruction* SimplifyAbs(Instruction* x, Builder& b) {
  Instruction* a = x->operand(0);
  // R33: abs(abs(x)) -> abs(x).
  if (Is(a, Opcode::kAbs)) return a;
  // R34: abs(negate(x)) -> abs(x).
  if (Is(a, Opcode::kNegate)) return CloneWith(b, x, {a->operand(0)});
  return nullptr;
}

Instruction* SimplifyClamp(Instruction* x, Builder&) {
  // R35: clamp(lowest, x, highest) -> x (min(max(x, lo), hi) with the
  // type's extreme values changes nothing; NaN still propagates).
  Instruction* lo = x->operand(0);
  Instruction* a = x->operand(1);
  Instruction* hi = x->operand(2);
  if (IsComplex(Ty(x)) || a->shape().dims() != x->shape().dims()) return nullptr;
  if (IsLowest(lo) && IsHighest(hi)) return a;
  return nullptr;
}

Instruction* SimplifyRealImag(Instruction* x, Builder&) {
  // R44: real(complex(a, b)) -> a; R45: imag(complex(a, b)) -> b.
  Instruction* a = x->operand(0);
  if (!Is(a, Opcode::kComplex)) return nullptr;
  return a->operand(Is(x, Opcode::kReal) ? 0 : 1);
}

// Significand bits (incl. the implicit one) of the wide float types.
int SignificandBits(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::F16: return 11;
    case PrimitiveType::BF16: return 8;
    case PrimitiveType::F32: return 24;
    case PrimitiveType::F64: return 53;
    default: return 0;
  }
}

// True if every value of `from` converts to `to` exactly and back.
bool LosslessWidening(PrimitiveType from, PrimitiveType to) {
  if (from == to) return true;
  if (IsPred(from)) return IsArrayType(to) && !IsComplex(to);
  const int wf = PrimitiveTypeBitWidth(from), wt = PrimitiveTypeBitWidth(to);
  if (IsSignedInt(from)) {
    if (IsSignedInt(to)) return wt >= wf;
    if (IsFloat(to)) return SignificandBits(to) >= wf - 1;
    return false;
  }
  if (IsUnsignedInt(from)) {
    if (IsUnsignedInt(to)) return wt >= wf;
    if (IsSignedInt(to)) return wt > wf;
    if (IsFloat(to)) return SignificandBits(to) >= wf;
    return false;
  }
  if (IsFloat(from)) {
    if (to == PrimitiveType::F64) return true;
    if (to == PrimitiveType::F32) return from != PrimitiveType::F64;
    return false;
  }
  if (from == PrimitiveType::C64) return to == PrimitiveType::C128;
  return false;
}

Instruction* SimplifyConvert(Instruction* x, Builder&) {
  Instruction* a = x->operand(0);
  // R37: convert to the same type -> x.
  if (Ty(a) == Ty(x)) return a;
  // R38: convert(convert(x: A -> B) -> A) -> x when B holds every A value exactly.
  if (Is(a, Opcode::kConvert) && Ty(a->operand(0)) == Ty(x) && LosslessWidening(Ty(x), Ty(a)))
    return a->operand(0);
  return nullptr;
}

Instruction* SimplifyBitcastConvert(Instruction* x, Builder&) {
  // R39: bitcast-convert to the same type -> x.
  Instruction* a = x->operand(0);
  if (a->shape().IsArray() && Ty(a) == Ty(x) && a->shape().dims() == x->shape().dims()) return a;
  return nullptr;
}

// ---------------------------------------------------------------- shape ops

Instruction* SimplifyReshape(Instruction* x, Builder& b) {
  Instruction* a = x->operand(0);
  // R46: reshape to the same dims -> x.
  if (a->shape().dims() == x->shape().dims()) return a;
  // R47: reshape(reshape(x)) -> reshape(x).
  if (Is(a, Opcode::kReshape)) return b.Reshape(a->operand(0), x->shape().dims());
  // R52: reshape(broadcast(scalar)) -> broadcast(scalar).
  if (Is(a, Opcode::kBroadcast) && a->operand(0)->shape().rank() == 0)
    return b.BroadcastScalar(a->operand(0), x->shape());
  return nullptr;
}

Instruction* SimplifyTranspose(Instruction* x, Builder& b) {
  Instruction* a = x->operand(0);
  std::vector<int64_t> perm = IntList(x, "dimensions");
  if (static_cast<int64_t>(perm.size()) != x->shape().rank()) return nullptr;
  // R48: identity transpose -> x.
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
  if (identity) return a;
  // R49: transpose(transpose(x, p1), p2) -> transpose(x, p1[p2[i]]).
  if (Is(a, Opcode::kTranspose)) {
    std::vector<int64_t> p1 = IntList(a, "dimensions");
    if (p1.size() != perm.size()) return nullptr;
    std::vector<int64_t> composed;
    for (int64_t p : perm) composed.push_back(p1[p]);
    return b.Transpose(a->operand(0), composed);
  }
  // R71: a transpose that only moves size-1 dims (the other dims keep
  // their order) is a reshape.
  {
    std::vector<int64_t> big;
    for (int64_t p : perm)
      if (a->shape().dim(p) != 1) big.push_back(p);
    if (std::is_sorted(big.begin(), big.end())) return b.Reshape(a, x->shape().dims());
  }
  // R53: transpose(broadcast(scalar)) -> broadcast(scalar).
  if (Is(a, Opcode::kBroadcast) && a->operand(0)->shape().rank() == 0)
    return b.BroadcastScalar(a->operand(0), x->shape());
  return nullptr;
}

Instruction* SimplifyBroadcast(Instruction* x, Builder& b) {
  Instruction* a = x->operand(0);
  std::vector<int64_t> dims = IntList(x, "dimensions");
  // R50: broadcast that maps every dim to itself and adds none -> x.
  if (a->shape().dims() == x->shape().dims()) {
    bool identity = true;
    for (size_t i = 0; i < dims.size(); ++i) identity &= dims[i] == static_cast<int64_t>(i);
    if (identity) return a;
  }
  // R51: broadcast(broadcast(x, d1), d2) -> broadcast(x, d2[d1[i]]).
  if (Is(a, Opcode::kBroadcast)) {
    std::vector<int64_t> inner = IntList(a, "dimensions");
    std::vector<int64_t> composed;
    for (int64_t d : inner) {
      if (d < 0 || d >= static_cast<int64_t>(dims.size())) return nullptr;
      composed.push_back(dims[d]);
    }
    return b.Broadcast(a->operand(0), x->shape(), composed);
  }
  return nullptr;
}

Instruction* SimplifySlice(Instruction* x, Builder& b) {
  Instruction* a = x->operand(0);
  const SliceRanges* r = x->GetAttr<SliceRanges>("slice");
  if (r == nullptr || static_cast<int64_t>(r->size()) != a->shape().rank()) return nullptr;
  // R54: a slice of everything -> x.
  bool full = true;
  for (int64_t i = 0; i < a->shape().rank(); ++i)
    full &= (*r)[i].start == 0 && (*r)[i].limit == a->shape().dim(i) && (*r)[i].stride == 1;
  if (full) return a;
  // R55: slice(slice(x)) -> one slice (starts/strides composed).
  if (Is(a, Opcode::kSlice)) {
    const SliceRanges* in = a->GetAttr<SliceRanges>("slice");
    if (in == nullptr || in->size() != r->size()) return nullptr;
    SliceRanges out(r->size());
    for (size_t i = 0; i < r->size(); ++i) {
      const SliceRange& o = (*r)[i];
      const SliceRange& n = (*in)[i];
      if (o.stride <= 0 || n.stride <= 0) return nullptr;
      int64_t count = x->shape().dim(i);
      out[i].start = n.start + o.start * n.stride;
      out[i].stride = n.stride * o.stride;
      out[i].limit = count > 0 ? out[i].start + (count - 1) * out[i].stride + 1 : out[i].start;
    }
    Instruction* y = b.Add(Opcode::kSlice, passes_internal::DefaultLayoutShape(x->shape()), {a->operand(0)});
    y->SetAttr("slice", out);
    return y;
  }
  // R72: a slice of a concatenate that stays inside one operand -> a slice
  // of that operand.
  if (Is(a, Opcode::kConcatenate)) {
    std::vector<int64_t> cd = IntList(a, "dimensions");
    if (cd.size() != 1) return nullptr;
    const int64_t d = cd[0];
    const SliceRange& s = (*r)[d];
    const int64_t n = x->shape().dim(d);
    if (n == 0 || s.stride <= 0) return nullptr;
    const int64_t last = s.start + (n - 1) * s.stride;
    int64_t off = 0;
    for (Instruction* o : a->operands()) {
      const int64_t size = o->shape().dim(d);
      if (s.start >= off && last < off + size) {
        SliceRanges out = *r;
        out[d].start = s.start - off;
        out[d].limit = last - off + 1;
        Instruction* y = b.Add(Opcode::kSlice, passes_internal::DefaultLayoutShape(x->shape()), {o});
        y->SetAttr("slice", out);
        return y;
      }
      off += size;
    }
    return nullptr;
  }
  // R56: slice(broadcast(scalar)) -> broadcast(scalar).
  if (Is(a, Opcode::kBroadcast) && a->operand(0)->shape().rank() == 0)
    return b.BroadcastScalar(a->operand(0), x->shape());
  return nullptr;
}

Instruction* SimplifyPad(Instruction* x, Builder&) {
  // R57: pad with an all-zero config -> x.
  const PaddingConfig* p = x->GetAttr<PaddingConfig>("padding");
  if (p == nullptr) return nullptr;
  for (const PaddingDimension& d : *p)
    if (d.low != 0 || d.high != 0 || d.interior != 0) return nullptr;
  return x->operand(0);
}

Instruction* SimplifyConvolution(Instruction* x, Builder& b) {
  // R76: convolution(pad(a, 0), k), the pad only on the input's spatial
  // dims, by edges >= 0 -> convolution(a, k) with those edges added to the
  // window's padding: a convolution pads with zeros itself (XLA's
  // FoldConvInputPad). Not across base dilation (the window's padding is
  // not dilated, a padded operand is) nor a -0.0 pad value.
  if (x->operand_count() != 2) return nullptr;
  Instruction* pad = x->operand(0);
  if (!Is(pad, Opcode::kPad) || pad->operand_count() != 2) return nullptr;
  const Instruction* value = pad->operand(1);
  if (!(IsFp(pad) ? IsFloatValue(value, 0.0) : IsIntValue(value, 0))) return nullptr;
  const PaddingConfig* pc = pad->GetAttr<PaddingConfig>("padding");
  const Window* w = x->GetAttr<Window>("window");
  const ConvolutionDimensionNumbers* dn = x->GetAttr<ConvolutionDimensionNumbers>("dim_labels");
  if (pc == nullptr || w == nullptr || dn == nullptr) return nullptr;
  const std::vector<int64_t>& spatial = dn->input_spatial_dimensions;
  if (static_cast<int64_t>(pc->size()) != pad->shape().rank() || w->dimensions.size() != spatial.size())
    return nullptr;
  Window folded = *w;
  for (int64_t d = 0; d < static_cast<int64_t>(pc->size()); ++d) {
    const PaddingDimension& pd = (*pc)[d];
    if (pd.interior != 0 || pd.low < 0 || pd.high < 0) return nullptr;
    const auto at = std::find(spatial.begin(), spatial.end(), d);
    if (at == spatial.end()) {
      if (pd.low != 0 || pd.high != 0) return nullptr;
      continue;
    }
    WindowDimension& wd = folded.dimensions[at - spatial.begin()];
    if ((pd.low != 0 || pd.high != 0) && wd.base_dilation != 1) return nullptr;
    if (wd.padding_low < 0 || wd.padding_high < 0) return nullptr;
    wd.padding_low += pd.low;
    wd.padding_high += pd.high;
  }
  Instruction* y = CloneWith(b, x, {pad->operand(0), x->operand(1)});
  y->SetAttr("window", folded);
  return y;
}

Instruction* SimplifyConcatenate(Instruction* x, Builder& b) {
  // R58: concatenate(x) -> x.
  if (x->operand_count() == 1) return x->operand(0);
  // R59: drop zero-element operands (keeping at least one).
  std::vector<Instruction*> keep;
  for (Instruction* o : x->operands())
    if (o->shape().ElementCount() != 0) keep.push_back(o);
  if (keep.size() == static_cast<size_t>(x->operand_count())) return nullptr;
  if (keep.empty()) return nullptr;
  if (keep.size() == 1) return keep[0];
  return CloneWith(b, x, keep);
}

Instruction* SimplifyReverse(Instruction* x, Builder&) {
  Instruction* a = x->operand(0);
  std::vector<int64_t> dims = IntList(x, "dimensions");
  // R60: reverse of size-1 (or no) dims -> x.
  bool trivial = true;
  for (int64_t d : dims) trivial &= d >= 0 && d < a->shape().rank() && a->shape().dim(d) <= 1;
  if (trivial) return a;
  // R61: reverse(reverse(x, d), d) -> x.
  if (Is(a, Opcode::kReverse)) {
    std::vector<int64_t> inner = IntList(a, "dimensions");
    std::sort(dims.begin(), dims.end());
    std::sort(inner.begin(), inner.end());
    if (dims == inner) return a->operand(0);
  }
  return nullptr;
}

Instruction* SimplifyCopy(Instruction* x, Builder&) {
  Instruction* a = x->operand(0);
  // R62: copy(copy(x)) -> copy(x) with the outer layout... the outer copy
  // reads its operand's values only, so the inner copy can be bypassed.
  if (Is(a, Opcode::kCopy)) {
    x->ReplaceOperand(0, a->operand(0));
    return x;  // changed in place (the driver counts it)
  }
  // R63: copy to the same shape and layout -> x.
  if (a->shape() == x->shape()) return a;
  return nullptr;
}

Instruction* SimplifyGte(Instruction* x, Builder&) {
  // R64: get-tuple-element(tuple(...), i) -> operand i.
  Instruction* a = x->operand(0);
  const int64_t* idx = x->GetAttr<int64_t>("index");
  if (!Is(a, Opcode::kTuple) || idx == nullptr || *idx < 0 || *idx >= a->operand_count()) return nullptr;
  return a->operand(*idx);
}

Instruction* SimplifyIota(Instruction* x, Builder& b) {
  // R70: iota whose iota dimension has size 1 -> zeros.
  const int64_t* d = x->GetAttr<int64_t>("iota_dimension");
  if (d == nullptr || *d < 0 || *d >= x->shape().rank() || x->shape().dim(*d) != 1) return nullptr;
  return b.BroadcastScalar(b.ScalarConstant(Ty(x), 0), x->shape());
}

// ------------------------------------------------------------------ reduce

// The binary opcode of a reducer `(p0, p1) -> op(p0, p1)` (either order), if any.
std::optional<Opcode> ReducerOp(const Computation* c) {
  if (c == nullptr || c->num_parameters() != 2 || c->root() == nullptr) return std::nullopt;
  const Instruction* r = c->root();
  if (r->operand_count() != 2) return std::nullopt;
  const Instruction* p0 = c->parameter(0);
  const Instruction* p1 = c->parameter(1);
  if (!((r->operand(0) == p0 && r->operand(1) == p1) || (r->operand(0) == p1 && r->operand(1) == p0)))
    return std::nullopt;
  switch (r->opcode()) {
    case Opcode::kAdd: case Opcode::kMultiply: case Opcode::kMaximum: case Opcode::kMinimum:
    case Opcode::kAnd: case Opcode::kOr: return r->opcode();
    default: return std::nullopt;
  }
}

// True if `init` is the identity of `op` exactly (-0.0 for float add).
bool IsIdentityOf(Opcode op, const Instruction* init) {
  const PrimitiveType t = Ty(init);
  if (IsComplex(t)) return false;
  switch (op) {
    case Opcode::kAdd:
      return IsPred(t) ? false : IsInteger(t) ? IsIntValue(init, 0) : IsNegativeZero(init);
    case Opcode::kMultiply: return !IsPred(t) && IsOne(init);
    case Opcode::kMaximum: return IsLowest(init);
    case Opcode::kMinimum: return IsHighest(init);
    case Opcode::kAnd: return (IsPred(t) || IsInteger(t)) && IsAllOnesBits(init);
    case Opcode::kOr: return (IsPred(t) || IsInteger(t)) && IsIntValue(init, 0);
    default: return false;
  }
}

Instruction* SimplifyReduce(Instruction* x, Builder& b) {
  if (x->operand_count() != 2 || !x->shape().IsArray()) return nullptr;
  Instruction* in = x->operand(0);
  Instruction* init = x->operand(1);
  // R65: reduce of a zero-element input -> broadcast(init).
  if (in->shape().ElementCount() == 0) return b.BroadcastScalar(init, x->shape());
  // R66: reduce over size-1 (or no) dims with an identity init -> reshape(x).
  if (in->shape().ElementCount() != x->shape().ElementCount()) return nullptr;
  const Computation* const* to_apply = x->GetAttr<Computation*>("to_apply");
  if (to_apply == nullptr) return nullptr;
  std::optional<Opcode> op = ReducerOp(*to_apply);
  if (!op || !IsIdentityOf(*op, init) || Ty(in) != Ty(x)) return nullptr;
  return b.Reshape(in, x->shape().dims());
}

// --------------------------------------------------------------------- dot

// R67: a dot whose contracting dims all have size 1 -> multiply of broadcasts.
Instruction* SimplifyDot(Instruction* x, Builder& b) {
  if (x->operand_count() != 2 || x->HasAttr("algorithm") || x->HasAttr("sparsity")) return nullptr;
  Instruction* lhs = x->operand(0);
  Instruction* rhs = x->operand(1);
  const PrimitiveType t = Ty(x);
  if (Ty(lhs) != t || Ty(rhs) != t || !(IsInteger(t) || IsFloat(t))) return nullptr;
  std::vector<int64_t> lb = IntList(x, "lhs_batch_dims"), rb = IntList(x, "rhs_batch_dims");
  std::vector<int64_t> lc = IntList(x, "lhs_contracting_dims"), rc = IntList(x, "rhs_contracting_dims");
  for (int64_t d : lc)
    if (lhs->shape().dim(d) != 1) return nullptr;
  // Operand dims reordered to [batch..., free..., contracting...], then the
  // size-1 contracting dims dropped by a reshape.
  auto prepare = [&](Instruction* op, const std::vector<int64_t>& batch,
                     const std::vector<int64_t>& contracting, int64_t* nfree) {
    std::vector<int64_t> perm = batch;
    std::vector<bool> used(op->shape().rank(), false);
    for (int64_t d : batch) used[d] = true;
    for (int64_t d : contracting) used[d] = true;
    *nfree = 0;
    for (int64_t d = 0; d < op->shape().rank(); ++d)
      if (!used[d]) { perm.push_back(d); ++*nfree; }
    for (int64_t d : contracting) perm.push_back(d);
    Instruction* tr = b.Transpose(op, perm);
    std::vector<int64_t> dims(tr->shape().dims().begin(),
                              tr->shape().dims().begin() + batch.size() + *nfree);
    return b.Reshape(tr, dims);
  };
  int64_t lfree = 0, rfree = 0;
  Instruction* l = prepare(lhs, lb, lc, &lfree);
  Instruction* r = prepare(rhs, rb, rc, &rfree);
  const int64_t nb = static_cast<int64_t>(lb.size());
  if (nb + lfree + rfree != x->shape().rank()) return nullptr;
  std::vector<int64_t> ldims, rdims;
  for (int64_t i = 0; i < nb + lfree; ++i) ldims.push_back(i);
  for (int64_t i = 0; i < nb; ++i) rdims.push_back(i);
  for (int64_t i = 0; i < rfree; ++i) rdims.push_back(nb + lfree + i);
  Instruction* lb2 = ldims.size() == static_cast<size_t>(x->shape().rank()) ? l : b.Broadcast(l, x->shape(), ldims);
  Instruction* rb2 = rdims.size() == static_cast<size_t>(x->shape().rank()) ? r : b.Broadcast(r, x->shape(), rdims);
  Instruction* prod = b.Binary(Opcode::kMultiply, lb2, rb2);
  // A dot accumulates from +0, so its one-term sum of a -0 product is +0:
  // adding +0.0 reproduces that exactly (x + 0 = x for every other x).
  if (IsFloat(t)) prod = b.Binary(Opcode::kAdd, prod, b.BroadcastScalar(b.ScalarConstant(t, 0), x->shape()));
  return prod;
}

// -------------------------------------------------------- dynamic slicing

// R68: dynamic-slice with constant start indices -> slice (indices clamped
// to [0, dim - size] as dynamic-slice does).
Instruction* SimplifyDynamicSlice(Instruction* x, Builder& b) {
  Instruction* a = x->operand(0);
  // R74: dynamic-slice(broadcast(scalar)) -> broadcast(scalar).
  if (Is(a, Opcode::kBroadcast) && a->operand(0)->shape().rank() == 0)
    return b.BroadcastScalar(a->operand(0), x->shape());
  const int64_t rank = a->shape().rank();
  if (x->operand_count() != rank + 1) return nullptr;
  SliceRanges ranges(rank);
  for (int64_t i = 0; i < rank; ++i) {
    Instruction* idx = x->operand(i + 1);
    if (idx->shape().rank() != 0 || !IsInteger(Ty(idx))) return nullptr;
    auto s = GetScalarLike(idx);
    if (!s) return nullptr;
    int64_t v = s->lit->GetInt(s->slot);
    if (IsUnsignedInt(Ty(idx)) && v < 0) v = std::numeric_limits<int64_t>::max();
    const int64_t size = x->shape().dim(i);
    const int64_t hi = a->shape().dim(i) - size;
    v = std::max<int64_t>(0, std::min(v, hi));
    ranges[i] = SliceRange{v, v + size, 1};
  }
  Instruction* y = b.Add(Opcode::kSlice, passes_internal::DefaultLayoutShape(x->shape()), {a});
  y->SetAttr("slice", ranges);
  return y;
}

// R69: dynamic-update-slice whose update covers the operand -> update.
Instruction* SimplifyDynamicUpdateSlice(Instruction* x, Builder&) {
  Instruction* upd = x->operand(1);
  if (upd->shape().dims() == x->shape().dims() && Ty(upd) == Ty(x)) return upd;
  return nullptr;
}

// ------------------------------------------------------------------ driver

Instruction* Simplify(Instruction* x, Builder& b) {
  if (!x->shape().IsStatic()) return nullptr;
  for (const Instruction* o : x->operands())
    if (!o->shape().IsStatic()) return nullptr;
  if (IsCommutative(x->opcode()) && x->operand_count() == 2)
    if (Instruction* y = CanonicalizeConstantRhs(x, b)) return y;
  switch (x->opcode()) {
    case Opcode::kAdd: return SimplifyAdd(x, b);
    case Opcode::kSubtract: return SimplifySubtract(x, b);
    case Opcode::kMultiply: return SimplifyMultiply(x, b);
    case Opcode::kDivide: return SimplifyDivide(x, b);
    case Opcode::kMaximum: case Opcode::kMinimum: return SimplifyMaxMin(x, b);
    case Opcode::kAnd: case Opcode::kOr:
      if (Instruction* y = SimplifyAndOr(x, b)) return y;
      return SimplifyComplementary(x, b);
    case Opcode::kXor:
      if (Instruction* y = SimplifyXor(x, b)) return y;
      return SimplifyComplementary(x, b);
    case Opcode::kPower: return SimplifyPower(x, b);
    case Opcode::kShiftLeft: case Opcode::kShiftRightArithmetic: case Opcode::kShiftRightLogical:
      return SimplifyShift(x, b);
    case Opcode::kSelect: return SimplifySelect(x, b);
    case Opcode::kCompare: return SimplifyCompare(x, b);
    case Opcode::kNot: return SimplifyNot(x, b);
    case Opcode::kNegate: return SimplifyNegate(x, b);
    case Opcode::kFloor: case Opcode::kCeil: case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven: case Opcode::kSign:
      return SimplifyIdempotent(x, b);
    case Opcode::kAbs: return SimplifyAbs(x, b);
    case Opcode::kClamp: return SimplifyClamp(x, b);
    case Opcode::kReal: case Opcode::kImag: return SimplifyRealImag(x, b);
    case Opcode::kConvert: return SimplifyConvert(x, b);
    case Opcode::kBitcastConvert: return SimplifyBitcastConvert(x, b);
    case Opcode::kReshape: return SimplifyReshape(x, b);
    case Opcode::kTranspose: return SimplifyTranspose(x, b);
    case Opcode::kBroadcast: return SimplifyBroadcast(x, b);
    case Opcode::kSlice: return SimplifySlice(x, b);
    case Opcode::kPad: return SimplifyPad(x, b);
    case Opcode::kConvolution: return SimplifyConvolution(x, b);
    case Opcode::kConcatenate: return SimplifyConcatenate(x, b);
    case Opcode::kReverse: return SimplifyReverse(x, b);
    case Opcode::kCopy: return SimplifyCopy(x, b);
    case Opcode::kGetTupleElement: return SimplifyGte(x, b);
    case Opcode::kIota: return SimplifyIota(x, b);
    case Opcode::kReduce: return SimplifyReduce(x, b);
    case Opcode::kDot: return SimplifyDot(x, b);
    case Opcode::kDynamicSlice: return SimplifyDynamicSlice(x, b);
    case Opcode::kDynamicUpdateSlice: return SimplifyDynamicUpdateSlice(x, b);
    default: return nullptr;
  }
}

// Users that pin their operands' layouts (custom-call
// operand_layout_constraints): a replacement must keep x's layout there.
bool HasLayoutSensitiveUser(const Instruction* x) {
  for (const Instruction* u : x->users())
    if (u->opcode() == Opcode::kCustomCall && u->HasAttr("operand_layout_constraints")) return true;
  return false;
}

class AlgebraicSimplifier : public Pass {
 public:
  absl::string_view name() const override { return "algsimp"; }
  absl::StatusOr<bool> Run(Module& module) override {
    // A scheduled module prints in list order; new instructions would land
    // after their users. Leave scheduled modules alone.
    if (module.header().is_scheduled) return false;
    const auto fusion = passes_internal::FusionComputations(module);
    bool changed = false;
    for (Computation* comp : module.MakeComputationPostOrder()) {
      if (fusion.contains(comp)) continue;
      for (int iter = 0; iter < 50; ++iter) {
        bool iter_changed = false;
        const auto dead = passes_internal::DeadSet(*comp);
        Builder b(comp);
        for (Instruction* x : comp->MakePostOrder()) {
          if (dead.contains(x) || !passes_internal::IsRewritable(x)) continue;
          if (x->user_count() == 0 && x != comp->root()) continue;  // made dead this sweep
          if (x->opcode() == Opcode::kParameter || x->opcode() == Opcode::kConstant) continue;
          Instruction* y = Simplify(x, b);
          if (y == nullptr) continue;
          if (y == x) {  // rewritten in place
            iter_changed = true;
            continue;
          }
          if (!x->shape().Compatible(y->shape())) {
            return absl::InternalError("algsimp: a rule built a replacement of " + x->name() +
                                       " with another shape");
          }
          if (!(x->shape() == y->shape()) && HasLayoutSensitiveUser(x)) {
            continue;  // the unused replacement is removed after the sweep
          }
          absl::Status st = x->ReplaceAllUsesWith(y);
          if (!st.ok()) return st;
          iter_changed = true;
        }
        passes_internal::RemoveNewlyDead(comp, dead);
        if (!iter_changed) break;
        changed = true;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateAlgebraicSimplifierPass() { return std::make_unique<AlgebraicSimplifier>(); }

}  // namespace hlo
