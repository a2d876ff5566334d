// Internal to backend_cpu: f32 spans of ew_math.h's Exp, Tanh and Logistic
// evaluated in stages, with exactly the scalar functions' operations (the
// same bits).
//
// Why: the scalar functions are one long dependency chain per element
// (about 70 cycles from the load to the store for Exp). A vectorised loop
// over them keeps only a few iterations in flight (the core's scheduler
// fills up with the waiting chains), so it ran at about 24 cycles per
// 8-lane vector on the Zen 3 measured, where the operations alone need
// about 10. Split into passes over a chunk of kStageChunk elements (the
// reduction, the polynomial's head, the rest), each pass has short chains
// of independent elements: 14-16 cycles per vector there (16M f32 in L1:
// 18.4-19.2 -> 11.1-15.6 ms, min of 20, noisy machine). The chunk's
// intermediates stay in L1 (4 x 512 bytes).
//
// x and y are either disjoint or the same array (in-place kernels, as for
// the other elementwise loops): every pass reads an element of x before the
// last pass writes that element's slot of y.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "backend_cpu/ew_math.h"

namespace hlo::cpu::ew::math {

// Whole chunks run with a constant trip count (the compiler then unrolls
// and schedules them better than a variable one: 14.8 vs 16.5 cycles per
// vector for Exp); the tail chunk with its own.
// 128 measured best of 32/64/128/256 (three passes) on the Zen 3.
constexpr int64_t kStageChunk = 128;

// Runs Chunk over x[0, n) -> y: whole chunks, then the tail chunk.
template <void (*Chunk)(const float*, float*, int64_t)>
[[gnu::always_inline]] inline void StagedSpan(const float* __restrict x, float* __restrict y, int64_t n) {
  int64_t i0 = 0;
  for (; i0 + kStageChunk <= n; i0 += kStageChunk) Chunk(x + i0, y + i0, kStageChunk);
  if (i0 < n) Chunk(x + i0, y + i0, n - i0);
}

// Whether every k of a chunk gives a normal y * 2^k (ExpScaleNormal).
// (An int OR over the chunk: a bool AND compiled to a scalar loop that
// cost more than the scaling it saves.)
[[gnu::always_inline]] inline bool AllScalesNormal(const float* ks, int64_t m) {
  int32_t outside = 0;
  for (int64_t j = 0; j < m; ++j)
    outside |= static_cast<int32_t>(ks[j] < kScaleNormalMin) | static_cast<int32_t>(ks[j] > kScaleNormalMax);
  return outside == 0;
}

// One chunk of m <= kStageChunk elements. Chunks whose results are all
// normal (softmax rows, most inputs) scale by one exponent add instead of
// ExpScale's two factors and NaN test: 3 of Exp's ~34 vector operations
// instead of 11, the same bits.
[[gnu::always_inline]] inline void ExpChunk(const float* __restrict xi, float* __restrict yi, int64_t m) {
  alignas(64) float ks[kStageChunk], rs[kStageChunk], ps[kStageChunk];
  const float hi = Opaque(kExpHi), lo = Opaque(kExpLo);
  for (int64_t j = 0; j < m; ++j) rs[j] = ExpReduce(xi[j], &ks[j], hi, lo);
  for (int64_t j = 0; j < m; ++j) ps[j] = ExpPolyHead(rs[j]);
  if (AllScalesNormal(ks, m)) {
    for (int64_t j = 0; j < m; ++j) yi[j] = ExpScaleNormal(ExpPolyTail(ps[j], rs[j]), ks[j]);
    return;
  }
  for (int64_t j = 0; j < m; ++j) yi[j] = ExpScale(ExpPolyTail(ps[j], rs[j]), ks[j], xi[j]);
}
[[gnu::always_inline]] inline void ExpSpan(const float* __restrict x, float* __restrict y, int64_t n) {
  StagedSpan<ExpChunk>(x, y, n);
}

// Logistic(x) = num / (1 + e), e = Exp(-|x|) (ew_math.h).
[[gnu::always_inline]] inline void LogisticChunk(const float* __restrict xi, float* __restrict yi, int64_t m) {
  alignas(64) float ks[kStageChunk], rs[kStageChunk], ps[kStageChunk];
  const float hi = Opaque(kExpHi), lo = Opaque(kExpLo);
  for (int64_t j = 0; j < m; ++j) rs[j] = ExpReduce(-std::fabs(xi[j]), &ks[j], hi, lo);
  for (int64_t j = 0; j < m; ++j) ps[j] = ExpPolyHead(rs[j]);
  if (AllScalesNormal(ks, m)) {
    for (int64_t j = 0; j < m; ++j) yi[j] = LogisticOf(xi[j], ExpScaleNormal(ExpPolyTail(ps[j], rs[j]), ks[j]));
    return;
  }
  for (int64_t j = 0; j < m; ++j) {
    const float e = ExpScale(ExpPolyTail(ps[j], rs[j]), ks[j], -std::fabs(xi[j]));
    yi[j] = LogisticOf(xi[j], e);
  }
}
[[gnu::always_inline]] inline void LogisticSpan(const float* __restrict x, float* __restrict y, int64_t n) {
  StagedSpan<LogisticChunk>(x, y, n);
}

[[gnu::always_inline]] inline void TanhChunk(const float* __restrict xi, float* __restrict yi, int64_t m) {
  alignas(64) float ks[kStageChunk], rs[kStageChunk], ps[kStageChunk], small[kStageChunk];
  const float hi = Opaque(kTanhHi);
  for (int64_t j = 0; j < m; ++j) {
    const float ax = std::fabs(xi[j]);
    small[j] = TanhSmall(ax);
    rs[j] = TanhReduce(ax, &ks[j], hi);
  }
  for (int64_t j = 0; j < m; ++j) ps[j] = ExpPolyHead(rs[j]);
  for (int64_t j = 0; j < m; ++j) {
    yi[j] = TanhFinish(ExpPolyTail(ps[j], rs[j]), ks[j], small[j], std::fabs(xi[j]), xi[j]);
  }
}
[[gnu::always_inline]] inline void TanhSpan(const float* __restrict x, float* __restrict y, int64_t n) {
  StagedSpan<TanhChunk>(x, y, n);
}

}  // namespace hlo::cpu::ew::math
