// Internal to backend_cpu: convert (ConvertElementType) between any two
// array element types, one template per (source, destination) pair. See
// docs/semantics-elementwise.md ("convert").
#pragma once

#include "backend_cpu/ew_internal.h"
#include "backend_cpu/ew_types.h"

namespace hlo::cpu::ew {

// bool -> D
template <class D>
inline typename D::Storage FromBool(bool b) {
  if constexpr (D::kCat == Cat::kPred) {
    return b ? 1 : 0;
  } else if constexpr (D::kCat == Cat::kInt) {
    return D::Wrap(b ? 1 : 0);  // s1: true -> -1 (the one bit set)
  } else if constexpr (D::kCat == Cat::kFloat) {
    return D::Store(b ? 1.0f : 0.0f);
  } else {
    return typename D::Storage(b ? 1 : 0, 0);
  }
}

// integer -> float type D, one RNE rounding from the exact integer.
template <class D, typename V>
inline typename D::Storage IntToFloat(V v) {
  if constexpr (std::is_same_v<D, F32T> || std::is_same_v<D, F64T>) {
    return static_cast<typename D::Storage>(v);  // hardware conversion: RNE
  } else {
    return D::Store(IntToFloatRoundToOdd(v));
  }
}

// integer (source compute type V) -> D
template <class D, typename V>
inline typename D::Storage FromInt(V v) {
  if constexpr (D::kCat == Cat::kPred) {
    return v != 0 ? 1 : 0;
  } else if constexpr (D::kCat == Cat::kInt) {
    return D::Wrap(v);
  } else if constexpr (D::kCat == Cat::kFloat) {
    return IntToFloat<D>(v);
  } else {
    using R = typename D::Real;
    return typename D::Storage(IntToFloat<R>(v), 0);
  }
}

// float (f32 or f64 value, exact decode of the source) -> D
template <class D, typename F>
inline typename D::Storage FromFloat(F v) {
  if constexpr (D::kCat == Cat::kPred) {
    return v != F(0) ? 1 : 0;  // NaN -> true
  } else if constexpr (D::kCat == Cat::kInt) {
    return SaturatingFloatToInt<D>(v);
  } else if constexpr (D::kCat == Cat::kFloat) {
    return D::Store(v);
  } else {
    using R = typename D::Real;
    return typename D::Storage(R::Store(v), 0);
  }
}

template <class S, class D>
inline typename D::Storage ConvertOne(typename S::Storage x) {
  if constexpr (S::kCat == Cat::kPred) {
    return FromBool<D>(x != 0);
  } else if constexpr (S::kCat == Cat::kInt) {
    return FromInt<D>(x);
  } else if constexpr (S::kCat == Cat::kFloat) {
    return FromFloat<D>(S::Load(x));
  } else if constexpr (D::kCat == Cat::kComplex) {
    using R = typename D::Real;
    return typename D::Storage(R::Store(x.real()), R::Store(x.imag()));
  } else {
    return FromFloat<D>(x.real());  // complex -> real: the real part
  }
}

template <class S, class D>
struct OpConvert {
  static typename D::Storage Apply(typename S::Storage x) { return ConvertOne<S, D>(x); }
};

template <class S>
ElementwiseKernel ConvertFrom(PrimitiveType to) {
  switch (to) {
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return &UnaryLoop<BitsOf<S>, BitsOf<Tr>, OpConvert<S, Tr>>;
    HLO_EW_ALL_TYPES(HLO_CASE)
#undef HLO_CASE
    default: return nullptr;
  }
}

}  // namespace hlo::cpu::ew
