#include <cmath>

#include "backend_cpu/ew_convert.h"

namespace hlo::cpu::ew {
namespace {

// stochastic-convert(x, random) -> integer D: |x| is truncated, then
// rounded up (away from zero) when random < fraction(|x|) * 2^bits(random);
// the signed result converts like `convert` (saturating, NaN -> 0, +-inf ->
// max/min).
template <class S, class R, class D>
struct OpStochastic {
  static typename D::Storage Apply(typename S::Compute x, typename R::Storage r) {
    using F = typename S::Compute;
    if (IsNan(x) || std::isinf(x)) return SaturatingFloatToInt<D>(x);
    F a = std::fabs(x);
    F t = std::floor(a);
    F frac = a - t;  // exact
    // frac * 2^bits < 2^bits, representable threshold in R's unsigned type.
    F scaled = std::ldexp(frac, R::kBits);
    auto threshold = static_cast<typename R::Storage>(scaled);
    if (r < threshold) t += F(1);
    return SaturatingFloatToInt<D>(std::signbit(x) ? -t : t);
  }
};

template <class S, class R>
ElementwiseKernel StochasticTo(PrimitiveType to) {
  switch (to) {
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return &Binary2Loop<S, BitsOf<R>, BitsOf<Tr>, OpStochastic<S, R, Tr>>;
    HLO_EW_INT_TYPES(HLO_CASE)
#undef HLO_CASE
    default: return nullptr;
  }
}

}  // namespace

ElementwiseKernel SelectConvertFromComplex(PrimitiveType from, PrimitiveType to) {
  switch (from) {
    case PrimitiveType::C64: return ConvertFrom<C64T>(to);
    case PrimitiveType::C128: return ConvertFrom<C128T>(to);
    default: return nullptr;
  }
}

ElementwiseKernel SelectStochasticConvertKernel(PrimitiveType from, PrimitiveType random,
                                                PrimitiveType to) {
  switch (from) {
    case PrimitiveType::F16:
      return random == PrimitiveType::U16 ? StochasticTo<F16T, U16T>(to) : nullptr;
    case PrimitiveType::BF16:
      return random == PrimitiveType::U16 ? StochasticTo<BF16T, U16T>(to) : nullptr;
    case PrimitiveType::F32:
      return random == PrimitiveType::U32 ? StochasticTo<F32T, U32T>(to) : nullptr;
    case PrimitiveType::F64:
      return random == PrimitiveType::U64 ? StochasticTo<F64T, U64T>(to) : nullptr;
    default: return nullptr;
  }
}

}  // namespace hlo::cpu::ew
