// Internal to backend_cpu: element traits and the span-loop templates the
// elementwise kernels are instantiated from. One traits struct per element
// type: Storage (what the buffer holds), Compute (what ops work on), Load
// and Store (exact decode / rounding encode).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "backend_cpu/elementwise_kernels.h"
#include "ir/element_type.h"
#include "ir/float_format.h"

namespace hlo::cpu::ew {

enum class Cat { kPred, kInt, kFloat, kComplex };

template <typename To, typename From>
inline To BitCast(From f) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  std::memcpy(&t, &f, sizeof t);
  return t;
}

// ---------------------------------------------------------------- pred

struct PredT {
  using Storage = uint8_t;
  using Compute = bool;
  static constexpr Cat kCat = Cat::kPred;
  static constexpr PrimitiveType kType = PrimitiveType::PRED;
  static constexpr int kBits = 8;
  static bool Load(uint8_t v) { return v != 0; }
  static uint8_t Store(bool b) { return b ? 1 : 0; }
};

// ---------------------------------------------------------------- integers

// Integer of logical width B held in S (sub-byte types in one byte,
// sign-extended for signed ones, zero-extended for unsigned ones).
template <PrimitiveType T, typename S, int B>
struct IntT {
  using Storage = S;
  using Compute = S;
  static constexpr Cat kCat = Cat::kInt;
  static constexpr PrimitiveType kType = T;
  static constexpr int kBits = B;
  static constexpr bool kSigned = std::is_signed_v<S>;
  static constexpr bool kSubByte = B < 8;
  using Unsigned = std::make_unsigned_t<S>;
  // Unsigned type arithmetic is done in (no promotion to signed int).
  using UArith = std::conditional_t<(sizeof(S) < sizeof(uint32_t)), uint32_t, Unsigned>;
  static constexpr uint64_t kMask = B == 64 ? ~uint64_t{0} : (uint64_t{1} << B) - 1;
  static constexpr S kMin =
      kSigned ? static_cast<S>(B == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (B - 1)))
              : S{0};
  static constexpr S kMax = kSigned ? static_cast<S>(B == 64 ? std::numeric_limits<int64_t>::max()
                                                             : (int64_t{1} << (B - 1)) - 1)
                                    : static_cast<S>(kMask);

  static S Load(S v) { return v; }
  // Wraps any integer value modulo 2^B into the canonical storage form.
  template <typename V>
  static S Wrap(V v) {
    if constexpr (!kSubByte) {
      return static_cast<S>(static_cast<Unsigned>(v));
    } else {
      uint32_t m = static_cast<uint32_t>(v) & static_cast<uint32_t>(kMask);
      if constexpr (kSigned) {
        return static_cast<S>(static_cast<int32_t>(m << (32 - B)) >> (32 - B));
      } else {
        return static_cast<S>(m);
      }
    }
  }
  static S Store(S v) { return Wrap(v); }
  // The B-bit pattern, zero-extended.
  static UArith Pattern(S v) { return static_cast<UArith>(static_cast<UArith>(v) & static_cast<UArith>(kMask)); }
};

using S1T = IntT<PrimitiveType::S1, int8_t, 1>;
using S2T = IntT<PrimitiveType::S2, int8_t, 2>;
using S4T = IntT<PrimitiveType::S4, int8_t, 4>;
using S8T = IntT<PrimitiveType::S8, int8_t, 8>;
using S16T = IntT<PrimitiveType::S16, int16_t, 16>;
using S32T = IntT<PrimitiveType::S32, int32_t, 32>;
using S64T = IntT<PrimitiveType::S64, int64_t, 64>;
using U1T = IntT<PrimitiveType::U1, uint8_t, 1>;
using U2T = IntT<PrimitiveType::U2, uint8_t, 2>;
using U4T = IntT<PrimitiveType::U4, uint8_t, 4>;
using U8T = IntT<PrimitiveType::U8, uint8_t, 8>;
using U16T = IntT<PrimitiveType::U16, uint16_t, 16>;
using U32T = IntT<PrimitiveType::U32, uint32_t, 32>;
using U64T = IntT<PrimitiveType::U64, uint64_t, 64>;

#define HLO_EW_INT_TYPES(V) \
  V(S1, S1T) V(S2, S2T) V(S4, S4T) V(S8, S8T) V(S16, S16T) V(S32, S32T) V(S64, S64T) \
  V(U1, U1T) V(U2, U2T) V(U4, U4T) V(U8, U8T) V(U16, U16T) V(U32, U32T) V(U64, U64T)

// ---------------------------------------------------------------- f16 / bf16

// Exact f16 -> f32 (NaN payload moved to the top of the f32 mantissa).
inline float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t em = h & 0x7fffu;
  uint32_t bits;
  if (em >= 0x7c00u) {
    bits = 0x7f800000u | ((em & 0x3ffu) << 13);
  } else if (em >= 0x0400u) {
    bits = (em << 13) + (static_cast<uint32_t>(127 - 15) << 23);
  } else {
    bits = BitCast<uint32_t>(static_cast<float>(em) * 5.9604644775390625e-8f);  // * 2^-24
  }
  return BitCast<float>(bits | sign);
}

// f32 -> f16, round to nearest even; overflow -> inf; NaN -> quiet NaN with
// the top payload bits (what F16C hardware does).
inline uint16_t FloatToHalf(float f) {
  uint32_t x = BitCast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t ax = x & 0x7fffffffu;
  uint32_t r;
  if (ax >= 0x7f800000u) {
    r = ax == 0x7f800000u ? 0x7c00u : (0x7e00u | ((ax >> 13) & 0x3ffu));
  } else if (ax >= 0x477ff000u) {  // >= 65520: rounds to inf
    r = 0x7c00u;
  } else if (ax < 0x38800000u) {  // < 2^-14: f16 subnormal (or zero)
    // 0.5f has ulp 2^-24, the f16 subnormal step: the FP add rounds (RNE).
    float t = BitCast<float>(ax) + 0.5f;
    r = BitCast<uint32_t>(t) - 0x3f000000u;
  } else {
    uint32_t odd = (ax >> 13) & 1u;
    ax += (static_cast<uint32_t>(15 - 127) << 23) + 0xfffu + odd;
    r = ax >> 13;
  }
  return static_cast<uint16_t>(r | sign);
}

inline float BF16ToFloat(uint16_t b) { return BitCast<float>(static_cast<uint32_t>(b) << 16); }

// f32 -> bf16, round to nearest even; NaN -> quiet NaN (top payload bits).
inline uint16_t FloatToBF16(float f) {
  uint32_t x = BitCast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

// ---------------------------------------------------------------- floats

struct F32T {
  using Storage = float;
  using Compute = float;
  static constexpr Cat kCat = Cat::kFloat;
  static constexpr PrimitiveType kType = PrimitiveType::F32;
  static constexpr int kBits = 32;
  static float Load(float v) { return v; }
  static float Store(float v) { return v; }
  static float Store(double v) { return static_cast<float>(v); }
};

struct F64T {
  using Storage = double;
  using Compute = double;
  static constexpr Cat kCat = Cat::kFloat;
  static constexpr PrimitiveType kType = PrimitiveType::F64;
  static constexpr int kBits = 64;
  static double Load(double v) { return v; }
  static double Store(float v) { return static_cast<double>(v); }
  static double Store(double v) { return v; }
};

struct F16T {
  using Storage = uint16_t;
  using Compute = float;
  static constexpr Cat kCat = Cat::kFloat;
  static constexpr PrimitiveType kType = PrimitiveType::F16;
  static constexpr int kBits = 16;
  static float Load(uint16_t v) { return HalfToFloat(v); }
  static uint16_t Store(float v) { return FloatToHalf(v); }
  static uint16_t Store(double v) {
    if (std::isnan(v)) return FloatToHalf(static_cast<float>(v));
    return static_cast<uint16_t>(EncodeFloat(PrimitiveType::F16, v));
  }
};

struct BF16T {
  using Storage = uint16_t;
  using Compute = float;
  static constexpr Cat kCat = Cat::kFloat;
  static constexpr PrimitiveType kType = PrimitiveType::BF16;
  static constexpr int kBits = 16;
  static float Load(uint16_t v) { return BF16ToFloat(v); }
  static uint16_t Store(float v) { return FloatToBF16(v); }
  static uint16_t Store(double v) {
    if (std::isnan(v)) return FloatToBF16(static_cast<float>(v));
    return static_cast<uint16_t>(EncodeFloat(PrimitiveType::BF16, v));
  }
};

// Decode tables of the 8-bit-and-smaller float types, indexed by the stored
// byte (filled once from ir/float_format at static initialisation).
extern float g_small_float_tables[10][256];
constexpr int SmallFloatIndex(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::F8E5M2: return 0;
    case PrimitiveType::F8E4M3: return 1;
    case PrimitiveType::F8E4M3FN: return 2;
    case PrimitiveType::F8E4M3B11FNUZ: return 3;
    case PrimitiveType::F8E3M4: return 4;
    case PrimitiveType::F8E5M2FNUZ: return 5;
    case PrimitiveType::F8E4M3FNUZ: return 6;
    case PrimitiveType::F4E2M1FN: return 7;
    case PrimitiveType::F8E8M0FNU: return 8;
    default: return 9;
  }
}

// f8 / f4 types: storage is the bit pattern in one byte; compute in f32
// (every value is exact in f32); stores round once (RNE) via float_format.
template <PrimitiveType T, int B>
struct SmallFloatT {
  using Storage = uint8_t;
  using Compute = float;
  static constexpr Cat kCat = Cat::kFloat;
  static constexpr PrimitiveType kType = T;
  static constexpr int kBits = B;
  static float Load(uint8_t v) { return g_small_float_tables[SmallFloatIndex(T)][v]; }
  static uint8_t Store(float v) { return static_cast<uint8_t>(EncodeFloat(T, v)); }
  static uint8_t Store(double v) { return static_cast<uint8_t>(EncodeFloat(T, v)); }
};

using F8E5M2T = SmallFloatT<PrimitiveType::F8E5M2, 8>;
using F8E4M3T = SmallFloatT<PrimitiveType::F8E4M3, 8>;
using F8E4M3FNT = SmallFloatT<PrimitiveType::F8E4M3FN, 8>;
using F8E4M3B11FNUZT = SmallFloatT<PrimitiveType::F8E4M3B11FNUZ, 8>;
using F8E3M4T = SmallFloatT<PrimitiveType::F8E3M4, 8>;
using F8E5M2FNUZT = SmallFloatT<PrimitiveType::F8E5M2FNUZ, 8>;
using F8E4M3FNUZT = SmallFloatT<PrimitiveType::F8E4M3FNUZ, 8>;
using F4E2M1FNT = SmallFloatT<PrimitiveType::F4E2M1FN, 4>;
using F8E8M0FNUT = SmallFloatT<PrimitiveType::F8E8M0FNU, 8>;

// Float types computed through f32 (everything but f32 and f64).
#define HLO_EW_NARROW_FLOAT_TYPES(V)                                                        \
  V(F16, F16T) V(BF16, BF16T) V(F8E5M2, F8E5M2T) V(F8E4M3, F8E4M3T) V(F8E4M3FN, F8E4M3FNT) \
  V(F8E4M3B11FNUZ, F8E4M3B11FNUZT) V(F8E3M4, F8E3M4T) V(F8E5M2FNUZ, F8E5M2FNUZT)           \
  V(F8E4M3FNUZ, F8E4M3FNUZT) V(F4E2M1FN, F4E2M1FNT) V(F8E8M0FNU, F8E8M0FNUT)

#define HLO_EW_FLOAT_TYPES(V) V(F32, F32T) V(F64, F64T) HLO_EW_NARROW_FLOAT_TYPES(V)

// ---------------------------------------------------------------- complex

template <PrimitiveType T, typename R, typename RealTraits>
struct ComplexT {
  using Storage = std::complex<R>;
  using Compute = std::complex<R>;
  using Real = RealTraits;
  static constexpr Cat kCat = Cat::kComplex;
  static constexpr PrimitiveType kType = T;
  static constexpr int kBits = 2 * 8 * sizeof(R);
  static Compute Load(const Storage& v) { return v; }
  static Storage Store(const Compute& v) { return v; }
};
using C64T = ComplexT<PrimitiveType::C64, float, F32T>;
using C128T = ComplexT<PrimitiveType::C128, double, F64T>;

#define HLO_EW_COMPLEX_TYPES(V) V(C64, C64T) V(C128, C128T)

#define HLO_EW_ALL_TYPES(V) \
  V(PRED, PredT) HLO_EW_INT_TYPES(V) HLO_EW_FLOAT_TYPES(V) HLO_EW_COMPLEX_TYPES(V)

// Raw-bits view of a type (Compute = Storage, no decoding).
template <class T>
struct BitsOf {
  using Storage = typename T::Storage;
  using Compute = typename T::Storage;
  static Compute Load(Storage v) { return v; }
  static Storage Store(Compute v) { return v; }
};

// ---------------------------------------------------------------- loops
//
// Op::Apply takes In::Compute values and returns Out::Compute.

template <class In, class Out, class Op>
void UnaryLoop(const void* const* in, void* out, int64_t begin, int64_t end, const KernelParams&) {
  const typename In::Storage* __restrict x = static_cast<const typename In::Storage*>(in[0]);
  typename Out::Storage* __restrict y = static_cast<typename Out::Storage*>(out);
  for (int64_t i = begin; i < end; ++i) y[i] = Out::Store(Op::Apply(In::Load(x[i])));
}

template <class In, class Out, class Op>
void BinaryLoop(const void* const* in, void* out, int64_t begin, int64_t end, const KernelParams&) {
  const typename In::Storage* __restrict a = static_cast<const typename In::Storage*>(in[0]);
  const typename In::Storage* __restrict b = static_cast<const typename In::Storage*>(in[1]);
  typename Out::Storage* __restrict y = static_cast<typename Out::Storage*>(out);
  for (int64_t i = begin; i < end; ++i) y[i] = Out::Store(Op::Apply(In::Load(a[i]), In::Load(b[i])));
}

// Runtime-dispatched variants of the loops above for the hot, vectorisable
// f32/f64 ops: GCC emits one clone per ISA level (x86-64-v4 = AVX-512,
// x86-64-v3 = AVX2+FMA, baseline SSE2) and an ifunc resolver that picks one
// when the program starts (__builtin_cpu_supports), so the binary still
// runs on any x86-64. The build is ISO C++ (-std=c++17, hence
// -ffp-contract=off): no clone fuses a*b+c into an FMA, so every clone
// computes bit-identical results (only the vector width differs), and the
// result depends neither on the thread count nor on the CPU. Not under
// ThreadSanitizer: the ifunc resolvers run while the dynamic loader
// relocates the program, before the TSan runtime is up, and their
// instrumented entry crashes.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(HLO_EW_NO_CLONES) && !defined(__SANITIZE_THREAD__)
#define HLO_EW_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define HLO_EW_CLONES
#endif

template <class In, class Out, class Op>
HLO_EW_CLONES void UnaryLoopV(const void* const* in, void* out, int64_t begin, int64_t end,
                              const KernelParams&) {
  const typename In::Storage* __restrict x = static_cast<const typename In::Storage*>(in[0]);
  typename Out::Storage* __restrict y = static_cast<typename Out::Storage*>(out);
  for (int64_t i = begin; i < end; ++i) y[i] = Out::Store(Op::Apply(In::Load(x[i])));
}

template <class In, class Out, class Op>
HLO_EW_CLONES void BinaryLoopV(const void* const* in, void* out, int64_t begin, int64_t end,
                               const KernelParams&) {
  const typename In::Storage* __restrict a = static_cast<const typename In::Storage*>(in[0]);
  const typename In::Storage* __restrict b = static_cast<const typename In::Storage*>(in[1]);
  typename Out::Storage* __restrict y = static_cast<typename Out::Storage*>(out);
  for (int64_t i = begin; i < end; ++i) y[i] = Out::Store(Op::Apply(In::Load(a[i]), In::Load(b[i])));
}

// BinaryLoopV with one operand a single element read for every position
// (kScalar = 0: a, 1: b), as fused rows use a broadcast of one value per
// row: the same Op::Apply on the same values, hence the same bits as over
// a spread copy of it.
template <class In, class Out, class Op, int kScalar>
HLO_EW_CLONES void BinaryScalarLoopV(const void* const* in, void* out, int64_t begin, int64_t end,
                                     const KernelParams&) {
  const typename In::Storage* __restrict a = static_cast<const typename In::Storage*>(in[0]);
  const typename In::Storage* __restrict b = static_cast<const typename In::Storage*>(in[1]);
  typename Out::Storage* __restrict y = static_cast<typename Out::Storage*>(out);
  if constexpr (kScalar == 0) {
    const auto s = In::Load(a[0]);
    for (int64_t i = begin; i < end; ++i) y[i] = Out::Store(Op::Apply(s, In::Load(b[i])));
  } else {
    const auto s = In::Load(b[0]);
    for (int64_t i = begin; i < end; ++i) y[i] = Out::Store(Op::Apply(In::Load(a[i]), s));
  }
}

template <class In, class Out, class Op>
HLO_EW_CLONES void TernaryLoopV(const void* const* in, void* out, int64_t begin, int64_t end,
                                const KernelParams&) {
  const typename In::Storage* __restrict a = static_cast<const typename In::Storage*>(in[0]);
  const typename In::Storage* __restrict b = static_cast<const typename In::Storage*>(in[1]);
  const typename In::Storage* __restrict c = static_cast<const typename In::Storage*>(in[2]);
  typename Out::Storage* __restrict y = static_cast<typename Out::Storage*>(out);
  for (int64_t i = begin; i < end; ++i) {
    y[i] = Out::Store(Op::Apply(In::Load(a[i]), In::Load(b[i]), In::Load(c[i])));
  }
}

// Binary op whose two operands have different types (complex(re, im) has
// the same, stochastic-convert does not).
template <class In0, class In1, class Out, class Op>
void Binary2Loop(const void* const* in, void* out, int64_t begin, int64_t end, const KernelParams&) {
  const typename In0::Storage* __restrict a = static_cast<const typename In0::Storage*>(in[0]);
  const typename In1::Storage* __restrict b = static_cast<const typename In1::Storage*>(in[1]);
  typename Out::Storage* __restrict y = static_cast<typename Out::Storage*>(out);
  for (int64_t i = begin; i < end; ++i) y[i] = Out::Store(Op::Apply(In0::Load(a[i]), In1::Load(b[i])));
}

template <class In, class Out, class Op>
void TernaryLoop(const void* const* in, void* out, int64_t begin, int64_t end, const KernelParams&) {
  const typename In::Storage* __restrict a = static_cast<const typename In::Storage*>(in[0]);
  const typename In::Storage* __restrict b = static_cast<const typename In::Storage*>(in[1]);
  const typename In::Storage* __restrict c = static_cast<const typename In::Storage*>(in[2]);
  typename Out::Storage* __restrict y = static_cast<typename Out::Storage*>(out);
  for (int64_t i = begin; i < end; ++i) {
    y[i] = Out::Store(Op::Apply(In::Load(a[i]), In::Load(b[i]), In::Load(c[i])));
  }
}

// Narrow float types: decode tiles to f32, run the f32 kernel K on them,
// encode the result back (kOutIsT) or let K write the (pred) result
// directly.
template <class T>
void DecodeSpan(const typename T::Storage* __restrict src, float* __restrict dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = T::Load(src[i]);
}
template <class T>
void EncodeSpan(const float* __restrict src, typename T::Storage* __restrict dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = T::Store(src[i]);
}

// The same loops cloned per ISA, for bf16 and f16: their decode and encode
// are integer bit operations (plus, for f16 subnormals, one exact-rounding
// f32 multiply or add, never contracted), so every clone gives the same
// bits and AVX2 runs them twice as wide as SSE2. They carry the elementwise
// epilogues of bf16/f16 models (a convolution's clip: MobileNet-style
// blocks 1.2x faster).
template <class T>
HLO_EW_CLONES void DecodeSpanV(const typename T::Storage* __restrict src, float* __restrict dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = T::Load(src[i]);
}
template <class T>
HLO_EW_CLONES void EncodeSpanV(const float* __restrict src, typename T::Storage* __restrict dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = T::Store(src[i]);
}

inline constexpr int64_t kTile = 256;

template <class T, int kArity, ElementwiseKernel K, bool kOutIsT>
void ViaF32(const void* const* in, void* out, int64_t begin, int64_t end, const KernelParams& p) {
  alignas(64) float xs[kArity][kTile];
  alignas(64) float ys[kTile];
  const void* ptrs[kArity];
  for (int64_t t0 = begin; t0 < end; t0 += kTile) {
    int64_t n = std::min(kTile, end - t0);
    for (int k = 0; k < kArity; ++k) {
      if constexpr (std::is_same_v<T, BF16T> || std::is_same_v<T, F16T>) {
        DecodeSpanV<T>(static_cast<const typename T::Storage*>(in[k]) + t0, xs[k], n);
      } else {
        DecodeSpan<T>(static_cast<const typename T::Storage*>(in[k]) + t0, xs[k], n);
      }
      ptrs[k] = xs[k];
    }
    if constexpr (kOutIsT) {
      K(ptrs, ys, 0, n, p);
      if constexpr (std::is_same_v<T, BF16T> || std::is_same_v<T, F16T>) {
        EncodeSpanV<T>(ys, static_cast<typename T::Storage*>(out) + t0, n);
      } else {
        EncodeSpan<T>(ys, static_cast<typename T::Storage*>(out) + t0, n);
      }
    } else {
      K(ptrs, static_cast<uint8_t*>(out) + t0, 0, n, p);  // pred result
    }
  }
}

// ---------------------------------------------------------------- helpers

template <class C>
inline bool IsNan(C x) {
  return x != x;
}

// IEEE 754-2019 maximum/minimum (LLVM llvm.maximum/minimum, what XLA's CPU
// backend emits): NaN if either is NaN (the NaN operand, lhs first), and
// -0 < +0.
template <class C>
inline C FMax(C a, C b) {
  C r = a > b ? a : b;
  if (a == b) r = std::signbit(a) ? b : a;
  if (IsNan(b)) r = b;
  if (IsNan(a)) r = a;
  return r;
}
template <class C>
inline C FMin(C a, C b) {
  C r = a < b ? a : b;
  if (a == b) r = std::signbit(a) ? a : b;
  if (IsNan(b)) r = b;
  if (IsNan(a)) r = a;
  return r;
}

// Float -> integer conversion of XLA: truncation toward zero, saturating to
// the (logical) range of the destination, NaN -> 0. Written as selects, not
// early returns, so that loops over it vectorise (f32 -> s8 of 4M elements
// ran one element at a time, 4.8 ms, against 0.9 ms vectorised).
template <class D, class F>
inline typename D::Storage SaturatingFloatToInt(F v) {
  using S = typename D::Storage;
  const bool low = v <= static_cast<F>(D::kMin), high = v >= static_cast<F>(D::kMax);
  // A value the truncating conversion takes without overflow (NaN -> 0).
  const F safe = (low || high || IsNan(v)) ? F(0) : v;
  S r = static_cast<S>(safe);
  r = low ? D::kMin : r;
  r = high ? D::kMax : r;
  return r;
}

// Integer -> f32 rounded to odd at 24 bits: exact when |v| < 2^24; used to
// convert integers to types with <= 22 significand bits with one correct
// RNE rounding (round-to-odd to p+2 or more bits, then RNE, is exact RNE).
template <typename V>
inline float IntToFloatRoundToOdd(V v) {
  bool neg = false;
  uint64_t mag;
  if constexpr (std::is_signed_v<V>) {
    neg = v < 0;
    mag = neg ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  } else {
    mag = static_cast<uint64_t>(v);
  }
  float f;
  if (mag < (uint64_t{1} << 24)) {
    f = static_cast<float>(mag);
  } else {
    int shift = (64 - __builtin_clzll(mag)) - 24;
    uint64_t m = mag >> shift;
    if (mag & ((uint64_t{1} << shift) - 1)) m |= 1;
    f = static_cast<float>(m) * BitCast<float>(static_cast<uint32_t>(127 + shift) << 23);
  }
  return neg ? -f : f;
}

}  // namespace hlo::cpu::ew
