// Float kernels: exact ops vs an independent scalar reference (bit
// equality, NaN == NaN), narrow types vs "decode, f32 op, round once",
// transcendental accuracy vs f64 <cmath>, and XLA's edge cases.
#include <cmath>
#include <limits>

#include "backend_cpu/ew_test_util.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

using namespace hlo::cpu::testing;  // NOLINT
using P = PrimitiveType;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// Mixed test values: random bit patterns (NaN, inf, subnormals) and
// ordinary values in [-10, 10] including exact halves.
template <typename F>
std::vector<F> Values(int n, std::mt19937_64& rng) {
  std::vector<F> v;
  std::uniform_real_distribution<double> d(-10, 10);
  for (int i = 0; i < n; ++i) {
    switch (i % 4) {
      case 0: {
        uint64_t r = rng();
        if constexpr (sizeof(F) == 4) v.push_back(F32FromBits(static_cast<uint32_t>(r)));
        else { double x; std::memcpy(&x, &r, 8); v.push_back(x); }
        break;
      }
      case 1: v.push_back(static_cast<F>(std::round(d(rng) * 2) / 2)); break;
      default: v.push_back(static_cast<F>(d(rng)));
    }
  }
  const F specials[] = {F(0), -F(0), F(1), F(-1), F(0.5), F(-0.5), F(2.5), F(-2.5),
                        std::numeric_limits<F>::infinity(), -std::numeric_limits<F>::infinity(),
                        std::numeric_limits<F>::quiet_NaN(), std::numeric_limits<F>::denorm_min(),
                        std::numeric_limits<F>::max(), std::numeric_limits<F>::lowest()};
  for (F s : specials) v.push_back(s);
  return v;
}

template <typename F>
Buf ToBuf(P t, const std::vector<F>& v) {
  Buf b = MakeBuf(t, static_cast<int64_t>(v.size()));
  for (size_t i = 0; i < v.size(); ++i) b.set(static_cast<int64_t>(i), v[i]);
  return b;
}

template <typename F>
bool SameFloat(F a, F b) {
  if (a != a || b != b) return a != a && b != b;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

template <typename F>
F RefMax(F a, F b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == 0 && b == 0) return std::signbit(a) && std::signbit(b) ? a : F(0);
  return a > b ? a : b;
}
template <typename F>
F RefMin(F a, F b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == 0 && b == 0) return !std::signbit(a) && !std::signbit(b) ? a : -F(0);
  return a < b ? a : b;
}
template <typename F>
F RefRoundEven(F x) {
  if (!std::isfinite(x)) return x;
  F f = std::floor(x);
  F diff = x - f;
  F r;
  if (diff > F(0.5)) r = f + 1;
  else if (diff < F(0.5)) r = f;
  else r = std::fmod(f, F(2)) == 0 ? f : f + 1;
  return std::copysign(r, x);
}
template <typename F>
F RefSign(F x) {
  if (x != x) return x;
  if (x == 0) return x;
  return x > 0 ? F(1) : F(-1);
}

template <typename F>
void CheckExactOps(P t) {
  std::mt19937_64 rng(sizeof(F));
  auto av = Values<F>(400, rng), bv = Values<F>(400, rng);
  std::shuffle(bv.begin(), bv.end(), rng);
  Buf a = ToBuf(t, av), b = ToBuf(t, bv);
  struct Bin { Opcode op; F (*ref)(F, F); };
  const Bin bins[] = {
      {Opcode::kAdd, [](F x, F y) { return x + y; }},
      {Opcode::kSubtract, [](F x, F y) { return x - y; }},
      {Opcode::kMultiply, [](F x, F y) { return x * y; }},
      {Opcode::kDivide, [](F x, F y) { return x / y; }},
      {Opcode::kRemainder, [](F x, F y) { return std::fmod(x, y); }},
      {Opcode::kMaximum, RefMax<F>},
      {Opcode::kMinimum, RefMin<F>},
      {Opcode::kPower, [](F x, F y) { return std::pow(x, y); }},
      {Opcode::kAtan2, [](F x, F y) { return std::atan2(x, y); }},
  };
  for (const auto& c : bins) {
    Buf r = Run2(c.op, a, b, t);
    for (size_t i = 0; i < av.size(); ++i) {
      ASSERT_TRUE(SameFloat(r.get<F>(i), c.ref(av[i], bv[i])))
          << OpcodeName(c.op) << " " << av[i] << " " << bv[i] << " -> " << r.get<F>(i);
    }
  }
  struct Un { Opcode op; F (*ref)(F); };
  const Un uns[] = {
      {Opcode::kAbs, [](F x) { return std::fabs(x); }},
      {Opcode::kNegate, [](F x) { return -x; }},
      {Opcode::kFloor, [](F x) { return std::floor(x); }},
      {Opcode::kCeil, [](F x) { return std::ceil(x); }},
      {Opcode::kRoundNearestAfz, [](F x) { return std::round(x); }},
      {Opcode::kRoundNearestEven, RefRoundEven<F>},
      {Opcode::kSqrt, [](F x) { return std::sqrt(x); }},
      {Opcode::kRsqrt, [](F x) { return F(1) / std::sqrt(x); }},
      {Opcode::kSign, RefSign<F>},
      {Opcode::kReal, [](F x) { return x; }},
      {Opcode::kImag, [](F) { return F(0); }},
      {Opcode::kCopy, [](F x) { return x; }},
  };
  for (const auto& c : uns) {
    Buf r = Run1(c.op, a, t);
    for (size_t i = 0; i < av.size(); ++i) {
      ASSERT_TRUE(SameFloat(r.get<F>(i), c.ref(av[i]))) << OpcodeName(c.op) << " " << av[i];
    }
  }
  Buf fin = Run1(Opcode::kIsFinite, a, P::PRED);
  for (size_t i = 0; i < av.size(); ++i) ASSERT_EQ(fin.bits(i), std::isfinite(av[i]) ? 1u : 0u);
  // clamp(lo, x, hi) = min(hi, max(lo, x))
  Buf c = Run3(Opcode::kClamp, b, a, a, t);
  for (size_t i = 0; i < av.size(); ++i) {
    ASSERT_TRUE(SameFloat(c.get<F>(i), RefMin(av[i], RefMax(bv[i], av[i]))));
  }
  const ComparisonDirection dirs[] = {ComparisonDirection::kEq, ComparisonDirection::kNe,
                                      ComparisonDirection::kGe, ComparisonDirection::kGt,
                                      ComparisonDirection::kLe, ComparisonDirection::kLt};
  for (auto d : dirs) {
    Buf r = Run2(Opcode::kCompare, a, b, P::PRED, Cmp(d));
    for (size_t i = 0; i < av.size(); ++i) {
      F x = av[i], y = bv[i];
      bool want = d == ComparisonDirection::kEq ? x == y : d == ComparisonDirection::kNe ? x != y
                : d == ComparisonDirection::kGe ? x >= y : d == ComparisonDirection::kGt ? x > y
                : d == ComparisonDirection::kLe ? x <= y : x < y;
      ASSERT_EQ(r.bits(i), want ? 1u : 0u);
    }
  }
}

TEST(ElementwiseFloatTest, ExactOpsF32) { CheckExactOps<float>(P::F32); }
TEST(ElementwiseFloatTest, ExactOpsF64) { CheckExactOps<double>(P::F64); }

// Narrow types: kernel == encode_t(f32 kernel(decode(a), decode(b))).
TEST(ElementwiseFloatTest, NarrowTypesComputeInF32AndRoundOnce) {
  std::mt19937_64 rng(3);
  const Opcode unary[] = {Opcode::kAbs, Opcode::kNegate, Opcode::kExp, Opcode::kLog, Opcode::kSqrt,
                          Opcode::kTanh, Opcode::kLogistic, Opcode::kSin, Opcode::kFloor,
                          Opcode::kRoundNearestEven, Opcode::kSign, Opcode::kCbrt, Opcode::kErf,
                          Opcode::kExpm1, Opcode::kLog1p, Opcode::kRsqrt};
  const Opcode binary[] = {Opcode::kAdd, Opcode::kSubtract, Opcode::kMultiply, Opcode::kDivide,
                           Opcode::kMaximum, Opcode::kMinimum, Opcode::kPower, Opcode::kRemainder,
                           Opcode::kAtan2};
  for (P t : FloatTypes()) {
    if (t == P::F32 || t == P::F64) continue;
    const int64_t n = 700;  // > 2 tiles
    Buf a = RandomBuf(t, n, rng), b = RandomBuf(t, n, rng);
    Buf af = MakeBuf(P::F32, n), bf = MakeBuf(P::F32, n);
    for (int64_t i = 0; i < n; ++i) {
      af.set(i, DecodeFloatToFloat(t, a.bits(i)));
      bf.set(i, DecodeFloatToFloat(t, b.bits(i)));
    }
    auto check = [&](Opcode op, const Buf& r, const Buf& rf) {
      for (int64_t i = 0; i < n; ++i) {
        uint64_t want = EncodeFloat(t, rf.get<float>(i));
        uint64_t got = r.bits(i);
        if (IsNanBits(t, want)) {
          ASSERT_TRUE(IsNanBits(t, got)) << OpcodeName(op) << " " << PrimitiveTypeName(t);
        } else {
          ASSERT_EQ(got, want) << OpcodeName(op) << " " << PrimitiveTypeName(t) << " a=" << af.get<float>(i)
                               << " b=" << bf.get<float>(i) << " f32=" << rf.get<float>(i);
        }
      }
    };
    for (Opcode op : unary) check(op, Run1(op, a, t), Run1(op, af, P::F32));
    for (Opcode op : binary) check(op, Run2(op, a, b, t), Run2(op, af, bf, P::F32));
    check(Opcode::kClamp, Run3(Opcode::kClamp, a, b, a, t), Run3(Opcode::kClamp, af, bf, af, P::F32));
    for (auto d : {ComparisonDirection::kEq, ComparisonDirection::kNe, ComparisonDirection::kLt}) {
      Buf r = Run2(Opcode::kCompare, a, b, P::PRED, Cmp(d));
      Buf rf = Run2(Opcode::kCompare, af, bf, P::PRED, Cmp(d));
      EXPECT_EQ(r.bytes, rf.bytes) << PrimitiveTypeName(t);
    }
    Buf fin = Run1(Opcode::kIsFinite, a, P::PRED);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(fin.bits(i), std::isfinite(af.get<float>(i)) ? 1u : 0u) << PrimitiveTypeName(t);
    }
  }
}

// Transcendentals (f32) vs f64 <cmath> rounded to f32.
TEST(ElementwiseFloatTest, F32TranscendentalAccuracy) {
  std::mt19937_64 rng(11);
  struct Case { Opcode op; double (*ref)(double); double lo, hi; int max_ulp; };
  const Case cases[] = {
      {Opcode::kExp, [](double x) { return std::exp(x); }, -87, 88, 1},
      {Opcode::kExp, [](double x) { return std::exp(x); }, -1, 1, 1},
      {Opcode::kTanh, [](double x) { return std::tanh(x); }, -12, 12, 2},
      {Opcode::kTanh, [](double x) { return std::tanh(x); }, -1, 1, 2},
      {Opcode::kLogistic, [](double x) { return 1 / (1 + std::exp(-x)); }, -80, 80, 2},
      {Opcode::kLog, [](double x) { return std::log(x); }, 1e-30, 1e30, 2},
      {Opcode::kSin, [](double x) { return std::sin(x); }, -100, 100, 2},
      {Opcode::kCos, [](double x) { return std::cos(x); }, -100, 100, 2},
      {Opcode::kTan, [](double x) { return std::tan(x); }, -1.5, 1.5, 2},
      {Opcode::kErf, [](double x) { return std::erf(x); }, -4, 4, 2},
      {Opcode::kExpm1, [](double x) { return std::expm1(x); }, -5, 5, 2},
      {Opcode::kLog1p, [](double x) { return std::log1p(x); }, -0.9, 100, 2},
      {Opcode::kCbrt, [](double x) { return std::cbrt(x); }, -1000, 1000, 2},
      {Opcode::kAsin, [](double x) { return std::asin(x); }, -1, 1, 2},
      {Opcode::kAcos, [](double x) { return std::acos(x); }, -1, 1, 2},
      {Opcode::kAtanh, [](double x) { return std::atanh(x); }, -0.99, 0.99, 2},
      {Opcode::kAsinh, [](double x) { return std::asinh(x); }, -100, 100, 2},
      {Opcode::kAcosh, [](double x) { return std::acosh(x); }, 1, 100, 2},
      {Opcode::kSinh, [](double x) { return std::sinh(x); }, -80, 80, 2},
      {Opcode::kCosh, [](double x) { return std::cosh(x); }, -80, 80, 2},
  };
  for (const auto& c : cases) {
    const int64_t n = 20000;
    Buf a = RandomFloats(P::F32, n, c.lo, c.hi, rng);
    Buf r = Run1(c.op, a, P::F32);
    int64_t worst = 0;
    for (int64_t i = 0; i < n; ++i) {
      float x = a.get<float>(i);
      float want = static_cast<float>(c.ref(x));
      float got = r.get<float>(i);
      if (std::fabs(want) < 1e-37f) continue;  // subnormal results: skip ulp check
      worst = std::max(worst, UlpDistance(got, want));
      ASSERT_LE(UlpDistance(got, want), c.max_ulp) << OpcodeName(c.op) << " x=" << x << " got " << got
                                                   << " want " << want;
    }
    RecordProperty(std::string(OpcodeName(c.op)), static_cast<int>(worst));
  }
  // Special values of the vectorised functions.
  Buf s = FloatBuf(P::F32, {0.0, -0.0, kInf, -kInf, kNaN, 89, -110, 1e-30});
  Buf e = Run1(Opcode::kExp, s, P::F32);
  EXPECT_EQ(e.get<float>(0), 1.0f);
  EXPECT_EQ(e.get<float>(1), 1.0f);
  EXPECT_EQ(e.get<float>(2), INFINITY);
  EXPECT_EQ(e.get<float>(3), 0.0f);
  EXPECT_TRUE(std::isnan(e.get<float>(4)));
  EXPECT_EQ(e.get<float>(5), INFINITY);
  EXPECT_EQ(e.get<float>(6), 0.0f);
  EXPECT_EQ(e.get<float>(7), 1.0f);
  Buf th = Run1(Opcode::kTanh, s, P::F32);
  EXPECT_EQ(BitsOfF32(th.get<float>(0)), BitsOfF32(0.0f));
  EXPECT_EQ(BitsOfF32(th.get<float>(1)), BitsOfF32(-0.0f));
  EXPECT_EQ(th.get<float>(2), 1.0f);
  EXPECT_EQ(th.get<float>(3), -1.0f);
  EXPECT_TRUE(std::isnan(th.get<float>(4)));
  EXPECT_EQ(th.get<float>(7), 1e-30f);
  Buf lg = Run1(Opcode::kLogistic, s, P::F32);
  EXPECT_EQ(lg.get<float>(0), 0.5f);
  EXPECT_EQ(lg.get<float>(2), 1.0f);
  EXPECT_EQ(lg.get<float>(3), 0.0f);
  EXPECT_TRUE(std::isnan(lg.get<float>(4)));
  // log1p and expm1: special values, signed zeros, tiny arguments.
  Buf l1 = Run1(Opcode::kLog1p, s, P::F32);
  EXPECT_EQ(BitsOfF32(l1.get<float>(0)), BitsOfF32(0.0f));
  EXPECT_EQ(BitsOfF32(l1.get<float>(1)), BitsOfF32(-0.0f));
  EXPECT_EQ(l1.get<float>(2), INFINITY);
  EXPECT_TRUE(std::isnan(l1.get<float>(3)));
  EXPECT_TRUE(std::isnan(l1.get<float>(4)));
  EXPECT_EQ(l1.get<float>(7), 1e-30f);
  EXPECT_EQ(Run1(Opcode::kLog1p, FloatBuf(P::F32, {-1}), P::F32).get<float>(0), -INFINITY);
  Buf em = Run1(Opcode::kExpm1, s, P::F32);
  EXPECT_EQ(BitsOfF32(em.get<float>(0)), BitsOfF32(0.0f));
  EXPECT_EQ(BitsOfF32(em.get<float>(1)), BitsOfF32(-0.0f));
  EXPECT_EQ(em.get<float>(2), INFINITY);
  EXPECT_EQ(em.get<float>(3), -1.0f);
  EXPECT_TRUE(std::isnan(em.get<float>(4)));
  EXPECT_EQ(em.get<float>(5), INFINITY);
  EXPECT_EQ(em.get<float>(6), -1.0f);
  EXPECT_EQ(em.get<float>(7), 1e-30f);
  Buf ef = Run1(Opcode::kErf, s, P::F32);
  EXPECT_EQ(BitsOfF32(ef.get<float>(0)), BitsOfF32(0.0f));
  EXPECT_EQ(BitsOfF32(ef.get<float>(1)), BitsOfF32(-0.0f));
  EXPECT_EQ(ef.get<float>(2), 1.0f);
  EXPECT_EQ(ef.get<float>(3), -1.0f);
  EXPECT_TRUE(std::isnan(ef.get<float>(4)));
  EXPECT_EQ(ef.get<float>(5), 1.0f);
  EXPECT_EQ(ef.get<float>(6), -1.0f);
  EXPECT_LE(UlpDistance(ef.get<float>(7), static_cast<float>(std::erf(static_cast<double>(1e-30f)))), 1);
  // Subnormal exp results round once.
  Buf sub = FloatBuf(P::F32, {-100, -103, -95.5});
  Buf es = Run1(Opcode::kExp, sub, P::F32);
  for (int i = 0; i < 3; ++i) {
    float x = sub.get<float>(i);
    EXPECT_LE(UlpDistance(es.get<float>(i), static_cast<float>(std::exp(static_cast<double>(x)))), 1) << x;
  }
}

// Dense sweep of the vectorised f32 functions over (nearly) every input
// bit pattern: every 127th f32 in the interesting range.
TEST(ElementwiseFloatTest, F32VectorisedFunctionsDenseSweep) {
  std::vector<float> xs;
  for (uint64_t u = 0; u < 0x100000000ull; u += 127) {
    float x = F32FromBits(static_cast<uint32_t>(u));
    if (std::isfinite(x) && std::fabs(x) < 120.0f) xs.push_back(x);
  }
  Buf a = MakeBuf(P::F32, static_cast<int64_t>(xs.size()));
  for (size_t i = 0; i < xs.size(); ++i) a.set(static_cast<int64_t>(i), xs[i]);
  struct Case { Opcode op; double (*ref)(double); int max_ulp; };
  const Case cases[] = {
      {Opcode::kExp, [](double x) { return std::exp(x); }, 1},
      {Opcode::kTanh, [](double x) { return std::tanh(x); }, 2},
      {Opcode::kLogistic, [](double x) { return 1 / (1 + std::exp(-x)); }, 2},
      {Opcode::kLog1p, [](double x) { return std::log1p(x); }, 2},
      {Opcode::kExpm1, [](double x) { return std::expm1(x); }, 2},
      {Opcode::kErf, [](double x) { return std::erf(x); }, 2},
  };
  for (const auto& c : cases) {
    Buf r = Run1(c.op, a, P::F32);
    int64_t worst = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      float want = static_cast<float>(c.ref(xs[i]));
      float got = r.get<float>(static_cast<int64_t>(i));
      if (std::isnan(want) || std::isinf(want)) {  // log1p below -1 and at -1, expm1 overflow
        ASSERT_TRUE(std::isnan(want) ? std::isnan(got) : got == want) << OpcodeName(c.op) << " x=" << xs[i];
        continue;
      }
      if (std::fabs(want) < 1.1754944e-38f) {  // subnormal/zero result: absolute check
        ASSERT_LE(std::fabs(got - want), 1.5e-45f) << OpcodeName(c.op) << " x=" << xs[i];
        continue;
      }
      int64_t d = UlpDistance(got, want);
      worst = std::max(worst, d);
      ASSERT_LE(d, c.max_ulp) << OpcodeName(c.op) << " x=" << xs[i] << " got " << got << " want " << want;
    }
    RecordProperty(std::string("sweep_") + std::string(OpcodeName(c.op)), static_cast<int>(worst));
  }
}

TEST(ElementwiseFloatTest, MaxMinNanAndSignedZero) {
  Buf a = FloatBuf(P::F32, {kNaN, 1, 0.0, -0.0, -kInf});
  Buf b = FloatBuf(P::F32, {1, kNaN, -0.0, 0.0, kNaN});
  Buf mx = Run2(Opcode::kMaximum, a, b, P::F32);
  Buf mn = Run2(Opcode::kMinimum, a, b, P::F32);
  EXPECT_TRUE(std::isnan(mx.get<float>(0)));
  EXPECT_TRUE(std::isnan(mx.get<float>(1)));
  EXPECT_TRUE(std::isnan(mn.get<float>(0)));
  EXPECT_TRUE(std::isnan(mn.get<float>(1)));
  EXPECT_TRUE(std::isnan(mn.get<float>(4)));
  EXPECT_EQ(BitsOfF32(mx.get<float>(2)), BitsOfF32(0.0f));  // max(+0, -0) = +0
  EXPECT_EQ(BitsOfF32(mx.get<float>(3)), BitsOfF32(0.0f));
  EXPECT_EQ(BitsOfF32(mn.get<float>(2)), BitsOfF32(-0.0f));  // min(+0, -0) = -0
  EXPECT_EQ(BitsOfF32(mn.get<float>(3)), BitsOfF32(-0.0f));
  // bf16 as well (computed through f32)
  Buf ha = FloatBuf(P::BF16, {kNaN, 3}), hb = FloatBuf(P::BF16, {2, kNaN});
  Buf hm = Run2(Opcode::kMaximum, ha, hb, P::BF16);
  EXPECT_TRUE(IsNanBits(P::BF16, hm.bits(0)));
  EXPECT_TRUE(IsNanBits(P::BF16, hm.bits(1)));
  // clamp propagates NaN from any operand
  Buf c = Run3(Opcode::kClamp, FloatBuf(P::F32, {kNaN, 0, 0}), FloatBuf(P::F32, {1, kNaN, 1}),
               FloatBuf(P::F32, {2, 2, kNaN}), P::F32);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(std::isnan(c.get<float>(i))) << i;
}

TEST(ElementwiseFloatTest, SignRoundRemainderAtan2Pow) {
  Buf s = Run1(Opcode::kSign, FloatBuf(P::F32, {kNaN, 0.0, -0.0, -3, 5e-40, -kInf}), P::F32);
  EXPECT_TRUE(std::isnan(s.get<float>(0)));
  EXPECT_EQ(BitsOfF32(s.get<float>(1)), BitsOfF32(0.0f));
  EXPECT_EQ(BitsOfF32(s.get<float>(2)), BitsOfF32(-0.0f));
  EXPECT_EQ(s.get<float>(3), -1.0f);
  EXPECT_EQ(s.get<float>(4), 1.0f);  // subnormal
  EXPECT_EQ(s.get<float>(5), -1.0f);

  Buf x = FloatBuf(P::F64, {0.5, 1.5, 2.5, -0.5, -2.5, 3.5000001, -0.49999999999999994});
  Buf afz = Run1(Opcode::kRoundNearestAfz, x, P::F64);
  Buf even = Run1(Opcode::kRoundNearestEven, x, P::F64);
  const double want_afz[] = {1, 2, 3, -1, -3, 4, -0.0};
  const double want_even[] = {0, 2, 2, -0.0, -2, 4, -0.0};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(BitsOfF64(afz.get<double>(i)), BitsOfF64(want_afz[i])) << i;
    EXPECT_EQ(BitsOfF64(even.get<double>(i)), BitsOfF64(want_even[i])) << i;
  }
  // remainder = fmod: sign of the dividend; x % 0 = NaN; inf % y = NaN; x % inf = x
  Buf ra = FloatBuf(P::F32, {5.5, -5.5, 1, kInf, 3, -0.0});
  Buf rb = FloatBuf(P::F32, {-2, 2, 0, 2, kInf, 1});
  Buf r = Run2(Opcode::kRemainder, ra, rb, P::F32);
  EXPECT_EQ(r.get<float>(0), 1.5f);
  EXPECT_EQ(r.get<float>(1), -1.5f);
  EXPECT_TRUE(std::isnan(r.get<float>(2)));
  EXPECT_TRUE(std::isnan(r.get<float>(3)));
  EXPECT_EQ(r.get<float>(4), 3.0f);
  EXPECT_EQ(BitsOfF32(r.get<float>(5)), BitsOfF32(-0.0f));
  // atan2(y, x) quadrants and signed zeros
  Buf y = FloatBuf(P::F64, {0.0, -0.0, 0.0, -0.0, 1, -1, 1, kInf});
  Buf xx = FloatBuf(P::F64, {0.0, 0.0, -0.0, -0.0, -1, -1, 0, kInf});
  Buf at = Run2(Opcode::kAtan2, y, xx, P::F64);
  const double pi = 3.14159265358979323846;
  EXPECT_EQ(BitsOfF64(at.get<double>(0)), BitsOfF64(0.0));
  EXPECT_EQ(BitsOfF64(at.get<double>(1)), BitsOfF64(-0.0));
  EXPECT_DOUBLE_EQ(at.get<double>(2), pi);
  EXPECT_DOUBLE_EQ(at.get<double>(3), -pi);
  EXPECT_DOUBLE_EQ(at.get<double>(4), 3 * pi / 4);
  EXPECT_DOUBLE_EQ(at.get<double>(5), -3 * pi / 4);
  EXPECT_DOUBLE_EQ(at.get<double>(6), pi / 2);
  EXPECT_DOUBLE_EQ(at.get<double>(7), pi / 4);
  // pow: 0^0 = 1, NaN^0 = 1, 1^NaN = 1, (-8)^(1/3) = NaN, 0^-1 = inf
  Buf pa = FloatBuf(P::F32, {0, kNaN, 1, -8, 0, -2});
  Buf pb = FloatBuf(P::F32, {0, 0, kNaN, 1.0 / 3, -1, 3});
  Buf pw = Run2(Opcode::kPower, pa, pb, P::F32);
  EXPECT_EQ(pw.get<float>(0), 1.0f);
  EXPECT_EQ(pw.get<float>(1), 1.0f);
  EXPECT_EQ(pw.get<float>(2), 1.0f);
  EXPECT_TRUE(std::isnan(pw.get<float>(3)));
  EXPECT_EQ(pw.get<float>(4), INFINITY);
  EXPECT_EQ(pw.get<float>(5), -8.0f);
}

TEST(ElementwiseFloatTest, CompareIeeeAndTotalOrder) {
  // IEEE: NaN unordered; EQ false, NE true; -0 == +0
  Buf a = FloatBuf(P::F32, {kNaN, 0.0, kNaN});
  Buf b = FloatBuf(P::F32, {1, -0.0, kNaN});
  EXPECT_EQ(Run2(Opcode::kCompare, a, b, P::PRED, Cmp(ComparisonDirection::kEq)).bytes,
            (std::vector<unsigned char>{0, 1, 0}));
  EXPECT_EQ(Run2(Opcode::kCompare, a, b, P::PRED, Cmp(ComparisonDirection::kNe)).bytes,
            (std::vector<unsigned char>{1, 0, 1}));
  EXPECT_EQ(Run2(Opcode::kCompare, a, b, P::PRED, Cmp(ComparisonDirection::kGe)).bytes,
            (std::vector<unsigned char>{0, 1, 0}));
  // Total order: -NaN < -inf < -1 < -0 < +0 < 1 < inf < +NaN, for several types.
  for (P t : {P::F32, P::F64, P::F16, P::BF16, P::F8E5M2, P::F8E4M3}) {
    std::vector<uint64_t> ordered;
    auto enc = [&](double v) -> uint64_t {
      if (t == P::F32) return BitsOfF32(static_cast<float>(v));
      if (t == P::F64) return BitsOfF64(v);
      return EncodeFloat(t, v);
    };
    ordered.push_back(enc(-kNaN));
    ordered.push_back(enc(-kInf));
    ordered.push_back(enc(-1));
    ordered.push_back(enc(-0.0));
    ordered.push_back(enc(0.0));
    ordered.push_back(enc(1));
    ordered.push_back(enc(kInf));
    ordered.push_back(enc(kNaN));
    int n = static_cast<int>(ordered.size());
    Buf x = MakeBuf(t, n * n), y = MakeBuf(t, n * n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        x.set_bits(i * n + j, ordered[i]);
        y.set_bits(i * n + j, ordered[j]);
      }
    }
    ASSERT_TRUE(std::signbit(DecodeFloat(t, ordered[0]))) << PrimitiveTypeName(t);
    for (auto d : {ComparisonDirection::kLt, ComparisonDirection::kEq, ComparisonDirection::kGe,
                   ComparisonDirection::kNe, ComparisonDirection::kGt, ComparisonDirection::kLe}) {
      Buf r = Run2(Opcode::kCompare, x, y, P::PRED, Cmp(d, ComparisonType::kTotalOrder));
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
          bool want = d == ComparisonDirection::kLt ? i < j : d == ComparisonDirection::kEq ? i == j
                    : d == ComparisonDirection::kGe ? i >= j : d == ComparisonDirection::kNe ? i != j
                    : d == ComparisonDirection::kGt ? i > j : i <= j;
          ASSERT_EQ(r.bits(i * n + j), want ? 1u : 0u) << PrimitiveTypeName(t) << " " << i << " " << j;
        }
      }
    }
  }
  // fnuz: the single NaN (0x80) sits between the negatives and +0 (bit order).
  Buf fa = MakeBuf(P::F8E4M3FNUZ, 2), fb = MakeBuf(P::F8E4M3FNUZ, 2);
  fa.set_bits(0, 0x80); fb.set_bits(0, 0x00);
  fa.set_bits(1, 0x80); fb.set_bits(1, EncodeFloat(P::F8E4M3FNUZ, -0.0078125));
  Buf fr = Run2(Opcode::kCompare, fa, fb, P::PRED, Cmp(ComparisonDirection::kLt, ComparisonType::kTotalOrder));
  EXPECT_EQ(fr.bits(0), 1u);
  EXPECT_EQ(fr.bits(1), 0u);
  // f8e8m0fnu has no sign: bits compare as unsigned (2^1 > 2^-1).
  Buf ea = FloatBuf(P::F8E8M0FNU, {2}), eb = FloatBuf(P::F8E8M0FNU, {0.5});
  EXPECT_EQ(Run2(Opcode::kCompare, ea, eb, P::PRED, Cmp(ComparisonDirection::kGt, ComparisonType::kTotalOrder)).bits(0), 1u);
  // f4e2m1fn: sign at bit 3 of the nibble
  Buf qa = FloatBuf(P::F4E2M1FN, {-0.5, -0.0}), qb = FloatBuf(P::F4E2M1FN, {0.5, 0.0});
  Buf qr = Run2(Opcode::kCompare, qa, qb, P::PRED, Cmp(ComparisonDirection::kLt, ComparisonType::kTotalOrder));
  EXPECT_EQ(qr.bits(0), 1u);
  EXPECT_EQ(qr.bits(1), 1u);
  // SIGNED on floats is rejected.
  EXPECT_FALSE(SelectElementwiseKernel(Opcode::kCompare, {P::F32, P::F32}, P::PRED,
                                       Cmp(ComparisonDirection::kEq, ComparisonType::kSigned)).ok());
}

TEST(ElementwiseFloatTest, ReducePrecision) {
  ElementwiseAttrs at;
  at.exponent_bits = 5;
  at.mantissa_bits = 10;
  // f32 -> (5, 10) behaves like an f16 round trip for normal-range values,
  // overflow -> inf, below the f16 normal range -> signed zero (XLA flushes).
  Buf x = FloatBuf(P::F32, {1.0 + 1.0 / 4096, 1.0 + 3.0 / 4096, 65504, 65520, 1e6, -1e6, 1e-6,
                            -1e-6, 6.103515625e-05, kNaN, -kInf});
  Buf r = Run1(Opcode::kReducePrecision, x, P::F32, at);
  EXPECT_EQ(r.get<float>(0), 1.0f);                    // tie -> even
  EXPECT_EQ(r.get<float>(1), 1.0f + 4.0f / 4096);      // tie -> even (up)
  EXPECT_EQ(r.get<float>(2), 65504.0f);
  EXPECT_EQ(r.get<float>(3), INFINITY);                // rounds up past max -> inf
  EXPECT_EQ(r.get<float>(4), INFINITY);
  EXPECT_EQ(r.get<float>(5), -INFINITY);
  EXPECT_EQ(BitsOfF32(r.get<float>(6)), BitsOfF32(0.0f));
  EXPECT_EQ(BitsOfF32(r.get<float>(7)), BitsOfF32(-0.0f));
  EXPECT_EQ(r.get<float>(8), 6.103515625e-05f);        // smallest normal kept
  EXPECT_TRUE(std::isnan(r.get<float>(9)));
  EXPECT_EQ(r.get<float>(10), -INFINITY);
  // more bits than the type: no-op
  at.exponent_bits = 11;
  at.mantissa_bits = 52;
  Buf same = Run1(Opcode::kReducePrecision, x, P::F32, at);
  for (int64_t i = 0; i < x.n(); ++i) EXPECT_TRUE(SameFloat(same.get<float>(i), x.get<float>(i)));
  // mantissa_bits = 0: NaN -> inf
  at.exponent_bits = 8;
  at.mantissa_bits = 0;
  Buf z = Run1(Opcode::kReducePrecision, FloatBuf(P::F32, {kNaN, 3}), P::F32, at);
  EXPECT_EQ(z.get<float>(0), INFINITY);
  EXPECT_EQ(z.get<float>(1), 2.0f);  // tie: XLA rounds to the even exponent
  // f16 operand reduced in its own format (subnormal f16 kept with e=5).
  at.exponent_bits = 5;
  at.mantissa_bits = 3;
  Buf h = FloatBuf(P::F16, {1.0 + 1.0 / 16, 1.0 + 3.0 / 16});
  Buf hr = Run1(Opcode::kReducePrecision, h, P::F16, at);
  EXPECT_EQ(DecodeFloat(P::F16, hr.bits(0)), 1.0);
  EXPECT_EQ(DecodeFloat(P::F16, hr.bits(1)), 1.25);
  // f64
  at.exponent_bits = 8;
  at.mantissa_bits = 7;
  Buf d = Run1(Opcode::kReducePrecision, FloatBuf(P::F64, {1.0 + 1.0 / 256 + 1e-10}), P::F64, at);
  EXPECT_EQ(d.get<double>(0), 1.0 + 1.0 / 128);
  at.exponent_bits = 0;
  EXPECT_FALSE(SelectElementwiseKernel(Opcode::kReducePrecision, {P::F32}, P::F32, at).ok());
}

// f32 with the full exponent (exponent_bits >= 8) only rounds the
// mantissa: the vectorised loop gives float_format's bits for every sign
// and exponent, mantissas around the rounding ties, NaNs (kept) and
// overflow into inf, at several mantissa widths (bf16's (8, 7) included).
TEST(ElementwiseFloatTest, ReducePrecisionOfTheMantissaMatchesFloatFormat) {
  std::vector<uint32_t> patterns;
  const uint32_t tails[] = {0x0u, 0x1u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu, 0x10000u, 0x18000u,
                            0x3fffffu, 0x400000u, 0x400001u, 0x7fffffu, 0x12345u, 0x6b8000u};
  for (uint32_t sign = 0; sign < 2; ++sign)
    for (uint32_t exponent = 0; exponent < 256; ++exponent)
      for (uint32_t tail : tails) patterns.push_back(sign << 31 | exponent << 23 | tail);
  for (uint32_t i = 0; i < 4096; ++i) patterns.push_back(i * 2654435761u);  // scattered
  Buf x = MakeBuf(P::F32, static_cast<int64_t>(patterns.size()));
  for (size_t i = 0; i < patterns.size(); ++i) x.set_bits(static_cast<int64_t>(i), patterns[i]);
  for (const auto& [e, m] : std::vector<std::pair<int, int>>{{8, 7}, {8, 0}, {8, 10}, {8, 22}, {11, 7}, {9, 3}}) {
    ElementwiseAttrs at;
    at.exponent_bits = e;
    at.mantissa_bits = m;
    Buf r = Run1(Opcode::kReducePrecision, x, P::F32, at);
    for (size_t i = 0; i < patterns.size(); ++i) {
      const float in = x.get<float>(static_cast<int64_t>(i));
      ASSERT_EQ(BitsOfF32(r.get<float>(static_cast<int64_t>(i))), BitsOfF32(ReducePrecision(in, e, m)))
          << "bits 0x" << std::hex << patterns[i] << std::dec << " at (" << e << ", " << m << ")";
    }
  }
}

TEST(ElementwiseFloatTest, FastHalfConversionsMatchFloatFormat) {
  // Every f16/bf16 bit pattern decodes exactly; f32 -> f16/bf16 rounds like
  // float_format (NaN: quiet NaN of the same sign).
  Buf h = MakeBuf(P::F16, 65536), bf = MakeBuf(P::BF16, 65536);
  for (int i = 0; i < 65536; ++i) {
    h.set_bits(i, i);
    bf.set_bits(i, i);
  }
  Buf hf = RunOp(Opcode::kConvert, {&h}, P::F32);
  Buf bff = RunOp(Opcode::kConvert, {&bf}, P::F32);
  for (int i = 0; i < 65536; ++i) {
    ASSERT_TRUE(SameFloat(hf.get<float>(i), DecodeFloatToFloat(P::F16, i))) << i;
    ASSERT_TRUE(SameFloat(bff.get<float>(i), DecodeFloatToFloat(P::BF16, i))) << i;
  }
  std::mt19937_64 rng(5);
  const int64_t n = 200000;
  Buf f = RandomBuf(P::F32, n, rng);
  for (int64_t i = 0; i < n; i += 2) {  // concentrate half of them near the f16 range
    f.set(i, F32FromBits((f.bits(i) & 0x83ffffffu) | 0x30000000u) * ((i % 3) ? 1.0f : 1e-3f));
  }
  Buf fh = RunOp(Opcode::kConvert, {&f}, P::F16);
  Buf fb = RunOp(Opcode::kConvert, {&f}, P::BF16);
  for (int64_t i = 0; i < n; ++i) {
    float x = f.get<float>(i);
    for (auto [t, got] : {std::pair{P::F16, fh.bits(i)}, std::pair{P::BF16, fb.bits(i)}}) {
      uint64_t want = EncodeFloat(t, x);
      if (std::isnan(x)) {
        ASSERT_TRUE(IsNanBits(t, got));
        ASSERT_EQ(SignBit(t, got), std::signbit(x));
      } else {
        ASSERT_EQ(got, want) << PrimitiveTypeName(t) << " " << x;
      }
    }
  }
}

}  // namespace
}  // namespace hlo::cpu
