#include "backend_cpu/conv_batch_grouped.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "backend_cpu/ew_types.h"
#include "backend_cpu/thread_pool.h"

namespace hlo::cpu {
namespace {

// One chunk of groups as a vector (two or four registers on the narrower
// ISA clones).
template <typename T>
struct GroupVector;
template <>
struct GroupVector<float> {
  typedef float type __attribute__((vector_size(64)));
};
template <>
struct GroupVector<double> {
  typedef double type __attribute__((vector_size(64)));
};

// Output positions per tile: this many accumulator vectors stay in
// registers while the tile streams through its chunk's input and kernel
// (12: the 3x3 output of a depthwise weight gradient in one tile).
constexpr int kPos = 12;

// Positions [p0, p0 + kPos) (taps padded with the zero position past P) of
// one chunk of groups of one output batch; `in` and `kernel` are that
// chunk's, `out` its first group's column.
template <typename T>
HLO_EW_CLONES void Tile(const T* __restrict in, const T* __restrict kernel, const int64_t* __restrict taps,
                        int64_t C, int64_t IS, int64_t KS, int64_t Ppad, int64_t G, int64_t p0, int64_t np,
                        int64_t nv, T* __restrict out) {
  using V = typename GroupVector<T>::type;
  constexpr int64_t kLanes = kBatchGroupLanes<T>;
  V acc[kPos] = {};
  for (int64_t c = 0; c < C; ++c) {
    const T* inc = in + c * (IS + 1) * kLanes;
    const T* kc = kernel + c * KS * kLanes;
    for (int64_t w = 0; w < KS; ++w) {
      V k;
      std::memcpy(&k, kc + w * kLanes, sizeof k);
      const int64_t* t = taps + w * Ppad + p0;
#pragma GCC unroll 12
      for (int j = 0; j < kPos; ++j) {
        V x;
        std::memcpy(&x, inc + t[j] * kLanes, sizeof x);
        acc[j] += x * k;
      }
    }
  }
  for (int64_t j = 0; j < np; ++j) {
    T lanes[kLanes];
    std::memcpy(lanes, &acc[j], sizeof lanes);
    std::copy(lanes, lanes + nv, out + (p0 + j) * G);
  }
}

}  // namespace

template <typename T>
void BatchGroupedConvolution(const T* in, const T* kernel, const int64_t* taps, int64_t Nb, int64_t C,
                             int64_t IS, int64_t KS, int64_t P, int64_t G, T* out) {
  constexpr int64_t kLanes = kBatchGroupLanes<T>;
  const int64_t Ppad = (P + kPos - 1) / kPos * kPos;
  std::vector<int64_t> padded(KS * Ppad, IS);
  for (int64_t w = 0; w < KS; ++w) std::copy(taps + w * P, taps + (w + 1) * P, padded.data() + w * Ppad);
  const int64_t ptiles = Ppad / kPos, chunks = (G + kLanes - 1) / kLanes;
  // About 1M multiply-adds per block of tasks.
  const double task_macs = static_cast<double>(C) * KS * kPos * kLanes;
  const int64_t min_tasks = std::max<int64_t>(1, static_cast<int64_t>(1e6 / std::max(task_macs, 1.0)));
  ParallelFor(chunks * Nb * ptiles, min_tasks, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t pt = t % ptiles, b = (t / ptiles) % Nb, chunk = t / (ptiles * Nb);
      const int64_t p0 = pt * kPos, g0 = chunk * kLanes;
      Tile<T>(in + (chunk * Nb + b) * C * (IS + 1) * kLanes, kernel + chunk * C * KS * kLanes, padded.data(), C,
              IS, KS, Ppad, G, p0, std::min<int64_t>(kPos, P - p0), std::min(kLanes, G - g0),
              out + b * P * G + g0);
    }
  });
}

template void BatchGroupedConvolution<float>(const float*, const float*, const int64_t*, int64_t, int64_t,
                                             int64_t, int64_t, int64_t, int64_t, float*);
template void BatchGroupedConvolution<double>(const double*, const double*, const int64_t*, int64_t, int64_t,
                                              int64_t, int64_t, int64_t, int64_t, double*);

}  // namespace hlo::cpu
