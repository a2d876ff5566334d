// The scalar operations of the reductions' typed fast paths (reduce,
// reduce-window, select-and-scatter) and the dispatch from (element type,
// op) to a kernel template instantiated for them. Internal to backend_cpu.
//
// Shared by ops_reduce.cc and reduce_window_rows.cc so that every fast path
// applies exactly the same scalar operation: their results then agree bit
// for bit whenever they fold in the same order.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>

#include "backend_cpu/ew_types.h"
#include "backend_cpu/op_eval.h"

namespace hlo::cpu::red {

enum class BinOp { kNone, kAdd, kMul, kMax, kMin, kAnd, kOr, kXor };

// A reducer of the MatchBinaryOfParameters form over scalars of type t, as
// the BinOp the typed loops implement. *swapped is set for op(p1, p0).
inline BinOp MatchBinary(const Computation* c, PrimitiveType t, bool* swapped) {
  *swapped = false;
  const std::optional<BinaryOfParameters> m = MatchBinaryOfParameters(c, t);
  if (!m) return BinOp::kNone;
  *swapped = m->swapped;
  switch (m->op) {
    case Opcode::kAdd: return BinOp::kAdd;
    case Opcode::kMultiply: return BinOp::kMul;
    case Opcode::kMaximum: return BinOp::kMax;
    case Opcode::kMinimum: return BinOp::kMin;
    case Opcode::kAnd: return BinOp::kAnd;
    case Opcode::kOr: return BinOp::kOr;
    case Opcode::kXor: return BinOp::kXor;
    default: return BinOp::kNone;
  }
}

template <class T, BinOp kOp>
constexpr bool Supported() {
  if constexpr (T::kCat == ew::Cat::kFloat) {
    return kOp == BinOp::kAdd || kOp == BinOp::kMul || kOp == BinOp::kMax || kOp == BinOp::kMin;
  } else if constexpr (T::kCat == ew::Cat::kComplex) {
    return kOp == BinOp::kAdd || kOp == BinOp::kMul;
  } else {
    return kOp != BinOp::kNone;
  }
}

// ew::FMax / ew::FMin (IEEE maximum / minimum: NaN propagates, lhs NaN
// first; -0 < +0) written with selects only, so that the loop vectoriser
// if-converts them (the branchy originals keep the reduce-window row loops
// scalar). Same results, NaN payloads included: equal operands are
// either the same bits or +-0, and the bitwise AND (max) / OR (min) of
// +-0 picks +0 / -0 exactly as the originals do.
template <class C>
inline C SelectMax(C a, C b) {
  using U = std::conditional_t<sizeof(C) == 8, uint64_t, uint32_t>;
  C r = a > b ? a : b;
  r = a == b ? ew::BitCast<C>(static_cast<U>(ew::BitCast<U>(a) & ew::BitCast<U>(b))) : r;
  r = b != b ? b : r;
  return a != a ? a : r;
}
template <class C>
inline C SelectMin(C a, C b) {
  using U = std::conditional_t<sizeof(C) == 8, uint64_t, uint32_t>;
  C r = a < b ? a : b;
  r = a == b ? ew::BitCast<C>(static_cast<U>(ew::BitCast<U>(a) | ew::BitCast<U>(b))) : r;
  r = b != b ? b : r;
  return a != a ? a : r;
}

// The scalar operation of an element type, with XLA's semantics: IEEE
// float ops (maximum/minimum propagate NaN, -0 < +0), wrapping integer
// add/multiply, pred add/maximum = or, multiply/minimum = and.
template <class T, BinOp kOp>
struct Scalar {
  using S = typename T::Storage;
  using C = typename T::Compute;
  static C Round(C v) {
    if constexpr (std::is_same_v<S, C> || T::kCat == ew::Cat::kPred) {
      return v;
    } else {
      return T::Load(T::Store(v));  // narrow float: back to the type
    }
  }
  static C Apply(C a, C b) {
    if constexpr (T::kCat == ew::Cat::kFloat) {
      if constexpr (kOp == BinOp::kAdd) return Round(a + b);
      if constexpr (kOp == BinOp::kMul) return Round(a * b);
      if constexpr (kOp == BinOp::kMax) return SelectMax(a, b);
      if constexpr (kOp == BinOp::kMin) return SelectMin(a, b);
    } else if constexpr (T::kCat == ew::Cat::kComplex) {
      if constexpr (kOp == BinOp::kAdd) return a + b;
      if constexpr (kOp == BinOp::kMul) return a * b;
    } else if constexpr (T::kCat == ew::Cat::kPred) {
      if constexpr (kOp == BinOp::kAdd || kOp == BinOp::kMax || kOp == BinOp::kOr) return a || b;
      if constexpr (kOp == BinOp::kMul || kOp == BinOp::kMin || kOp == BinOp::kAnd) return a && b;
      if constexpr (kOp == BinOp::kXor) return a != b;
    } else {
      using U = typename T::UArith;
      if constexpr (kOp == BinOp::kAdd) return T::Wrap(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
      if constexpr (kOp == BinOp::kMul) return T::Wrap(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
      if constexpr (kOp == BinOp::kMax) return a > b ? a : b;
      if constexpr (kOp == BinOp::kMin) return a < b ? a : b;
      if constexpr (kOp == BinOp::kAnd) return static_cast<C>(a & b);
      if constexpr (kOp == BinOp::kOr) return static_cast<C>(a | b);
      if constexpr (kOp == BinOp::kXor) return static_cast<C>(a ^ b);
    }
    return a;
  }
};

// Types with typed fast paths (the others take the generic path).
#define HLO_RED_FAST_TYPES(V)                                                              \
  V(PRED, ew::PredT) V(S8, ew::S8T) V(S16, ew::S16T) V(S32, ew::S32T) V(S64, ew::S64T)     \
  V(U8, ew::U8T) V(U16, ew::U16T) V(U32, ew::U32T) V(U64, ew::U64T) V(F16, ew::F16T)       \
  V(BF16, ew::BF16T) V(F32, ew::F32T) V(F64, ew::F64T) V(C64, ew::C64T) V(C128, ew::C128T)

template <template <class, BinOp> class K, class T, class... A>
bool DispatchOp(BinOp op, A&&... a) {
  switch (op) {
#define HLO_OP_CASE(E)                          \
  case BinOp::E:                                \
    if constexpr (Supported<T, BinOp::E>()) {   \
      K<T, BinOp::E>::Run(a...);                \
      return true;                              \
    }                                           \
    return false;
    HLO_OP_CASE(kAdd) HLO_OP_CASE(kMul) HLO_OP_CASE(kMax) HLO_OP_CASE(kMin) HLO_OP_CASE(kAnd)
    HLO_OP_CASE(kOr) HLO_OP_CASE(kXor)
#undef HLO_OP_CASE
    case BinOp::kNone: return false;
  }
  return false;
}

// Runs K<Traits, op>::Run(a...) for element type t; false when there is no
// fast path for (t, op).
template <template <class, BinOp> class K, class... A>
bool DispatchTypeOp(PrimitiveType t, BinOp op, A&&... a) {
  switch (t) {
#define HLO_TYPE_CASE(E, Tr) \
  case PrimitiveType::E: return DispatchOp<K, Tr>(op, a...);
    HLO_RED_FAST_TYPES(HLO_TYPE_CASE)
#undef HLO_TYPE_CASE
    default: return false;
  }
}

}  // namespace hlo::cpu::red
