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
//            |x| < 0.625, 1 - 2/(exp(2|x|)+1) above; +-1 beyond ~9.
//   Logistic <= 2 ulp: 1 / (1 + exp(-x)); exp(x) below -80.
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

inline float Exp(float x) {
  const float kLog2e = 1.44269504088896341f;
  const float kLn2Hi = 0.693359375f;
  const float kLn2Lo = -2.12194440e-4f;
  const float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  float xc = x > 88.8f ? 88.8f : x;
  xc = xc < -104.0f ? -104.0f : xc;
  float k = (xc * kLog2e + kRound) - kRound;
  float r = xc - k * kLn2Hi;
  r = r - k * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  float y = p * r * r + r + 1.0f;
  int32_t ki = static_cast<int32_t>(k);
  int32_t k1 = ki >> 1;
  int32_t k2 = ki - k1;
  y = y * BitsToF(static_cast<uint32_t>(k1 + 127) << 23);
  y = y * BitsToF(static_cast<uint32_t>(k2 + 127) << 23);
  return x != x ? x : y;
}

inline float Tanh(float x) {
  float ax = std::fabs(x);
  // Small: odd polynomial.
  float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  float small = p * z * x + x;
  // Large: 1 - 2 / (exp(2|x|) + 1), sign restored.
  float e = Exp(2.0f * (ax > 10.0f ? 10.0f : ax));
  float large = 1.0f - 2.0f / (e + 1.0f);
  large = std::copysign(large, x);
  float r = ax < 0.625f ? small : large;
  return (x != x || x == 0.0f) ? x : r;  // NaN, +-0 unchanged
}

// Below -80, exp(-x) overflows f32 while the result is e^x (relative error
// of that approximation < 1e-34).
inline float Logistic(float x) {
  float r = 1.0f / (1.0f + Exp(-x));
  return x < -80.0f ? Exp(x) : r;
}

inline double Exp(double x) { return std::exp(x); }
inline double Tanh(double x) { return std::tanh(x); }
inline double Logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace hlo::cpu::ew::math
