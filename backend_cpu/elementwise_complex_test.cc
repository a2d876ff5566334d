// Complex kernels vs std::complex references and XLA's edge cases; plus
// RunElementwise giving identical bytes for any pool width.
#include <cmath>
#include <complex>
#include <limits>

#include "backend_cpu/thread_pool.h"
#include "backend_cpu/ew_test_util.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

using namespace hlo::cpu::testing;  // NOLINT
using P = PrimitiveType;
using C = std::complex<double>;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Buf CBuf(std::initializer_list<C> v) {
  Buf b = MakeBuf(P::C128, static_cast<int64_t>(v.size()));
  int64_t i = 0;
  for (C c : v) b.set(i++, c);
  return b;
}

bool Near(C a, C b, double tol = 1e-12) {
  return std::abs(a - b) <= tol * std::max(1.0, std::abs(b));
}

TEST(ElementwiseComplexTest, RandomVsStdComplex) {
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> d(-3, 3);
  const int n = 500;
  Buf a = MakeBuf(P::C128, n), b = MakeBuf(P::C128, n), a64 = MakeBuf(P::C64, n);
  for (int i = 0; i < n; ++i) {
    a.set(i, C(d(rng), d(rng)));
    b.set(i, C(d(rng), d(rng)));
    C x = a.get<C>(i);
    a64.set(i, std::complex<float>(static_cast<float>(x.real()), static_cast<float>(x.imag())));
    a.set(i, C(a64.get<std::complex<float>>(i)));  // same values in both precisions
  }
  struct Un { Opcode op; C (*ref)(C); };
  const Un uns[] = {
      {Opcode::kExp, [](C z) { return std::exp(z); }},
      {Opcode::kExpm1, [](C z) { return std::exp(z) - 1.0; }},
      {Opcode::kLog, [](C z) { return std::log(z); }},
      {Opcode::kLog1p, [](C z) { return std::log(1.0 + z); }},
      {Opcode::kSqrt, [](C z) { return std::sqrt(z); }},
      {Opcode::kRsqrt, [](C z) { return 1.0 / std::sqrt(z); }},
      {Opcode::kCbrt, [](C z) { return std::pow(z, 1.0 / 3); }},
      {Opcode::kSin, [](C z) { return std::sin(z); }},
      {Opcode::kCos, [](C z) { return std::cos(z); }},
      {Opcode::kTan, [](C z) { return std::tan(z); }},
      {Opcode::kTanh, [](C z) { return std::tanh(z); }},
      {Opcode::kNegate, [](C z) { return -z; }},
      {Opcode::kSign, [](C z) { return z / std::abs(z); }},
      {Opcode::kLogistic, [](C z) { return 1.0 / (1.0 + std::exp(-z)); }},
      {Opcode::kAsinh, [](C z) { return std::asinh(z); }},
  };
  for (const auto& c : uns) {
    Buf r = Run1(c.op, a, P::C128);
    Buf r64 = Run1(c.op, a64, P::C64);
    for (int i = 0; i < n; ++i) {
      C want = c.ref(a.get<C>(i));
      ASSERT_TRUE(Near(r.get<C>(i), want, 1e-9)) << OpcodeName(c.op) << " " << a.get<C>(i) << " " << r.get<C>(i);
      ASSERT_TRUE(Near(C(r64.get<std::complex<float>>(i)), want, 2e-4))
          << OpcodeName(c.op) << " c64 " << a.get<C>(i);
    }
  }
  struct Bin { Opcode op; C (*ref)(C, C); };
  const Bin bins[] = {
      {Opcode::kAdd, [](C x, C y) { return x + y; }},
      {Opcode::kSubtract, [](C x, C y) { return x - y; }},
      {Opcode::kMultiply, [](C x, C y) { return x * y; }},
      {Opcode::kDivide, [](C x, C y) { return x / y; }},
      {Opcode::kPower, [](C x, C y) { return std::pow(x, y); }},
  };
  for (const auto& c : bins) {
    Buf r = Run2(c.op, a, b, P::C128);
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(Near(r.get<C>(i), c.ref(a.get<C>(i), b.get<C>(i)), 1e-9)) << OpcodeName(c.op);
    }
  }
  Buf ab = Run1(Opcode::kAbs, a, P::F64), re = Run1(Opcode::kReal, a, P::F64), im = Run1(Opcode::kImag, a, P::F64);
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(ab.get<double>(i), std::abs(a.get<C>(i)), 1e-14 * std::abs(a.get<C>(i)));
    EXPECT_EQ(re.get<double>(i), a.get<C>(i).real());
    EXPECT_EQ(im.get<double>(i), a.get<C>(i).imag());
  }
}

TEST(ElementwiseComplexTest, EdgeCases) {
  // abs: huge parts do not overflow; (inf, NaN) -> inf... XLA returns min for NaN results
  Buf a = CBuf({C(3e300, 4e300), C(0, 0), C(kInf, 1), C(-0.0, 0)});
  Buf ab = Run1(Opcode::kAbs, a, P::F64);
  EXPECT_DOUBLE_EQ(ab.get<double>(0), 5e300);
  EXPECT_EQ(ab.get<double>(1), 0.0);
  EXPECT_EQ(ab.get<double>(2), kInf);
  // sign(0) = 0; sign(3+4i) = 0.6+0.8i
  Buf s = Run1(Opcode::kSign, CBuf({C(0, 0), C(3, 4)}), P::C128);
  EXPECT_EQ(s.get<C>(0), C(0, 0));
  EXPECT_TRUE(Near(s.get<C>(1), C(0.6, 0.8)));
  // power: 0^0 = 1, 0^2 = 0, 0^(0+1i) -> formula (NaN), 1^x = 1
  Buf pb = CBuf({C(0, 0), C(0, 0), C(2, 0), C(-1, 0)});
  Buf pe = CBuf({C(0, 0), C(2, 0), C(0, 0), C(0.5, 0)});
  Buf pw = Run2(Opcode::kPower, pb, pe, P::C128);
  EXPECT_EQ(pw.get<C>(0), C(1, 0));
  EXPECT_EQ(pw.get<C>(1), C(0, 0));
  EXPECT_EQ(pw.get<C>(2), C(1, 0));
  EXPECT_TRUE(Near(pw.get<C>(3), C(0, 1)));  // principal sqrt(-1)
  // sqrt / log branch cut: sqrt(-4 + 0i) = 2i, sqrt(-4 - 0i) = -2i, log(-1) = i pi
  Buf sq = Run1(Opcode::kSqrt, CBuf({C(-4, 0.0), C(-4, -0.0)}), P::C128);
  EXPECT_TRUE(Near(sq.get<C>(0), C(0, 2)));
  EXPECT_TRUE(Near(sq.get<C>(1), C(0, -2)));
  Buf lg = Run1(Opcode::kLog, CBuf({C(-1, 0), C(0, 0)}), P::C128);
  EXPECT_TRUE(Near(lg.get<C>(0), C(0, 3.14159265358979323846)));
  EXPECT_EQ(lg.get<C>(1).real(), -kInf);
  // exp(inf + 0i) = inf; exp(-inf + 0i) = 0
  Buf ex = Run1(Opcode::kExp, CBuf({C(kInf, 0), C(-kInf, 0)}), P::C128);
  EXPECT_EQ(ex.get<C>(0).real(), kInf);
  EXPECT_EQ(ex.get<C>(1), C(0, 0));
  // rsqrt(0) = (inf, NaN)
  Buf rs = Run1(Opcode::kRsqrt, CBuf({C(0, 0)}), P::C128);
  EXPECT_EQ(rs.get<C>(0).real(), kInf);
  EXPECT_TRUE(std::isnan(rs.get<C>(0).imag()));
  // division by zero -> infinities; finite / inf -> 0
  Buf dv = Run2(Opcode::kDivide, CBuf({C(1, 1), C(1, 2)}), CBuf({C(0, 0), C(kInf, 0)}), P::C128);
  EXPECT_EQ(dv.get<C>(0).real(), kInf);
  EXPECT_EQ(dv.get<C>(0).imag(), kInf);
  EXPECT_EQ(dv.get<C>(1), C(0, 0));
  // compare: EQ needs both parts equal, NE is unordered; LT is rejected
  Buf x = CBuf({C(1, 2), C(1, 2), C(kNaN, 0)}), y = CBuf({C(1, 2), C(1, 3), C(kNaN, 0)});
  EXPECT_EQ(Run2(Opcode::kCompare, x, y, P::PRED, Cmp(ComparisonDirection::kEq)).bytes,
            (std::vector<unsigned char>{1, 0, 0}));
  EXPECT_EQ(Run2(Opcode::kCompare, x, y, P::PRED, Cmp(ComparisonDirection::kNe)).bytes,
            (std::vector<unsigned char>{0, 1, 1}));
  EXPECT_FALSE(SelectElementwiseKernel(Opcode::kCompare, {P::C64, P::C64}, P::PRED,
                                       Cmp(ComparisonDirection::kLt)).ok());
  EXPECT_FALSE(SelectElementwiseKernel(Opcode::kCompare, {P::C64, P::C64}, P::PRED,
                                       Cmp(ComparisonDirection::kEq, ComparisonType::kTotalOrder)).ok());
  // complex(re, im)
  Buf re = FloatBuf(P::F32, {1, -0.0}), imb = FloatBuf(P::F32, {2, kNaN});
  Buf cm = Run2(Opcode::kComplex, re, imb, P::C64);
  EXPECT_EQ(cm.get<std::complex<float>>(0), std::complex<float>(1, 2));
  EXPECT_TRUE(std::signbit(cm.get<std::complex<float>>(1).real()));
  EXPECT_FALSE(SelectElementwiseKernel(Opcode::kComplex, {P::F32, P::F32}, P::C128, {}).ok());
  // no ordering ops on complex
  EXPECT_FALSE(SelectElementwiseKernel(Opcode::kMaximum, {P::C64, P::C64}, P::C64, {}).ok());
  EXPECT_FALSE(SelectElementwiseKernel(Opcode::kFloor, {P::C64}, P::C64, {}).ok());
}

TEST(ElementwiseComplexTest, EveryElementwiseOpcodeHasAKernel) {
  // For each elementwise opcode, at least one representative type works.
  int covered = 0;
  for (Opcode op : AllOpcodes()) {
    if (!IsElementwise(op) || op == Opcode::kMap) continue;
    std::vector<std::vector<PrimitiveType>> tries;
    int arity = OpcodeArity(op);
    PrimitiveType result = P::F32;
    std::vector<PrimitiveType> ops(arity, P::F32);
    ElementwiseAttrs at;
    at.exponent_bits = 5;
    at.mantissa_bits = 10;
    switch (op) {
      case Opcode::kAnd: case Opcode::kOr: case Opcode::kXor: case Opcode::kNot:
      case Opcode::kClz: case Opcode::kPopulationCount: case Opcode::kShiftLeft:
      case Opcode::kShiftRightArithmetic: case Opcode::kShiftRightLogical: case Opcode::kMulhi:
        ops.assign(arity, P::S32);
        result = P::S32;
        break;
      case Opcode::kCompare: case Opcode::kIsFinite: result = P::PRED; break;
      case Opcode::kComplex: result = P::C64; break;
      case Opcode::kSelect: ops[0] = P::PRED; break;
      case Opcode::kStochasticConvert: ops[1] = P::U32; result = P::S8; break;
      case Opcode::kConvert: result = P::F8E4M3FN; break;
      default: break;
    }
    auto k = SelectElementwiseKernel(op, ops, result, at);
    EXPECT_TRUE(k.ok()) << OpcodeName(op) << ": " << k.status();
    ++covered;
  }
  EXPECT_EQ(covered, 57);  // every elementwise opcode but map
}

TEST(ElementwiseComplexTest, RunElementwiseSameBytesForAnyWidth) {
  int saved = ThreadPoolWidth();
  std::mt19937_64 rng(8);
  const int64_t n = 300000;
  Buf a = RandomFloats(P::F32, n, -20, 20, rng), b = RandomFloats(P::F32, n, -20, 20, rng);
  auto k = SelectElementwiseKernel(Opcode::kAtan2, {P::F32, P::F32}, P::F32, {});
  ASSERT_TRUE(k.ok());
  std::vector<std::vector<unsigned char>> outs;
  for (int w : {1, 2, 3}) {
    SetThreadPoolWidth(w);
    Buf out = MakeBuf(P::F32, n);
    const void* ins[] = {a.bytes.data(), b.bytes.data()};
    RunElementwise(*k, ins, out.bytes.data(), n, {});
    outs.push_back(out.bytes);
  }
  SetThreadPoolWidth(saved);
  EXPECT_EQ(outs[0], outs[1]);
  EXPECT_EQ(outs[0], outs[2]);
}

}  // namespace
}  // namespace hlo::cpu
