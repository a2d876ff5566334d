// Internal to backend_cpu: f32 transcendental functions written without
// branches or library calls so that the span loops using them vectorise
// (SSE2 and up). f64 overloads forward to <cmath>.
//
// Accuracy (measured by elementwise_float_test.cc against the f64 <cmath> result,
// rounded to f32, over dense sweeps of the whole range):
//   Exp      <= 1 ulp (normal results; subnormal results within 1 step), Cody-Waite reduction by ln2 and the
//            Cephes expf minimax polynomial; 2^k applied as two exact
//            power-of-two factors, so subnormal results round once.
//   Tanh     <= 1 ulp measured (2 claimed): odd minimax polynomial (Cephes tanhf) for
//            |x| < 0.625, 1 - 2/(exp(2|x|)+1) above; +-1 beyond ~9. Both
//            halves are straight-line and blended (see Tanh).
//   Logistic <= 2 ulp: e = exp(-|x|); 1 / (1 + e) for x >= 0, e / (1 + e)
//            below (one exp, never overflows).
//   Log      <= 1 ulp measured (2 claimed): Cephes logf (see Log).
//   Log1p    <= 2 ulp (dense sweep of every 61st f32): log(u) x / (u - 1),
//            u = 1 + x (Goldberg).
//   Expm1    <= 2 ulp (same sweep): (u - 1) x / log(u), u = e^x (Kahan).
//   Erf      <= 2 ulp (every 13th positive f32 below 5): polynomial fits,
//            see Erf.
// NaN in -> NaN out (the operand), +-inf and +-0 handled exactly.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace hlo::cpu::ew::math {

inline float BitsToF(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline uint32_t FToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Exp and Tanh are written as pieces (reduce, the polynomial's head and
// tail, scale) so that the span loops of ew_math_spans.h can run each piece
// as its own pass over a chunk: the same operations in the same order, so
// the same bits, with more independent work in flight.
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;
constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer

// e^r for |r| <= ln2/2 (Cephes expf minimax polynomial), Horner's scheme
// in two pieces.
inline float ExpPolyHead(float r) {
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  return p * r + 4.1665795894e-2f;
}
inline float ExpPolyTail(float p, float r) {
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  return p * r * r + r + 1.0f;
}
inline float ExpPoly(float r) { return ExpPolyTail(ExpPolyHead(r), r); }

// `v`, a value the optimiser cannot see through. Span loops pass their
// clamp bounds through it: with the constants in view GCC folds them into
// the arithmetic after the clamp and emits four compares and four blends
// per vector where a minimum and a maximum do (Exp's reduction pass 6.5 ->
// 4-4.8 cycles per 8-lane vector on the Zen 3; same operations, same bits).
inline float Opaque(float v) {
#if defined(__x86_64__) || defined(__i386__)
  asm("" : "+x"(v));
#endif
  return v;
}

// 2^k as a float, for k in [-126, 127].
inline float Pow2(int32_t k) { return BitsToF(static_cast<uint32_t>(k + 127) << 23); }

// x = k ln2 + r: returns r and sets *k (an integer-valued float). The
// clamps are written `x < c ? x : c` so that a NaN becomes the (finite)
// bound: no NaN ever reaches the float -> int conversion. The bounds are
// parameters so that span loops can pass them through Opaque (below).
constexpr float kExpHi = 88.8f;
constexpr float kExpLo = -104.0f;
inline float ExpReduce(float x, float* k, float hi = kExpHi, float lo = kExpLo) {
  float xc = x < hi ? x : hi;
  xc = xc > lo ? xc : lo;
  const float kk = (xc * kLog2e + kRound) - kRound;
  *k = kk;
  const float r = xc - kk * kLn2Hi;
  return r - kk * kLn2Lo;
}

// y * 2^k as two exact power-of-two factors (subnormal results round
// once); NaN x gives x.
inline float ExpScale(float y, float k, float x) {
  const int32_t ki = static_cast<int32_t>(k);
  const int32_t k1 = ki >> 1;
  const int32_t k2 = ki - k1;
  y = y * Pow2(k1);
  y = y * Pow2(k2);
  return x != x ? x : y;
}

// ExpScale when y * 2^k is normal: y = ExpPoly(r) lies in [0.70, 1.42]
// (exponent field 126 or 127), so for k in [kScaleNormalMin,
// kScaleNormalMax] adding k to the exponent field is the same exact
// product as ExpScale's two factors. A NaN or infinite x is clamped to a k
// outside that range (128 or -150), so never takes this form.
constexpr float kScaleNormalMin = -125.0f;
constexpr float kScaleNormalMax = 127.0f;
inline float ExpScaleNormal(float y, float k) {
  return BitsToF(FToBits(y) + (static_cast<uint32_t>(static_cast<int32_t>(k)) << 23));
}

inline float Exp(float x) {
  float k;
  const float r = ExpReduce(x, &k);
  return ExpScale(ExpPoly(r), k, x);
}

// Tanh's small half: odd polynomial (Cephes tanhf) on ax = |x|.
inline float TanhSmall(float ax) {
  const float z = ax * ax;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  return p * z * ax + ax;
}
// The large half needs e^(2|x|) only for 2|x| in [0, 20]: the reduction of
// t = 2 min(ax, 10) (returns r, sets *k) ...
constexpr float kTanhHi = 10.0f;
inline float TanhReduce(float ax, float* k, float hi = kTanhHi) {
  const float t = 2.0f * (ax < hi ? ax : hi);
  const float kk = (t * kLog2e + kRound) - kRound;
  *k = kk;
  const float r = t - kk * kLn2Hi;
  return r - kk * kLn2Lo;
}
// ... and, with e^r = poly, 1 - 2 / (e^t + 1) blended with the small half
// (ax < 0.625), then the sign of x (also gives tanh(-0) = -0).
inline float TanhFinish(float poly, float k, float small, float ax, float x) {
  const float e = poly * Pow2(static_cast<int32_t>(k));
  const float large = 1.0f - 2.0f / (e + 1.0f);
  const float y = ax >= 0.625f ? large : small;
  return BitsToF(FToBits(y) | (FToBits(x) & 0x80000000u));
}

// One pass, no branches: both halves are cheap straight-line code and the
// select between them vectorises (blend). The large half scales by 2^k
// once (no overflow or subnormal handling). NaN takes the small half
// (NaN), +-0 the small half too (+0, then x's sign), +-inf the large half
// (clamped: +-1).
inline float Tanh(float x) {
  const float ax = std::fabs(x);
  const float small = TanhSmall(ax);
  float k;
  const float r = TanhReduce(ax, &k);
  return TanhFinish(ExpPoly(r), k, small, ax, x);
}

// 1 / (1 + e^-x) with a single exp that never overflows: with
// e = e^-|x| in (0, 1], x >= 0 gives 1 / (1 + e) and x < 0 gives
// e / (1 + e) (= e^x / (1 + e^x)). NaN -> NaN, -inf -> 0, +inf -> 1.
inline float LogisticOf(float x, float e) {
  const float num = x >= 0.0f ? 1.0f : e;
  return num / (1.0f + e);
}
inline float Logistic(float x) { return LogisticOf(x, Exp(-std::fabs(x))); }

// Natural log (Cephes logf): x = 2^e * m with m in [sqrt(1/2), sqrt(2)),
// log(m) = f - f^2/2 + f^3 P(f) with f = m - 1 exact, plus e*ln2 in two
// parts. Subnormal x is scaled by 2^23 first. log(+-0) = -inf, log(x<0) =
// NaN, log(+inf) = +inf, NaN -> NaN.
inline float Log(float x) {
  const bool sub = x < 1.17549435e-38f;
  float xs = sub ? x * 8388608.0f : x;  // 2^23
  uint32_t u = FToBits(xs);
  int32_t ex = static_cast<int32_t>((u >> 23) & 0xff) - 126;
  float m = BitsToF((u & 0x007fffffu) | 0x3f000000u);  // [0.5, 1)
  const bool lo = m < 0.707106781186547524f;
  float f = lo ? m + m - 1.0f : m - 1.0f;
  float e = static_cast<float>(lo ? ex - 1 : ex) - (sub ? 23.0f : 0.0f);
  float z = f * f;
  float p = 7.0376836292e-2f;
  p = p * f - 1.1514610310e-1f;
  p = p * f + 1.1676998740e-1f;
  p = p * f - 1.2420140846e-1f;
  p = p * f + 1.4249322787e-1f;
  p = p * f - 1.6668057665e-1f;
  p = p * f + 2.0000714765e-1f;
  p = p * f - 2.4999993993e-1f;
  p = p * f + 3.3333331174e-1f;
  float y = f * z * p;
  y = y + e * -2.12194440e-4f;
  y = y - 0.5f * z;
  float r = f + y;
  r = r + e * 0.693359375f;
  // Special inputs: +-0 -> -inf, negative -> NaN, +inf and NaN unchanged.
  r = x == 0.0f ? -INFINITY : r;
  r = x < 0.0f ? NAN : r;
  return (x != x || x == INFINITY) ? x : r;
}

// log(1 + x) without cancellation (Goldberg): u = 1 + x rounds, but
// x / (u - 1) corrects log(u) for that rounding (u - 1 is exact near 1).
// 1 + x == 1 (|x| below half an ulp of 1, and +-0, subnormals): x itself.
// -1 -> -inf, below -1 -> NaN, +inf -> +inf, NaN -> the operand.
inline float Log1p(float x) {
  const float u = 1.0f + x;
  const float d = u - 1.0f;
  float r = Log(u) * (x / d);
  r = d == 0.0f ? x : r;
  r = u == INFINITY ? u : r;
  return x != x ? x : r;
}

// e^x - 1 without cancellation (Kahan): with u = e^x rounded,
// (u - 1) * x / log(u) corrects for that rounding. u == 1 (tiny x, +-0):
// x itself; u - 1 == -1 (x below about -17): -1; +inf and overflow: +inf.
inline float Expm1(float x) {
  const float u = Exp(x);
  const float d = u - 1.0f;
  float r = d * (x / Log(u));
  r = u == 1.0f ? x : r;
  r = d == -1.0f ? -1.0f : r;
  r = u == INFINITY ? u : r;
  return x != x ? x : r;
}

// erf: our own least-squares fits (relative error weighted toward the
// worst point; docs/semantics-elementwise.md). |x| < 0.875: x * P(x^2),
// P of degree 6. Above: 1 - e^(-x^2) R(1/x), R = erfc(x) e^(x^2) fitted
// as a degree-8 polynomial of 1/x on [0.875, 2) and on [2, 3.95); at 3.95
// and above erf rounds to 1. Odd: the sign is copied; NaN -> the operand.
inline float ErfSmallPoly(float t) {
  float p = 8.62405141e-05f;
  p = p * t - 0.000819528184f;
  p = p * t + 0.00520495186f;
  p = p * t - 0.0268606432f;
  p = p * t + 0.112837099f;
  p = p * t - 0.376126349f;
  return p * t + 1.12837923f;
}
inline float ErfcScaledNear(float u) {  // x in [0.875, 2), u = 1/x
  float p = 0.00753665809f;
  p = p * u - 0.0629422441f;
  p = p * u + 0.235977784f;
  p = p * u - 0.51864779f;
  p = p * u + 0.718761563f;
  p = p * u - 0.583504796f;
  p = p * u + 0.0766761974f;
  p = p * u + 0.553002357f;
  return p * u + 0.000723850157f;
}
inline float ErfcScaledFar(float u) {  // x in [2, 3.95), u = 1/x
  float p = -0.218386605f;
  p = p * u + 0.761737645f;
  p = p * u - 1.10349238f;
  p = p * u + 0.747749984f;
  p = p * u - 0.0443272106f;
  p = p * u - 0.283293068f;
  p = p * u + 0.00139235659f;
  p = p * u + 0.563993931f;
  return p * u + 9.58020246e-06f;
}
inline float Erf(float x) {
  const float ax = std::fabs(x);
  const float small = ax * ErfSmallPoly(ax * ax);
  float xc = ax < 3.95f ? ax : 3.95f;
  xc = xc > 0.875f ? xc : 0.875f;
  const float u = 1.0f / xc;
  const float r = xc < 2.0f ? ErfcScaledNear(u) : ErfcScaledFar(u);
  float y = ax < 0.875f ? small : 1.0f - Exp(-(xc * xc)) * r;
  y = ax >= 3.95f ? 1.0f : y;
  y = std::copysign(y, x);
  return x != x ? x : y;
}

inline double Exp(double x) { return std::exp(x); }
inline double Erf(double x) { return std::erf(x); }
inline double Log1p(double x) { return std::log1p(x); }
inline double Expm1(double x) { return std::expm1(x); }
inline double Tanh(double x) { return std::tanh(x); }
inline double Log(double x) { return std::log(x); }
inline double Logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace hlo::cpu::ew::math
