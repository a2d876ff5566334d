// The runtime-dispatched (ISA-cloned) f32/f64 loops and the branch-free f32
// functions of ew_math.h: every clone computes exactly what the scalar
// baseline formula computes (this test TU is compiled for baseline x86-64,
// the kernel runs the widest clone the CPU has), results do not depend on
// the thread count, Log's accuracy and special values, and the elementwise
// family writes every slot of its (uninitialised) result, also through the
// scalar-broadcast and relayout paths.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/ew_math.h"
#include "backend_cpu/ew_test_util.h"
#include "backend_cpu/thread_pool.h"
#include "gtest/gtest.h"
#include "ir/literal.h"

namespace hlo::cpu {
namespace {

using namespace hlo::cpu::testing;  // NOLINT
using P = PrimitiveType;
constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr float kNaNF = std::numeric_limits<float>::quiet_NaN();

bool SameBits(float a, float b) {
  if (a != a || b != b) return a != a && b != b;
  return BitsOfF32(a) == BitsOfF32(b);
}

// Random values in [-range, range], random bit patterns and specials.
Buf MixedF32(int64_t n, float range, std::mt19937_64& rng) {
  Buf b = MakeBuf(P::F32, n);
  std::uniform_real_distribution<float> d(-range, range);
  const float specials[] = {0.0f, -0.0f, kInfF, -kInfF, kNaNF, 1e-45f, -1e-45f, 1.17549435e-38f,
                            0.625f, -0.625f, 9.0f, 10.0f, 88.8f, -104.0f, 1.0f, -1.0f};
  for (int64_t i = 0; i < n; ++i) {
    float v;
    if (i < 16) v = specials[i];
    else if (i % 5 == 0) v = F32FromBits(static_cast<uint32_t>(rng()));
    else v = d(rng);
    b.set(i, v);
  }
  return b;
}

// Runs the kernel of (op, f32...) over all of `in` with the default block
// size (so large inputs span many blocks and both threads).
Buf RunBig(Opcode op, const std::vector<const Buf*>& in, P result, const ElementwiseAttrs& at = {}) {
  std::vector<PrimitiveType> types(in.size(), in[0]->type);
  absl::StatusOr<ElementwiseKernel> k = SelectElementwiseKernel(op, types, result, at);
  EXPECT_TRUE(k.ok()) << k.status();
  const int64_t n = in[0]->n();
  Buf out = MakeBuf(result, n);
  if (!k.ok()) return out;
  std::vector<const void*> ptrs;
  for (const Buf* b : in) ptrs.push_back(b->bytes.data());
  RunElementwise(*k, ptrs, out.bytes.data(), n, at.params());
  return out;
}

TEST(ElementwiseDispatchTest, ClonesMatchScalarFormulas) {
  std::mt19937_64 rng(5);
  const int64_t n = 200003;
  Buf a = MixedF32(n, 12.0f, rng);
  Buf pos = MakeBuf(P::F32, n);
  for (int64_t i = 0; i < n; ++i) pos.set(i, std::fabs(a.get<float>(i)) * 1e3f);
  struct Case { Opcode op; const Buf* in; float (*ref)(float); };
  const Case cases[] = {
      {Opcode::kTanh, &a, [](float x) { return ew::math::Tanh(x); }},
      {Opcode::kExp, &a, [](float x) { return ew::math::Exp(x); }},
      {Opcode::kLogistic, &a, [](float x) { return ew::math::Logistic(x); }},
      {Opcode::kLog, &a, [](float x) { return ew::math::Log(x); }},
      {Opcode::kLog, &pos, [](float x) { return ew::math::Log(x); }},
      {Opcode::kSqrt, &pos, [](float x) { return std::sqrt(x); }},
      {Opcode::kRsqrt, &pos, [](float x) { return 1.0f / std::sqrt(x); }},
      {Opcode::kNegate, &a, [](float x) { return -x; }},
      {Opcode::kAbs, &a, [](float x) { return std::fabs(x); }},
      {Opcode::kFloor, &a, [](float x) { return std::floor(x); }},
      {Opcode::kCeil, &a, [](float x) { return std::ceil(x); }},
  };
  for (const Case& c : cases) {
    Buf r = RunBig(c.op, {c.in}, P::F32);
    for (int64_t i = 0; i < n; ++i) {
      float x = c.in->get<float>(i);
      ASSERT_TRUE(SameBits(r.get<float>(i), c.ref(x)))
          << OpcodeName(c.op) << " x=" << x << " got " << r.get<float>(i) << " want " << c.ref(x);
    }
  }
  Buf b = MixedF32(n, 12.0f, rng);
  struct Bin { Opcode op; float (*ref)(float, float); };
  const Bin bins[] = {
      {Opcode::kAdd, [](float x, float y) { return x + y; }},
      {Opcode::kSubtract, [](float x, float y) { return x - y; }},
      {Opcode::kMultiply, [](float x, float y) { return x * y; }},
      {Opcode::kDivide, [](float x, float y) { return x / y; }},
  };
  for (const Bin& c : bins) {
    Buf r = RunBig(c.op, {&a, &b}, P::F32);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_TRUE(SameBits(r.get<float>(i), c.ref(a.get<float>(i), b.get<float>(i))))
          << OpcodeName(c.op) << " " << a.get<float>(i) << ", " << b.get<float>(i);
    }
  }
}

// Exp, Tanh and Logistic run f32 spans in stages over chunks of 128
// (ew_math_spans.h): every length's tail chunk, every start within a
// vector, and the result written over the operand itself (in-place
// kernels) give the scalar function's bits.
TEST(ElementwiseDispatchTest, StagedSpansMatchScalarAtEveryLengthAndInPlace) {
  std::mt19937_64 rng(11);
  const int64_t n = 700;
  Buf a = MixedF32(n, 12.0f, rng);
  struct Case { Opcode op; float (*ref)(float); };
  const Case cases[] = {
      {Opcode::kExp, [](float x) { return ew::math::Exp(x); }},
      {Opcode::kTanh, [](float x) { return ew::math::Tanh(x); }},
      {Opcode::kLogistic, [](float x) { return ew::math::Logistic(x); }},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ElementwiseKernel> k = SelectElementwiseKernel(c.op, {P::F32}, P::F32, {});
    ASSERT_TRUE(k.ok()) << k.status();
    const KernelParams params = ElementwiseAttrs{}.params();
    for (int64_t begin : {int64_t{0}, int64_t{3}}) {
      for (int64_t end = begin; end <= n; end += (end < 300 ? 1 : 37)) {
        std::vector<float> y(n, -7.0f);
        const void* in[] = {a.bytes.data()};
        (*k)(in, y.data(), begin, end, params);
        for (int64_t i = 0; i < n; ++i) {
          const float want = i >= begin && i < end ? c.ref(a.get<float>(i)) : -7.0f;
          ASSERT_TRUE(SameBits(y[i], want)) << OpcodeName(c.op) << " [" << begin << ", " << end << ") at " << i;
        }
      }
    }
    std::vector<float> same(n);
    for (int64_t i = 0; i < n; ++i) same[i] = a.get<float>(i);
    const void* in[] = {same.data()};
    (*k)(in, same.data(), 0, n, params);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_TRUE(SameBits(same[i], c.ref(a.get<float>(i)))) << OpcodeName(c.op) << " in place at " << i;
  }
}

// Chunks whose results are all normal scale by one exponent add (the
// staged spans' fast form): the bits of the scalar functions over the whole
// range, chunks of normal results next to chunks with subnormal, overflowing,
// infinite and NaN ones, and the edges of the fast form (k = -125 and 127).
TEST(ElementwiseDispatchTest, StagedSpansOfNormalResultsMatchScalar) {
  std::vector<float> x;
  for (float lo = -105.0f; lo < 90.0f; lo += 0.75f)  // 128 values per step of 0.75
    for (int j = 0; j < 128; ++j) x.push_back(lo + 0.75f * static_cast<float>(j) / 128.0f);
  for (float edge : {-86.64f, -86.99f, -87.33f, -87.5f, 87.68f, 88.02f, 88.37f, 88.39f, 88.72f})
    for (int j = 0; j < 128; ++j) x.push_back(std::nextafter(edge, j % 2 ? 100.0f : -100.0f) + 1e-4f * (j / 2));
  for (int j = 0; j < 128; ++j) x.push_back(j == 77 ? std::nanf("") : j == 78 ? INFINITY : j == 79 ? -INFINITY : 1.0f);
  const int64_t n = static_cast<int64_t>(x.size());
  struct Case { Opcode op; float (*ref)(float); };
  const Case cases[] = {
      {Opcode::kExp, [](float v) { return ew::math::Exp(v); }},
      {Opcode::kLogistic, [](float v) { return ew::math::Logistic(v); }},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ElementwiseKernel> k = SelectElementwiseKernel(c.op, {P::F32}, P::F32, {});
    ASSERT_TRUE(k.ok()) << k.status();
    std::vector<float> y(n);
    const void* in[] = {x.data()};
    (*k)(in, y.data(), 0, n, ElementwiseAttrs{}.params());
    for (int64_t i = 0; i < n; ++i)
      ASSERT_TRUE(SameBits(y[i], c.ref(x[i]))) << OpcodeName(c.op) << " of " << x[i] << " at " << i;
  }
}

// The scalar-operand kernels (one element read for every position, either
// slot) give the bits of the ordinary kernel over a spread copy of that
// element; no other op or type has one.
TEST(ElementwiseDispatchTest, ScalarOperandKernelsMatchSpreadCopies) {
  std::mt19937_64 rng(71);
  const int64_t n = 1000;  // not a multiple of any vector width
  for (P t : {P::F32, P::F64}) {
    for (Opcode op : {Opcode::kAdd, Opcode::kSubtract, Opcode::kMultiply, Opcode::kDivide, Opcode::kMaximum,
                      Opcode::kMinimum}) {
      const Buf span = RandomBuf(t, n, rng);
      const Buf scalars = RandomBuf(t, 8, rng);
      for (int64_t v = 0; v < scalars.n(); ++v) {
        Buf spread = MakeBuf(t, n);
        for (int64_t i = 0; i < n; ++i) spread.set_bits(i, scalars.bits(v));
        for (int slot : {0, 1}) {
          const ElementwiseKernel k = SelectScalarOperandKernel(op, t, slot);
          ASSERT_NE(k, nullptr) << OpcodeName(op) << " slot " << slot;
          const Buf want = slot == 0 ? Run2(op, spread, span, t) : Run2(op, span, spread, t);
          Buf got = MakeBuf(t, n);
          const void* ins[2] = {slot == 0 ? scalars.bytes.data() + v * PrimitiveTypeByteSize(t) : span.bytes.data(),
                                slot == 1 ? scalars.bytes.data() + v * PrimitiveTypeByteSize(t) : span.bytes.data()};
          k(ins, got.bytes.data(), 0, n, KernelParams{});
          for (int64_t i = 0; i < n; ++i)
            ASSERT_EQ(got.bits(i), want.bits(i)) << OpcodeName(op) << " " << PrimitiveTypeName(t) << " slot "
                                                 << slot << " at " << i;
        }
      }
    }
  }
  EXPECT_EQ(SelectScalarOperandKernel(Opcode::kPower, P::F32, 1), nullptr);
  EXPECT_EQ(SelectScalarOperandKernel(Opcode::kAdd, P::BF16, 1), nullptr);
  EXPECT_EQ(SelectScalarOperandKernel(Opcode::kAdd, P::S32, 1), nullptr);
  EXPECT_EQ(SelectScalarOperandKernel(Opcode::kAdd, P::F32, 2), nullptr);
}

TEST(ElementwiseDispatchTest, ResultsIndependentOfThreadCount) {
  std::mt19937_64 rng(9);
  const int64_t n = (int64_t{1} << 18) + 77;  // many blocks, ragged tail
  Buf a = MixedF32(n, 20.0f, rng), b = MixedF32(n, 20.0f, rng), c = MixedF32(n, 20.0f, rng);
  const int width = ThreadPoolWidth();
  auto run_all = [&]() {
    std::vector<Buf> out;
    for (Opcode op : {Opcode::kTanh, Opcode::kExp, Opcode::kLog, Opcode::kLogistic, Opcode::kSqrt,
                      Opcode::kRsqrt, Opcode::kNegate, Opcode::kSign, Opcode::kRoundNearestEven}) {
      out.push_back(RunBig(op, {&a}, P::F32));
    }
    for (Opcode op : {Opcode::kAdd, Opcode::kMultiply, Opcode::kMaximum, Opcode::kMinimum,
                      Opcode::kDivide}) {
      out.push_back(RunBig(op, {&a, &b}, P::F32));
    }
    out.push_back(RunBig(Opcode::kClamp, {&a, &b, &c}, P::F32));
    out.push_back(RunBig(Opcode::kCompare, {&a, &b}, P::PRED, Cmp(ComparisonDirection::kLt)));
    return out;
  };
  SetThreadPoolWidth(1);
  std::vector<Buf> one = run_all();
  SetThreadPoolWidth(2);
  std::vector<Buf> two = run_all();
  SetThreadPoolWidth(3);
  std::vector<Buf> three = run_all();
  SetThreadPoolWidth(width);
  ASSERT_EQ(one.size(), two.size());
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].bytes, two[i].bytes) << "case " << i;
    EXPECT_EQ(one[i].bytes, three[i].bytes) << "case " << i;
  }
}

TEST(ElementwiseDispatchTest, F32LogAccuracyAndSpecials) {
  // Every 61st positive f32 bit pattern (subnormals included) vs f64 log.
  std::vector<float> xs;
  for (uint32_t u = 1; u < 0x7f800000u; u += 61) xs.push_back(F32FromBits(u));
  Buf a = MakeBuf(P::F32, static_cast<int64_t>(xs.size()));
  for (size_t i = 0; i < xs.size(); ++i) a.set(static_cast<int64_t>(i), xs[i]);
  Buf r = RunBig(Opcode::kLog, {&a}, P::F32);
  int64_t worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    float want = static_cast<float>(std::log(static_cast<double>(xs[i])));
    float got = r.get<float>(static_cast<int64_t>(i));
    int64_t d = UlpDistance(got, want);
    worst = std::max(worst, d);
    ASSERT_LE(d, 1) << "log x=" << xs[i] << " got " << got << " want " << want;
  }
  RecordProperty("sweep_log", static_cast<int>(worst));
  Buf s = FloatBuf(P::F32, {0.0, -0.0, -1.0, -kInfF, kInfF, kNaNF, 1.0, 2.0, 1e-45});
  Buf l = Run1(Opcode::kLog, s, P::F32);
  EXPECT_EQ(l.get<float>(0), -kInfF);
  EXPECT_EQ(l.get<float>(1), -kInfF);
  EXPECT_TRUE(std::isnan(l.get<float>(2)));
  EXPECT_TRUE(std::isnan(l.get<float>(3)));
  EXPECT_EQ(l.get<float>(4), kInfF);
  EXPECT_TRUE(std::isnan(l.get<float>(5)));
  EXPECT_EQ(BitsOfF32(l.get<float>(6)), BitsOfF32(0.0f));  // log(1) = +0 exactly
  EXPECT_EQ(l.get<float>(7), 0.693147182f);
  EXPECT_LE(UlpDistance(l.get<float>(8), -103.278931f), 1);
}

TEST(ElementwiseDispatchTest, TanhOddAndSaturating) {
  std::vector<float> xs;
  for (uint32_t u = 0; u < 0x7f800000u; u += 4099) xs.push_back(F32FromBits(u));
  const int64_t n = static_cast<int64_t>(xs.size());
  Buf a = MakeBuf(P::F32, n), m = MakeBuf(P::F32, n);
  for (int64_t i = 0; i < n; ++i) {
    a.set(i, xs[i]);
    m.set(i, -xs[i]);
  }
  Buf r = RunBig(Opcode::kTanh, {&a}, P::F32), rm = RunBig(Opcode::kTanh, {&m}, P::F32);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(BitsOfF32(rm.get<float>(i)), BitsOfF32(-r.get<float>(i))) << xs[i];  // odd, exactly
    if (xs[i] >= 9.1f) {
      ASSERT_EQ(r.get<float>(i), 1.0f) << xs[i];
    }
    ASSERT_LE(r.get<float>(i), 1.0f);
  }
  Buf s = FloatBuf(P::F32, {-0.0, kInfF, -kInfF, kNaNF, -1e-45});
  Buf t = Run1(Opcode::kTanh, s, P::F32);
  EXPECT_EQ(BitsOfF32(t.get<float>(0)), BitsOfF32(-0.0f));
  EXPECT_EQ(t.get<float>(1), 1.0f);
  EXPECT_EQ(t.get<float>(2), -1.0f);
  EXPECT_TRUE(std::isnan(t.get<float>(3)));
  EXPECT_EQ(t.get<float>(4), -1e-45f);
}

TEST(ElementwiseDispatchTest, LogisticTails) {
  Buf s = FloatBuf(P::F32, {-0.0, -100.0, -88.0, 20.0, -20.0});
  Buf l = Run1(Opcode::kLogistic, s, P::F32);
  EXPECT_EQ(l.get<float>(0), 0.5f);
  // e^-100 = 3.72e-44 (subnormal): within one subnormal step.
  EXPECT_LE(std::fabs(l.get<float>(1) - static_cast<float>(std::exp(-100.0))), 1.5e-45f);
  EXPECT_LE(UlpDistance(l.get<float>(2), static_cast<float>(std::exp(-88.0) / (1 + std::exp(-88.0)))), 1);
  EXPECT_EQ(l.get<float>(3), 1.0f);  // 1 / (1 + 2e-9) rounds to 1
  EXPECT_LE(UlpDistance(l.get<float>(4), static_cast<float>(1 / (1 + std::exp(20.0)))), 1);
}

// The family's result starts uninitialised: every slot must be written,
// including the scalar-broadcast (clamp) and relayout paths.
TEST(ElementwiseDispatchTest, FamilyWritesEveryElement) {
  const int64_t n = 40000;
  std::string vals;
  for (int64_t i = 0; i < n; ++i) absl::StrAppend(&vals, i ? ", " : "", (i % 7) - 3);
  const std::string arg = absl::StrCat("f32[", n, "]{0} {", vals, "}");
  const std::string hlo = absl::StrCat(
      "HloModule m\nENTRY e {\n  x = f32[", n, "]{0} parameter(0)\n",
      "  lo = f32[] constant(-1)\n  hi = f32[] constant(2)\n",
      "  c = f32[", n, "]{0} clamp(lo, x, hi)\n",
      "  ROOT t = f32[", n, "]{0} tanh(c)\n}\n");
  absl::StatusOr<Literal> got = RunHloText(hlo, {arg});
  ASSERT_TRUE(got.ok()) << got.status();
  for (int64_t i = 0; i < n; ++i) {
    float v = std::min(2.0f, std::max(-1.0f, static_cast<float>((i % 7) - 3)));
    ASSERT_EQ(got->GetRaw<float>(i), ew::math::Tanh(v)) << i;
  }
  // Operands in two different layouts: one is relaid to the result's.
  const std::string hlo2 =
      "HloModule m\nENTRY e {\n  a = f32[300,200]{1,0} parameter(0)\n"
      "  b = f32[300,200]{0,1} parameter(1)\n  ROOT s = f32[300,200]{1,0} add(a, b)\n}\n";
  std::string av, bv;
  for (int64_t i = 0; i < 300; ++i) {
    absl::StrAppend(&av, i ? ", " : "", "{");
    absl::StrAppend(&bv, i ? ", " : "", "{");
    for (int64_t j = 0; j < 200; ++j) {
      absl::StrAppend(&av, j ? ", " : "", i);
      absl::StrAppend(&bv, j ? ", " : "", j * 1000);
    }
    absl::StrAppend(&av, "}");
    absl::StrAppend(&bv, "}");
  }
  absl::StatusOr<Literal> sum = RunHloText(
      hlo2, {absl::StrCat("f32[300,200]{1,0} {", av, "}"), absl::StrCat("f32[300,200]{0,1} {", bv, "}")});
  ASSERT_TRUE(sum.ok()) << sum.status();
  for (int64_t i = 0; i < 300; ++i) {
    for (int64_t j = 0; j < 200; ++j) {
      ASSERT_EQ(sum->GetRaw<float>(sum->Slot({i, j})), static_cast<float>(i + j * 1000)) << i << "," << j;
    }
  }
}

}  // namespace
}  // namespace hlo::cpu
