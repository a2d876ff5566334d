#include "backend_cpu/conv_batch_grouped.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "backend_cpu/ew_types.h"
#include "backend_cpu/thread_pool.h"

namespace hlo::cpu {
namespace {

// A 32-byte vector (one ymm register; two xmm on the SSE2 clone). A chunk
// of groups is 64 bytes, i.e. two of them: GCC lowers a 64-byte generic
// vector on AVX2 through the stack, element pieces and a `rep stos` per
// tile (26% of a depthwise input gradient's time).
template <typename T>
struct HalfVector;
template <>
struct HalfVector<float> {
  typedef float type __attribute__((vector_size(32)));
};
template <>
struct HalfVector<double> {
  typedef double type __attribute__((vector_size(32)));
};

// Positions [p0, p0 + kPos) of one chunk of groups of one output batch,
// their 2 x kPos accumulators kept in registers while the tile streams
// through its chunk's input and kernel (taps padded with the zero position
// past P); `in` and `kernel` are that chunk's, `out` its first group's
// column. `dead` (null: none) marks the window positions whose taps all
// read the zeros for this tile, stride `dead_stride` per window position.
template <typename T, int kPos>
HLO_EW_CLONES void Tile(const T* __restrict in, const T* __restrict kernel, const int64_t* __restrict taps,
                        int64_t C, int64_t IS, int64_t KS, int64_t Ppad, int64_t G, int64_t p0, int64_t np,
                        int64_t nv, const uint8_t* __restrict dead, int64_t dead_stride, T* __restrict out) {
  using H = typename HalfVector<T>::type;
  constexpr int64_t kLanes = kBatchGroupLanes<T>;
  constexpr int64_t kHalf = kLanes / 2;
  static_assert(sizeof(H) * 2 == sizeof(T) * kLanes);
  H lo[kPos], hi[kPos];
#pragma GCC unroll 12
  for (int j = 0; j < kPos; ++j) lo[j] = hi[j] = H{};
  for (int64_t c = 0; c < C; ++c) {
    const T* inc = in + c * (IS + 1) * kLanes;
    const T* kc = kernel + c * KS * kLanes;
    for (int64_t w = 0; w < KS; ++w) {
      if (dead != nullptr && dead[w * dead_stride]) continue;
      H k0, k1;
      std::memcpy(&k0, kc + w * kLanes, sizeof k0);
      std::memcpy(&k1, kc + w * kLanes + kHalf, sizeof k1);
      const int64_t* t = taps + w * Ppad + p0;
#pragma GCC unroll 12
      for (int j = 0; j < kPos; ++j) {
        const T* x = inc + t[j] * kLanes;
        H x0, x1;
        std::memcpy(&x0, x, sizeof x0);
        std::memcpy(&x1, x + kHalf, sizeof x1);
        lo[j] += x0 * k0;
        hi[j] += x1 * k1;
      }
    }
  }
  if (nv == kLanes) {  // whole chunks: vector stores
#pragma GCC unroll 12
    for (int j = 0; j < kPos; ++j) {
      if (j >= np) break;
      std::memcpy(out + (p0 + j) * G, &lo[j], sizeof(H));
      std::memcpy(out + (p0 + j) * G + kHalf, &hi[j], sizeof(H));
    }
    return;
  }
  for (int64_t j = 0; j < np; ++j) {
    T lanes[kLanes];
    std::memcpy(lanes, &lo[j], sizeof(H));
    std::memcpy(lanes + kHalf, &hi[j], sizeof(H));
    std::copy(lanes, lanes + nv, out + (p0 + j) * G);
  }
}

// Whether every kernel value is finite: then a tap that reads the zeros
// adds +-0 to a sum that started at +0 and so never is -0, which changes
// nothing, and such taps may be skipped. (0 * inf is NaN: with a
// non-finite kernel value every tap runs.)
template <typename T>
bool AllFinite(const T* v, int64_t n) {
  // By the exponent bits (all ones: inf or NaN), an integer OR reduction
  // that vectorises.
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr U kExp = static_cast<U>(sizeof(T) == 4 ? 0x7f800000ull : 0x7ff0000000000000ull);
  U bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    U bits;
    std::memcpy(&bits, v + i, sizeof bits);
    bad |= static_cast<U>((bits & kExp) == kExp);
  }
  return bad == 0;
}

template <typename T, int kPos>
void RunTiles(const T* in, const T* kernel, const int64_t* taps, int64_t Nb, int64_t C, int64_t IS, int64_t KS,
              int64_t P, int64_t G, T* out) {
  constexpr int64_t kLanes = kBatchGroupLanes<T>;
  const int64_t Ppad = (P + kPos - 1) / kPos * kPos;
  std::vector<int64_t> padded(KS * Ppad, IS);
  for (int64_t w = 0; w < KS; ++w) std::copy(taps + w * P, taps + (w + 1) * P, padded.data() + w * Ppad);
  const int64_t ptiles = Ppad / kPos, chunks = (G + kLanes - 1) / kLanes;
  // dead[w][pt]: window position w reads only zeros (padding, holes of
  // lhs dilation) for every position of tile pt. With lhs dilation 2 in
  // two dims (the input gradient of a strided depthwise convolution) that
  // is about half of them: whole output rows of one parity.
  std::vector<uint8_t> dead(KS * ptiles, 1);
  int64_t dead_count = 0;
  for (int64_t w = 0; w < KS; ++w)
    for (int64_t pt = 0; pt < ptiles; ++pt) {
      const int64_t* t = padded.data() + w * Ppad + pt * kPos;
      bool all_zero = true;
      for (int j = 0; j < kPos; ++j) all_zero &= t[j] == IS;
      dead[w * ptiles + pt] = all_zero;
      dead_count += all_zero;
    }
  // (Worth the kernel's scan when an eighth of the taps or more go.)
  const bool skip = dead_count * 8 >= KS * ptiles && AllFinite(kernel, chunks * C * KS * kLanes);
  // About 1M multiply-adds per block of tasks.
  const double task_macs = static_cast<double>(C) * KS * kPos * kLanes;
  const int64_t min_tasks = std::max<int64_t>(1, static_cast<int64_t>(1e6 / std::max(task_macs, 1.0)));
  ParallelFor(chunks * Nb * ptiles, min_tasks, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t pt = t % ptiles, b = (t / ptiles) % Nb, chunk = t / (ptiles * Nb);
      const int64_t p0 = pt * kPos, g0 = chunk * kLanes;
      Tile<T, kPos>(in + (chunk * Nb + b) * C * (IS + 1) * kLanes, kernel + chunk * C * KS * kLanes, padded.data(), C,
              IS, KS, Ppad, G, p0, std::min<int64_t>(kPos, P - p0), std::min(kLanes, G - g0),
              skip ? dead.data() + pt : nullptr, ptiles, out + b * P * G + g0);
    }
  });
}

}  // namespace

template <typename T>
void BatchGroupedConvolution(const T* in, const T* kernel, const int64_t* taps, int64_t Nb, int64_t C,
                             int64_t IS, int64_t KS, int64_t P, int64_t G, T* out) {
  // Positions per tile: as many 64-byte accumulators as the registers
  // hold next to the kernel vector and a loaded one (12 of 32 zmm: the
  // 3x3 output of a depthwise weight gradient in one tile; 6 x 2 of 16
  // ymm; 3 x 4 of 16 xmm). More spill to the stack on every tap. Each
  // output element is summed in the same order whatever the tile: the
  // bits do not depend on it.
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_cpu_supports("avx512f")) return RunTiles<T, 12>(in, kernel, taps, Nb, C, IS, KS, P, G, out);
  if (__builtin_cpu_supports("avx2")) return RunTiles<T, 6>(in, kernel, taps, Nb, C, IS, KS, P, G, out);
  return RunTiles<T, 3>(in, kernel, taps, Nb, C, IS, KS, P, G, out);
#else
  return RunTiles<T, 12>(in, kernel, taps, Nb, C, IS, KS, P, G, out);
#endif
}

template void BatchGroupedConvolution<float>(const float*, const float*, const int64_t*, int64_t, int64_t,
                                             int64_t, int64_t, int64_t, int64_t, float*);
template void BatchGroupedConvolution<double>(const double*, const double*, const int64_t*, int64_t, int64_t,
                                              int64_t, int64_t, int64_t, int64_t, double*);

}  // namespace hlo::cpu
