// AVX2 register kernels of the blocked transpose (8x8 4-byte and 4x4
// 8-byte elements). Built with -mavx2 (ir/CMakeLists.txt) and called only
// after a run-time check of the CPU (transpose_kernels.cc); includes
// nothing with external inline linkage (see transpose_kernels_internal.h).
#include "ir/transpose_kernels_internal.h"

#if defined(__AVX2__)
#include <immintrin.h>

namespace hlo::transpose_internal {
namespace {

// 8x8 4-byte elements (moved as floats; shuffles never interpret values).
struct MicroAvx2U32 {
  static constexpr int kM = 8;
  static void Run(const uint8_t* s, int64_t sl, uint8_t* d, int64_t dl) {
    __m256 r[8], t[8], u[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(reinterpret_cast<const float*>(s + i * sl));
    for (int i = 0; i < 4; ++i) {
      t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
      t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; ++h) {
      u[4 * h + 0] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0x44);
      u[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0xEE);
      u[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0x44);
      u[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0xEE);
    }
    for (int i = 0; i < 4; ++i) {
      _mm256_storeu_ps(reinterpret_cast<float*>(d + i * dl),
                       _mm256_permute2f128_ps(u[i], u[4 + i], 0x20));
      _mm256_storeu_ps(reinterpret_cast<float*>(d + (4 + i) * dl),
                       _mm256_permute2f128_ps(u[i], u[4 + i], 0x31));
    }
  }
};

// 4x4 8-byte elements.
struct MicroAvx2U64 {
  static constexpr int kM = 4;
  static void Run(const uint8_t* s, int64_t sl, uint8_t* d, int64_t dl) {
    __m256d r[4];
    for (int i = 0; i < 4; ++i) r[i] = _mm256_loadu_pd(reinterpret_cast<const double*>(s + i * sl));
    const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
    const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
    _mm256_storeu_pd(reinterpret_cast<double*>(d), _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(reinterpret_cast<double*>(d + dl), _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(reinterpret_cast<double*>(d + 2 * dl), _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(reinterpret_cast<double*>(d + 3 * dl), _mm256_permute2f128_pd(t1, t3, 0x31));
  }
};

}  // namespace

void TransposeCopyAvx2(int eb, uint8_t* dst, int64_t dst_ld, const uint8_t* src, int64_t src_ld,
                       int64_t rows, int64_t cols, bool streaming) {
  if (eb == 4) return BlockedTranspose<4, MicroAvx2U32>(dst, dst_ld, src, src_ld, rows, cols, streaming);
  return BlockedTranspose<8, MicroAvx2U64>(dst, dst_ld, src, src_ld, rows, cols, streaming);
}

}  // namespace hlo::transpose_internal

#else  // not built with AVX2 (another architecture): never called

namespace hlo::transpose_internal {
void TransposeCopyAvx2(int, uint8_t*, int64_t, const uint8_t*, int64_t, int64_t, int64_t, bool) {}
}  // namespace hlo::transpose_internal

#endif
