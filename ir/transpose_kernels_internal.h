// The blocked transpose loop of transpose_kernels.cc, shared with the
// AVX2 translation unit (transpose_kernels_avx2.cc, built with -mavx2).
// Everything here has internal linkage (anonymous namespace) and includes
// only C headers and intrinsics: no inline function with external linkage
// may be compiled with AVX2 in one unit and picked by the linker for
// another.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__AVX__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hlo::transpose_internal {

// AVX2 entry (transpose_kernels_avx2.cc) for 4- and 8-byte elements; call
// only when the CPU has AVX2.
void TransposeCopyAvx2(int element_bytes, uint8_t* dst, int64_t dst_ld, const uint8_t* src,
                       int64_t src_ld, int64_t rows, int64_t cols, bool streaming);

namespace {

constexpr int kLine = 64;

// dst[c * dst_ld + r] = src[r * src_ld + c] over [r0, r1) x [c0, c1), one
// element at a time (the edges of the blocked loop).
template <int EB>
inline void ScalarRegion(uint8_t* dst, int64_t dst_ld, const uint8_t* src, int64_t src_ld,
                         int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t c = c0; c < c1; ++c)
      std::memcpy(dst + (c * dst_ld + r) * EB, src + (r * src_ld + c) * EB, EB);
}

// One element per "register": the portable micro kernel (any CPU), and the
// one for 16-byte elements (an element already fills an SSE register).
template <int EB>
struct MicroScalar {
  static constexpr int kM = 1;
  static void Run(const uint8_t* s, int64_t, uint8_t* d, int64_t) { std::memcpy(d, s, EB); }
};

// One aligned vector with a non-temporal store: 32 bytes where AVX is on
// (the AVX2 unit), 16 otherwise.
#if defined(__AVX__)
constexpr int kStreamBytes = 32;
inline void StreamVector(uint8_t* d, const uint8_t* s) {
  _mm256_stream_si256(reinterpret_cast<__m256i*>(d),
                      _mm256_load_si256(reinterpret_cast<const __m256i*>(s)));
}
#elif defined(__SSE2__)
constexpr int kStreamBytes = 16;
inline void StreamVector(uint8_t* d, const uint8_t* s) {
  _mm_stream_si128(reinterpret_cast<__m128i*>(d), _mm_load_si128(reinterpret_cast<const __m128i*>(s)));
}
#endif

// Copies one 64-byte line; kStream: with non-temporal stores (d aligned).
template <bool kStream>
inline void StoreLine(uint8_t* d, const uint8_t* s) {
#if defined(__SSE2__)
  if (kStream) {
    for (int i = 0; i < kLine; i += kStreamBytes) StreamVector(d + i, s + i);
    return;
  }
#endif
  std::memcpy(d, s, kLine);
}

#if defined(__SSE2__)
inline __m128i Load16(const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline void Store16(uint8_t* p, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
inline __m128i Load8(const uint8_t* p) { return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)); }
inline void Store8(uint8_t* p, __m128i v) { _mm_storel_epi64(reinterpret_cast<__m128i*>(p), v); }
inline void Store8Hi(uint8_t* p, __m128i v) { Store8(p, _mm_unpackhi_epi64(v, v)); }

// 8x8 bytes: interleave rows pairwise at 8-, 16- and 32-bit granularity.
struct MicroSse2U8 {
  static constexpr int kM = 8;
  static void Run(const uint8_t* s, int64_t sl, uint8_t* d, int64_t dl) {
    const __m128i a0 = _mm_unpacklo_epi8(Load8(s), Load8(s + sl));
    const __m128i a1 = _mm_unpacklo_epi8(Load8(s + 2 * sl), Load8(s + 3 * sl));
    const __m128i a2 = _mm_unpacklo_epi8(Load8(s + 4 * sl), Load8(s + 5 * sl));
    const __m128i a3 = _mm_unpacklo_epi8(Load8(s + 6 * sl), Load8(s + 7 * sl));
    const __m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);
    const __m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);
    const __m128i c0 = _mm_unpacklo_epi32(b0, b2), c1 = _mm_unpackhi_epi32(b0, b2);
    const __m128i c2 = _mm_unpacklo_epi32(b1, b3), c3 = _mm_unpackhi_epi32(b1, b3);
    Store8(d, c0);
    Store8Hi(d + dl, c0);
    Store8(d + 2 * dl, c1);
    Store8Hi(d + 3 * dl, c1);
    Store8(d + 4 * dl, c2);
    Store8Hi(d + 5 * dl, c2);
    Store8(d + 6 * dl, c3);
    Store8Hi(d + 7 * dl, c3);
  }
};

// 8x8 16-bit elements: interleave at 16-, 32- and 64-bit granularity.
struct MicroSse2U16 {
  static constexpr int kM = 8;
  static void Run(const uint8_t* s, int64_t sl, uint8_t* d, int64_t dl) {
    __m128i r[8];
    for (int i = 0; i < 8; ++i) r[i] = Load16(s + i * sl);
    __m128i a[8], b[8];
    for (int i = 0; i < 4; ++i) {
      a[2 * i] = _mm_unpacklo_epi16(r[2 * i], r[2 * i + 1]);
      a[2 * i + 1] = _mm_unpackhi_epi16(r[2 * i], r[2 * i + 1]);
    }
    // b[0..3]: columns 0-1, 2-3, 4-5, 6-7 of rows 0-3; b[4..7]: rows 4-7.
    for (int h = 0; h < 2; ++h) {
      b[4 * h + 0] = _mm_unpacklo_epi32(a[4 * h], a[4 * h + 2]);
      b[4 * h + 1] = _mm_unpackhi_epi32(a[4 * h], a[4 * h + 2]);
      b[4 * h + 2] = _mm_unpacklo_epi32(a[4 * h + 1], a[4 * h + 3]);
      b[4 * h + 3] = _mm_unpackhi_epi32(a[4 * h + 1], a[4 * h + 3]);
    }
    for (int i = 0; i < 4; ++i) {
      Store16(d + (2 * i) * dl, _mm_unpacklo_epi64(b[i], b[4 + i]));
      Store16(d + (2 * i + 1) * dl, _mm_unpackhi_epi64(b[i], b[4 + i]));
    }
  }
};

// 4x4 floats (as integers: no value is interpreted).
struct MicroSse2U32 {
  static constexpr int kM = 4;
  static void Run(const uint8_t* s, int64_t sl, uint8_t* d, int64_t dl) {
    const __m128i r0 = Load16(s), r1 = Load16(s + sl), r2 = Load16(s + 2 * sl),
                  r3 = Load16(s + 3 * sl);
    const __m128i a0 = _mm_unpacklo_epi32(r0, r1), a1 = _mm_unpackhi_epi32(r0, r1);
    const __m128i a2 = _mm_unpacklo_epi32(r2, r3), a3 = _mm_unpackhi_epi32(r2, r3);
    Store16(d, _mm_unpacklo_epi64(a0, a2));
    Store16(d + dl, _mm_unpackhi_epi64(a0, a2));
    Store16(d + 2 * dl, _mm_unpacklo_epi64(a1, a3));
    Store16(d + 3 * dl, _mm_unpackhi_epi64(a1, a3));
  }
};

// 2x2 8-byte elements.
struct MicroSse2U64 {
  static constexpr int kM = 2;
  static void Run(const uint8_t* s, int64_t sl, uint8_t* d, int64_t dl) {
    const __m128i r0 = Load16(s), r1 = Load16(s + sl);
    Store16(d, _mm_unpacklo_epi64(r0, r1));
    Store16(d + dl, _mm_unpackhi_epi64(r0, r1));
  }
};

struct MicroSse2U128 {
  static constexpr int kM = 1;
  static void Run(const uint8_t* s, int64_t, uint8_t* d, int64_t) { Store16(d, Load16(s)); }
};
#endif  // __SSE2__

// Destination lines written per destination row and visit: with one line
// (64 bytes) per row at a time the writes scatter over DRAM pages; 4
// consecutive lines measured about 1.3x faster on 4096^2 f32. Bounded so
// the scratch tile stays at 8 KB (a quarter of L1).
template <int EB>
constexpr int LinesPerVisit() {
  constexpr int kTileBytes = (kLine / EB) * kLine;  // one line per row
  return kTileBytes * 4 <= 8192 ? 4 : 8192 / kTileBytes;
}

// Blocks (one line of columns) ahead that Band prefetches its source.
constexpr int kPrefetchBlocks = 2;

// Source rows [r0, r0 + K*L) (L = one line of elements), all columns:
// each (K*L) x L block goes through a line-aligned scratch tile
// (transposed there by Micro's register kernels, M x M at a time, M source
// rows at a time so at most M source lines are live in L1), then out K
// whole destination lines per destination row. Columns past the last whole
// block go element by element.
template <int EB, class Micro, bool kStream, int K>
inline void Band(uint8_t* dst, int64_t dst_ld, const uint8_t* src, int64_t src_ld, int64_t r0,
                 int64_t cols) {
  constexpr int kL = kLine / EB;
  constexpr int kM = Micro::kM;
  constexpr int kRow = K * kLine;  // bytes of one tile row
  static_assert(kL % kM == 0, "micro kernel must tile a block");
  alignas(kLine) uint8_t tile[kL * kRow];  // row c: elements r0.. of destination row c0 + c
  const int64_t sl = src_ld * EB, dl = dst_ld * EB;
  const uint8_t* s = src + r0 * sl;
  uint8_t* d = dst + r0 * EB;
  int64_t c0 = 0;
  for (; c0 + kL <= cols; c0 += kL) {
    // A band reads K*L source rows at once, one line of each per block:
    // more streams than the hardware prefetcher follows. Fetching each
    // row's line kPrefetchBlocks blocks ahead keeps them coming (4096^2
    // f32 at 1 thread on a Zen 3: 23.9 -> 17.5-18.6 ms median, 2 threads
    // 13.8 -> 12.5; c64 2048^2 9.2 -> 8.5; bf16 8192x4096 with one line
    // per visit, see StreamedLinesPerVisit: 32.1 -> 26.5, 2 threads 17.2
    // -> 15.1). Only for large (streamed) copies, and not of 1-byte
    // elements (64-row bands: slower with it, 31.1 -> 32.5 ms).
    if constexpr (kStream && EB >= 2)
      if (c0 + (kPrefetchBlocks + 1) * kL <= cols)
        for (int r = 0; r < K * kL; ++r) __builtin_prefetch(s + r * sl + (c0 + kPrefetchBlocks * kL) * EB, 0, 3);
    for (int rm = 0; rm < K * kL; rm += kM)
      for (int cm = 0; cm < kL; cm += kM)
        Micro::Run(s + rm * sl + (c0 + cm) * EB, sl, tile + cm * kRow + rm * EB, kRow);
    for (int c = 0; c < kL; ++c)
      for (int k = 0; k < K; ++k)
        StoreLine<kStream>(d + (c0 + c) * dl + k * kLine, tile + c * kRow + k * kLine);
  }
  if (c0 < cols) ScalarRegion<EB>(dst, dst_ld, src, src_ld, r0, r0 + K * kL, c0, cols);
}

// Lines per visit of a large (streamed) copy: 2-byte elements take one,
// so that a band reads 32 source rows rather than 128 and Band's
// prefetches cover them (bf16 8192x4096 at 1 thread, alternated: 4 lines
// 32.1 / 41.7 ms median, 1 line with the prefetches 26.5 / 29.6; without
// them 1 line alone 40.0).
template <int EB, bool kStream>
constexpr int StreamedLinesPerVisit() {
  return kStream && EB == 2 ? 1 : LinesPerVisit<EB>();
}

template <int EB, class Micro, bool kStream>
void Bands(uint8_t* dst, int64_t dst_ld, const uint8_t* src, int64_t src_ld, int64_t rows,
           int64_t cols) {
  constexpr int kL = kLine / EB;
  constexpr int kK = StreamedLinesPerVisit<EB, kStream>();
  int64_t r0 = 0;
  if (cols >= kL) {
    for (; r0 + kK * kL <= rows; r0 += kK * kL)
      Band<EB, Micro, kStream, kK>(dst, dst_ld, src, src_ld, r0, cols);
    for (; r0 + kL <= rows; r0 += kL) Band<EB, Micro, kStream, 1>(dst, dst_ld, src, src_ld, r0, cols);
  }
  if (r0 < rows) ScalarRegion<EB>(dst, dst_ld, src, src_ld, r0, rows, 0, cols);
}

template <int EB, class Micro>
void BlockedTranspose(uint8_t* dst, int64_t dst_ld, const uint8_t* src, int64_t src_ld,
                      int64_t rows, int64_t cols, bool streaming) {
#if defined(__SSE2__)
  // Non-temporal stores only for whole aligned lines.
  if (streaming && reinterpret_cast<uintptr_t>(dst) % kLine == 0 && (dst_ld * EB) % kLine == 0) {
    Bands<EB, Micro, true>(dst, dst_ld, src, src_ld, rows, cols);
    _mm_sfence();  // order the non-temporal stores before any later read
    return;
  }
#else
  (void)streaming;
#endif
  Bands<EB, Micro, false>(dst, dst_ld, src, src_ld, rows, cols);
}

}  // namespace
}  // namespace hlo::transpose_internal
