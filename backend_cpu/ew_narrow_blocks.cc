// Block conversions narrow float <-> f32 (see ew_narrow_blocks.h). The
// element-wise rules are the elementwise kernels' traits (ew_types.h); the
// only difference to them is the quiet bit of NaNs, which the former path
// through double set and which is kept here so that no result bit changes.
#include "backend_cpu/ew_narrow_blocks.h"

#include <atomic>

#include "backend_cpu/ew_types.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define HLO_NARROW_F16C 1
#endif

namespace hlo::cpu {
namespace {

std::atomic<bool> g_enabled{true};

// A NaN with the quiet bit set (what float <-> double hardware conversions
// do to a signalling NaN); other values unchanged.
inline float Quiet(float f) {
  const uint32_t b = ew::BitCast<uint32_t>(f);
  return ew::BitCast<float>(b | ((b & 0x7fffffffu) > 0x7f800000u ? 0x00400000u : 0u));
}

// Vectorised by the compiler (bf16: shifts and a select; f8: table loads);
// HLO_EW_CLONES adds AVX2 / AVX-512 clones. Integer operations only, so
// every clone gives the same bits.
template <class T>
HLO_EW_CLONES void DecodeLoop(const typename T::Storage* __restrict src, float* __restrict dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = Quiet(T::Load(src[i]));
}

template <class T>
HLO_EW_CLONES void EncodeLoop(const float* __restrict src, typename T::Storage* __restrict dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = T::Store(Quiet(src[i]));
}

#ifdef HLO_NARROW_F16C
// Every AVX2 CPU has F16C (both are in x86-64-v3); the cpuid bit is checked
// too. __builtin_cpu_supports("avx2") also covers the OS saving YMM state.
bool DetectF16c() {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2")) return false;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  return (c & bit_F16C) != 0;
}

__attribute__((target("avx2,f16c"))) void F16ToF32F16c(const uint16_t* src, float* dst, int64_t n) {
  const __m256 quiet = _mm256_castsi256_ps(_mm256_set1_epi32(0x00400000));
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 f = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    const __m256 nan = _mm256_cmp_ps(f, f, _CMP_UNORD_Q);
    _mm256_storeu_ps(dst + i, _mm256_or_ps(f, _mm256_and_ps(nan, quiet)));
  }
  narrow_internal::F16ToF32Portable(src + i, dst + i, n - i);
}

// vcvtps2ph with immediate rounding 0 = round to nearest even; a NaN
// becomes the quiet NaN with the top payload bits, as FloatToHalf does.
__attribute__((target("avx2,f16c"))) void F32ToF16F16c(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  narrow_internal::F32ToF16Portable(src + i, dst + i, n - i);
}
#endif

}  // namespace

namespace narrow_internal {

bool UsesF16c() {
#ifdef HLO_NARROW_F16C
  static const bool has = DetectF16c();
  return has;
#else
  return false;
#endif
}

void F16ToF32Portable(const uint16_t* src, float* dst, int64_t n) { DecodeLoop<ew::F16T>(src, dst, n); }
void F32ToF16Portable(const float* src, uint16_t* dst, int64_t n) { EncodeLoop<ew::F16T>(src, dst, n); }

}  // namespace narrow_internal

bool IsBlockConvertible(PrimitiveType t) {
  switch (t) {
#define HLO_CASE(E, Tr) case PrimitiveType::E:
    HLO_EW_NARROW_FLOAT_TYPES(HLO_CASE)
#undef HLO_CASE
    return true;
    default: return false;
  }
}

void NarrowToF32(PrimitiveType t, const void* src, float* dst, int64_t n) {
  if (n <= 0) return;
#ifdef HLO_NARROW_F16C
  if (t == PrimitiveType::F16 && narrow_internal::UsesF16c()) {
    F16ToF32F16c(static_cast<const uint16_t*>(src), dst, n);
    return;
  }
#endif
  switch (t) {
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return DecodeLoop<ew::Tr>(static_cast<const ew::Tr::Storage*>(src), dst, n);
    HLO_EW_NARROW_FLOAT_TYPES(HLO_CASE)
#undef HLO_CASE
    default: return;
  }
}

void F32ToNarrow(PrimitiveType t, const float* src, void* dst, int64_t n) {
  if (n <= 0) return;
#ifdef HLO_NARROW_F16C
  if (t == PrimitiveType::F16 && narrow_internal::UsesF16c()) {
    F32ToF16F16c(src, static_cast<uint16_t*>(dst), n);
    return;
  }
#endif
  switch (t) {
#define HLO_CASE(E, Tr) \
  case PrimitiveType::E: return EncodeLoop<ew::Tr>(src, static_cast<ew::Tr::Storage*>(dst), n);
    HLO_EW_NARROW_FLOAT_TYPES(HLO_CASE)
#undef HLO_CASE
    default: return;
  }
}

void SetNarrowBlockConversion(bool enabled) { g_enabled.store(enabled, std::memory_order_relaxed); }
bool NarrowBlockConversionEnabled() { return g_enabled.load(std::memory_order_relaxed); }

}  // namespace hlo::cpu
