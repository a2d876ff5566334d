// Integer/pred kernels vs a scalar reference (exact math in 128 bits, then
// wrapped to the type's width) on random inputs of every integer type, plus
// XLA's edge cases as explicit expectations.
#include <functional>

#include "backend_cpu/ew_test_util.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

using namespace hlo::cpu::testing;  // NOLINT
using U128 = unsigned __int128;
using I128 = __int128;

struct TypeInfo {
  PrimitiveType t;
  int bits;
  bool is_signed;
  int64_t min() const {
    if (!is_signed) return 0;
    return bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
  }
  int64_t wrap(U128 v) const { return IntValue(t, IntBits(t, static_cast<int64_t>(static_cast<uint64_t>(v)))); }
  uint64_t pattern(int64_t v) const {
    return bits == 64 ? static_cast<uint64_t>(v) : static_cast<uint64_t>(v) & ((uint64_t{1} << bits) - 1);
  }
  I128 math(int64_t v) const {  // the mathematical value of a canonical element
    return is_signed ? I128(v) : I128(static_cast<uint64_t>(pattern(v)));
  }
};

using Ref2 = std::function<int64_t(const TypeInfo&, int64_t, int64_t)>;
using Ref1 = std::function<int64_t(const TypeInfo&, int64_t)>;

int64_t RefDiv(const TypeInfo& ti, int64_t a, int64_t b) {
  if (b == 0) return ti.wrap(static_cast<U128>(-1));
  if (ti.is_signed && a == ti.min() && b == -1) return ti.min();
  I128 q = ti.math(a) / ti.math(b);
  return ti.wrap(static_cast<U128>(q));
}
int64_t RefRem(const TypeInfo& ti, int64_t a, int64_t b) {
  if (b == 0) return a;
  if (ti.is_signed && a == ti.min() && b == -1) return 0;
  I128 r = ti.math(a) % ti.math(b);
  return ti.wrap(static_cast<U128>(r));
}
int64_t RefMulhi(const TypeInfo& ti, int64_t a, int64_t b) {
  if (!ti.is_signed && ti.bits == 64) {  // u64*u64 does not fit a signed 128-bit
    U128 up = static_cast<U128>(static_cast<uint64_t>(a)) * static_cast<uint64_t>(b);
    return ti.wrap(up >> 64);
  }
  I128 p = ti.math(a) * ti.math(b);
  return ti.wrap(static_cast<U128>(p >> ti.bits));
}
int64_t RefShl(const TypeInfo& ti, int64_t a, int64_t b) {
  uint64_t n = ti.pattern(b);
  if (n >= static_cast<uint64_t>(ti.bits)) return 0;
  return ti.wrap(static_cast<U128>(ti.pattern(a)) << n);
}
int64_t RefShrl(const TypeInfo& ti, int64_t a, int64_t b) {
  uint64_t n = ti.pattern(b);
  if (n >= static_cast<uint64_t>(ti.bits)) return 0;
  return ti.wrap(ti.pattern(a) >> n);
}
int64_t RefShra(const TypeInfo& ti, int64_t a, int64_t b) {
  uint64_t n = ti.pattern(b);
  // signed reading of the bit pattern
  int64_t s = IntValue(ti.is_signed ? ti.t : ti.t, IntBits(ti.t, a));
  if (!ti.is_signed) {
    uint64_t p = ti.pattern(a);
    s = (ti.bits < 64 && (p >> (ti.bits - 1))) ? static_cast<int64_t>(p | ~((uint64_t{1} << ti.bits) - 1))
                                               : static_cast<int64_t>(p);
  }
  if (n >= static_cast<uint64_t>(ti.bits)) return ti.wrap(static_cast<U128>(I128(s < 0 ? -1 : 0)));
  return ti.wrap(static_cast<U128>(I128(s >> n)));
}
int64_t RefPow(const TypeInfo& ti, int64_t a, int64_t b) {
  I128 e = ti.math(b);
  if (e < 0) return ti.math(a) == 1 ? 1 : 0;
  U128 acc = 1;
  for (I128 i = 0; i < e; ++i) acc *= static_cast<U128>(ti.math(a));
  return ti.wrap(acc);
}
int64_t RefClz(const TypeInfo& ti, int64_t a) {
  uint64_t p = ti.pattern(a);
  int n = 0;
  for (int bit = ti.bits - 1; bit >= 0 && !((p >> bit) & 1); --bit) ++n;
  return ti.wrap(static_cast<U128>(n));  // clz(0) of s1 = 1 wraps to -1
}
int64_t RefPopcnt(const TypeInfo& ti, int64_t a) {
  uint64_t p = ti.pattern(a);
  int n = 0;
  for (int bit = 0; bit < ti.bits; ++bit) n += (p >> bit) & 1;
  return ti.wrap(static_cast<U128>(n));
}

TEST(ElementwiseIntTest, RandomVsReference) {
  std::mt19937_64 rng(42);
  const int64_t n = 300;
  for (PrimitiveType t : IntTypes()) {
    TypeInfo ti{t, PrimitiveTypeBitWidth(t), IsSignedInt(t)};
    Buf a = RandomBuf(t, n, rng);
    Buf b = RandomBuf(t, n, rng);
    // Bias some inputs to small values so division/shift/pow paths get exercised.
    for (int64_t i = 0; i < n; i += 3) b.set_bits(i, IntBits(t, static_cast<int64_t>(rng() % 9) - 2));
    for (int64_t i = 0; i < n; i += 7) a.set_bits(i, IntBits(t, ti.min()));
    // Exponents for power: small range (reference multiplies e times).
    Buf e = MakeBuf(t, n);
    for (int64_t i = 0; i < n; ++i) {
      int64_t lo = ti.is_signed ? -5 : 0;
      e.set_bits(i, IntBits(t, static_cast<int64_t>(rng() % 76) + lo));
    }

    struct BinCase { Opcode op; Ref2 ref; const Buf* rhs; };
    std::vector<BinCase> bins = {
        {Opcode::kAdd, [](const TypeInfo& ti, int64_t x, int64_t y) { return ti.wrap(static_cast<U128>(ti.math(x) + ti.math(y))); }, &b},
        {Opcode::kSubtract, [](const TypeInfo& ti, int64_t x, int64_t y) { return ti.wrap(static_cast<U128>(ti.math(x) - ti.math(y))); }, &b},
        {Opcode::kMultiply, [](const TypeInfo& ti, int64_t x, int64_t y) { return ti.wrap(static_cast<U128>(ti.math(x)) * static_cast<U128>(ti.math(y))); }, &b},
        {Opcode::kDivide, RefDiv, &b},
        {Opcode::kRemainder, RefRem, &b},
        {Opcode::kMulhi, RefMulhi, &b},
        {Opcode::kShiftLeft, RefShl, &b},
        {Opcode::kShiftRightLogical, RefShrl, &b},
        {Opcode::kShiftRightArithmetic, RefShra, &b},
        {Opcode::kPower, RefPow, &e},
        {Opcode::kAnd, [](const TypeInfo& ti, int64_t x, int64_t y) { return ti.wrap(static_cast<U128>(ti.pattern(x) & ti.pattern(y))); }, &b},
        {Opcode::kOr, [](const TypeInfo& ti, int64_t x, int64_t y) { return ti.wrap(static_cast<U128>(ti.pattern(x) | ti.pattern(y))); }, &b},
        {Opcode::kXor, [](const TypeInfo& ti, int64_t x, int64_t y) { return ti.wrap(static_cast<U128>(ti.pattern(x) ^ ti.pattern(y))); }, &b},
        {Opcode::kMaximum, [](const TypeInfo& ti, int64_t x, int64_t y) { return ti.math(x) >= ti.math(y) ? x : y; }, &b},
        {Opcode::kMinimum, [](const TypeInfo& ti, int64_t x, int64_t y) { return ti.math(x) <= ti.math(y) ? x : y; }, &b},
    };
    for (const auto& c : bins) {
      Buf r = Run2(c.op, a, *c.rhs, t);
      for (int64_t i = 0; i < n; ++i) {
        int64_t x = IntValue(t, a.bits(i)), y = IntValue(t, c.rhs->bits(i));
        ASSERT_EQ(IntValue(t, r.bits(i)), c.ref(ti, x, y))
            << OpcodeName(c.op) << " " << PrimitiveTypeName(t) << " " << x << ", " << y;
        ASSERT_EQ(r.bits(i), IntBits(t, IntValue(t, r.bits(i)))) << "non-canonical storage";
      }
    }
    struct UnCase { Opcode op; Ref1 ref; };
    std::vector<UnCase> uns = {
        {Opcode::kNegate, [](const TypeInfo& ti, int64_t x) { return ti.wrap(static_cast<U128>(-ti.math(x))); }},
        {Opcode::kAbs, [](const TypeInfo& ti, int64_t x) { return ti.wrap(static_cast<U128>(ti.math(x) < 0 ? -ti.math(x) : ti.math(x))); }},
        {Opcode::kSign, [](const TypeInfo& ti, int64_t x) { I128 m = ti.math(x); return ti.wrap(static_cast<U128>(I128((m > 0) - (m < 0)))); }},
        {Opcode::kNot, [](const TypeInfo& ti, int64_t x) { return ti.wrap(static_cast<U128>(~ti.pattern(x))); }},
        {Opcode::kClz, RefClz},
        {Opcode::kPopulationCount, RefPopcnt},
        {Opcode::kCopy, [](const TypeInfo&, int64_t x) { return x; }},
    };
    for (const auto& c : uns) {
      Buf r = Run1(c.op, a, t);
      for (int64_t i = 0; i < n; ++i) {
        int64_t x = IntValue(t, a.bits(i));
        ASSERT_EQ(IntValue(t, r.bits(i)), c.ref(ti, x)) << OpcodeName(c.op) << " " << PrimitiveTypeName(t) << " " << x;
      }
    }
    // compare, all directions
    const ComparisonDirection dirs[] = {ComparisonDirection::kEq, ComparisonDirection::kNe,
                                        ComparisonDirection::kGe, ComparisonDirection::kGt,
                                        ComparisonDirection::kLe, ComparisonDirection::kLt};
    Buf b2 = b;
    for (int64_t i = 0; i < n; i += 4) b2.set_bits(i, a.bits(i));  // some equal pairs
    for (auto d : dirs) {
      Buf r = Run2(Opcode::kCompare, a, b2, PrimitiveType::PRED, Cmp(d));
      for (int64_t i = 0; i < n; ++i) {
        I128 x = ti.math(IntValue(t, a.bits(i))), y = ti.math(IntValue(t, b2.bits(i)));
        bool want = d == ComparisonDirection::kEq ? x == y : d == ComparisonDirection::kNe ? x != y
                  : d == ComparisonDirection::kGe ? x >= y : d == ComparisonDirection::kGt ? x > y
                  : d == ComparisonDirection::kLe ? x <= y : x < y;
        ASSERT_EQ(r.bits(i), want ? 1u : 0u);
      }
    }
    // clamp(lo, x, hi)
    Buf lo = RandomBuf(t, n, rng), hi = RandomBuf(t, n, rng);
    Buf r = Run3(Opcode::kClamp, lo, a, hi, t);
    for (int64_t i = 0; i < n; ++i) {
      I128 l = ti.math(IntValue(t, lo.bits(i))), x = ti.math(IntValue(t, a.bits(i))),
           h = ti.math(IntValue(t, hi.bits(i)));
      I128 m = x > l ? x : l;
      m = m < h ? m : h;
      ASSERT_EQ(ti.math(IntValue(t, r.bits(i))), m);
    }
  }
}

TEST(ElementwiseIntTest, DivisionEdgeCases) {
  using P = PrimitiveType;
  Buf a = IntBuf(P::S32, {7, -7, INT32_MIN, INT32_MIN, 0, 7, -7});
  Buf b = IntBuf(P::S32, {0, 0, -1, 0, 0, -2, 2});
  Buf q = Run2(Opcode::kDivide, a, b, P::S32);
  Buf r = Run2(Opcode::kRemainder, a, b, P::S32);
  const int64_t want_q[] = {-1, -1, INT32_MIN, -1, -1, -3, -3};
  const int64_t want_r[] = {7, -7, 0, INT32_MIN, 0, 1, -1};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(IntValue(P::S32, q.bits(i)), want_q[i]) << i;
    EXPECT_EQ(IntValue(P::S32, r.bits(i)), want_r[i]) << i;
  }
  // unsigned: x / 0 = all ones, x % 0 = x
  Buf ua = IntBuf(P::U8, {200, 0}), ub = IntBuf(P::U8, {0, 0});
  EXPECT_EQ(Run2(Opcode::kDivide, ua, ub, P::U8).bits(0), 255u);
  EXPECT_EQ(Run2(Opcode::kRemainder, ua, ub, P::U8).bits(0), 200u);
  // s4: -8 / -1 = -8, -8 % -1 = 0, 5 / 0 = -1
  Buf sa = IntBuf(P::S4, {-8, -8, 5}), sb = IntBuf(P::S4, {-1, -1, 0});
  Buf sq = Run2(Opcode::kDivide, sa, sb, P::S4);
  EXPECT_EQ(IntValue(P::S4, sq.bits(0)), -8);
  EXPECT_EQ(IntValue(P::S4, sq.bits(2)), -1);
  EXPECT_EQ(IntValue(P::S4, Run2(Opcode::kRemainder, sa, sb, P::S4).bits(1)), 0);
  // u4: 9 / 0 = 15
  EXPECT_EQ(Run2(Opcode::kDivide, IntBuf(P::U4, {9}), IntBuf(P::U4, {0}), P::U4).bits(0), 15u);
  // s64
  Buf la = IntBuf(P::S64, {INT64_MIN}), lb = IntBuf(P::S64, {-1});
  EXPECT_EQ(IntValue(P::S64, Run2(Opcode::kDivide, la, lb, P::S64).bits(0)), INT64_MIN);
  EXPECT_EQ(IntValue(P::S64, Run2(Opcode::kRemainder, la, lb, P::S64).bits(0)), 0);
}

TEST(ElementwiseIntTest, ShiftEdgeCases) {
  using P = PrimitiveType;
  Buf a = IntBuf(P::S32, {1, -16, -16, 5, -1});
  Buf n = IntBuf(P::S32, {32, 32, 100, -1, 31});
  Buf shl = Run2(Opcode::kShiftLeft, a, n, P::S32);
  Buf shrl = Run2(Opcode::kShiftRightLogical, a, n, P::S32);
  Buf shra = Run2(Opcode::kShiftRightArithmetic, a, n, P::S32);
  EXPECT_EQ(IntValue(P::S32, shl.bits(0)), 0);    // >= width -> 0
  EXPECT_EQ(IntValue(P::S32, shrl.bits(1)), 0);   // >= width -> 0
  EXPECT_EQ(IntValue(P::S32, shra.bits(1)), -1);  // sign fill
  EXPECT_EQ(IntValue(P::S32, shra.bits(2)), -1);
  EXPECT_EQ(IntValue(P::S32, shra.bits(3)), 0);    // negative amount = huge unsigned: 5 -> 0
  EXPECT_EQ(IntValue(P::S32, shl.bits(3)), 0);
  EXPECT_EQ(IntValue(P::S32, shrl.bits(4)), 1);    // logical: -1 >> 31 = 1
  EXPECT_EQ(IntValue(P::S32, shra.bits(4)), -1);
  EXPECT_EQ(IntValue(P::S32, shl.bits(4)), INT32_MIN);
  // u8 arithmetic shift reads the bits as signed: 0x80 >> 1 = 0xC0; >= 8 -> 0xFF
  Buf u = IntBuf(P::U8, {0x80, 0x80, 0x40}), un = IntBuf(P::U8, {1, 8, 9});
  Buf ur = Run2(Opcode::kShiftRightArithmetic, u, un, P::U8);
  EXPECT_EQ(ur.bits(0), 0xC0u);
  EXPECT_EQ(ur.bits(1), 0xFFu);
  EXPECT_EQ(ur.bits(2), 0u);
  // s4: 1 << 3 = -8; -8 >>logical 1 = 4; shift by 4 saturates
  Buf s4 = IntBuf(P::S4, {1, -8, 3}), s4n = IntBuf(P::S4, {3, 1, 4});
  EXPECT_EQ(IntValue(P::S4, Run2(Opcode::kShiftLeft, s4, s4n, P::S4).bits(0)), -8);
  EXPECT_EQ(IntValue(P::S4, Run2(Opcode::kShiftRightLogical, s4, s4n, P::S4).bits(1)), 4);
  EXPECT_EQ(IntValue(P::S4, Run2(Opcode::kShiftLeft, s4, s4n, P::S4).bits(2)), 0);
}

TEST(ElementwiseIntTest, PowerEdgeCases) {
  using P = PrimitiveType;
  Buf base = IntBuf(P::S32, {0, 2, 1, -1, -1, 2, 3, -2, 0});
  Buf exp = IntBuf(P::S32, {0, -1, -5, -1, -2, 31, 2, 3, 5});
  Buf r = Run2(Opcode::kPower, base, exp, P::S32);
  const int64_t want[] = {1, 0, 1, 0, 0, INT32_MIN, 9, -8, 0};  // XLA: (-1)^negative = 0
  for (int i = 0; i < 9; ++i) EXPECT_EQ(IntValue(P::S32, r.bits(i)), want[i]) << i;
  // wrapping: 3^40 mod 2^8 for u8
  Buf u = Run2(Opcode::kPower, IntBuf(P::U8, {3}), IntBuf(P::U8, {40}), P::U8);
  uint32_t w = 1;
  for (int i = 0; i < 40; ++i) w = (w * 3) & 0xff;
  EXPECT_EQ(u.bits(0), w);
}

TEST(ElementwiseIntTest, ClzPopcntPerWidth) {
  using P = PrimitiveType;
  EXPECT_EQ(Run1(Opcode::kClz, IntBuf(P::S8, {0}), P::S8).bits(0), 8u);
  EXPECT_EQ(Run1(Opcode::kClz, IntBuf(P::U16, {1}), P::U16).bits(0), 15u);
  EXPECT_EQ(IntValue(P::S32, Run1(Opcode::kClz, IntBuf(P::S32, {-1}), P::S32).bits(0)), 0);
  EXPECT_EQ(Run1(Opcode::kClz, IntBuf(P::U64, {0}), P::U64).bits(0), 64u);
  EXPECT_EQ(Run1(Opcode::kClz, IntBuf(P::S4, {0}), P::S4).bits(0), 4u);
  EXPECT_EQ(Run1(Opcode::kClz, IntBuf(P::U2, {1}), P::U2).bits(0), 1u);
  EXPECT_EQ(Run1(Opcode::kPopulationCount, IntBuf(P::S4, {-1}), P::S4).bits(0), 4u);
  EXPECT_EQ(Run1(Opcode::kPopulationCount, IntBuf(P::S64, {-1}), P::S64).bits(0), 64u);
  EXPECT_EQ(Run1(Opcode::kPopulationCount, IntBuf(P::U8, {0xA5}), P::U8).bits(0), 4u);
}

TEST(ElementwiseIntTest, NegateAbsWrap) {
  using P = PrimitiveType;
  EXPECT_EQ(IntValue(P::S8, Run1(Opcode::kNegate, IntBuf(P::S8, {-128}), P::S8).bits(0)), -128);
  EXPECT_EQ(IntValue(P::S8, Run1(Opcode::kAbs, IntBuf(P::S8, {-128}), P::S8).bits(0)), -128);
  EXPECT_EQ(Run1(Opcode::kNegate, IntBuf(P::U8, {1}), P::U8).bits(0), 255u);
  EXPECT_EQ(IntValue(P::S2, Run1(Opcode::kAbs, IntBuf(P::S2, {-2}), P::S2).bits(0)), -2);
  EXPECT_EQ(Run1(Opcode::kSign, IntBuf(P::U8, {7}), P::U8).bits(0), 1u);
  EXPECT_EQ(IntValue(P::S16, Run1(Opcode::kSign, IntBuf(P::S16, {-7}), P::S16).bits(0)), -1);
  EXPECT_EQ(Run1(Opcode::kNot, IntBuf(P::U4, {3}), P::U4).bits(0), 12u);
}

TEST(ElementwiseIntTest, Mulhi) {
  using P = PrimitiveType;
  EXPECT_EQ(IntValue(P::S32, Run2(Opcode::kMulhi, IntBuf(P::S32, {-1}), IntBuf(P::S32, {1}), P::S32).bits(0)), -1);
  EXPECT_EQ(Run2(Opcode::kMulhi, IntBuf(P::U32, {0xFFFFFFFF}), IntBuf(P::U32, {0xFFFFFFFF}), P::U32).bits(0),
            0xFFFFFFFEu);
  EXPECT_EQ(Run2(Opcode::kMulhi, IntBuf(P::U64, {-1}), IntBuf(P::U64, {2}), P::U64).bits(0), 1u);
  EXPECT_EQ(IntValue(P::S64, Run2(Opcode::kMulhi, IntBuf(P::S64, {INT64_MIN}), IntBuf(P::S64, {2}), P::S64).bits(0)), -1);
}

TEST(ElementwiseIntTest, PredOps) {
  using P = PrimitiveType;
  Buf a = IntBuf(P::PRED, {0, 0, 1, 1}), b = IntBuf(P::PRED, {0, 1, 0, 1});
  auto bits = [](const Buf& r) {
    std::vector<uint64_t> v;
    for (int64_t i = 0; i < r.n(); ++i) v.push_back(r.bits(i));
    return v;
  };
  using V = std::vector<uint64_t>;
  EXPECT_EQ(bits(Run2(Opcode::kAnd, a, b, P::PRED)), (V{0, 0, 0, 1}));
  EXPECT_EQ(bits(Run2(Opcode::kOr, a, b, P::PRED)), (V{0, 1, 1, 1}));
  EXPECT_EQ(bits(Run2(Opcode::kXor, a, b, P::PRED)), (V{0, 1, 1, 0}));
  EXPECT_EQ(bits(Run2(Opcode::kAdd, a, b, P::PRED)), (V{0, 1, 1, 1}));
  EXPECT_EQ(bits(Run2(Opcode::kMultiply, a, b, P::PRED)), (V{0, 0, 0, 1}));
  EXPECT_EQ(bits(Run2(Opcode::kMaximum, a, b, P::PRED)), (V{0, 1, 1, 1}));
  EXPECT_EQ(bits(Run2(Opcode::kMinimum, a, b, P::PRED)), (V{0, 0, 0, 1}));
  EXPECT_EQ(bits(Run1(Opcode::kNot, a, P::PRED)), (V{1, 1, 0, 0}));
  EXPECT_EQ(bits(Run2(Opcode::kCompare, a, b, P::PRED, Cmp(ComparisonDirection::kLt))), (V{0, 1, 0, 0}));
  EXPECT_EQ(bits(Run2(Opcode::kCompare, a, b, P::PRED, Cmp(ComparisonDirection::kNe))), (V{0, 1, 1, 0}));
  EXPECT_FALSE(SelectElementwiseKernel(Opcode::kSubtract, {P::PRED, P::PRED}, P::PRED, {}).ok());
  EXPECT_FALSE(SelectElementwiseKernel(Opcode::kShiftLeft, {P::PRED, P::PRED}, P::PRED, {}).ok());
}

TEST(ElementwiseIntTest, SelectAndCopyAllTypes) {
  std::mt19937_64 rng(7);
  for (PrimitiveType t : AllArrayTypes()) {
    Buf p = RandomBuf(PrimitiveType::PRED, 100, rng);
    Buf a = RandomBuf(t, 100, rng), b = RandomBuf(t, 100, rng);
    Buf r = Run3(Opcode::kSelect, p, a, b, t);
    Buf c = Run1(Opcode::kCopy, a, t);
    int sz = PrimitiveTypeByteSize(t);
    for (int64_t i = 0; i < 100; ++i) {
      const Buf& src = p.bits(i) ? a : b;
      ASSERT_EQ(0, std::memcmp(r.bytes.data() + i * sz, src.bytes.data() + i * sz, sz)) << PrimitiveTypeName(t);
    }
    EXPECT_EQ(c.bytes, a.bytes) << PrimitiveTypeName(t);
  }
}

TEST(ElementwiseIntTest, TypeErrors) {
  using P = PrimitiveType;
  EXPECT_FALSE(SelectElementwiseKernel(Opcode::kAdd, {P::S32, P::S64}, P::S32, {}).ok());
  EXPECT_FALSE(SelectElementwiseKernel(Opcode::kAdd, {P::S32}, P::S32, {}).ok());
  EXPECT_FALSE(SelectElementwiseKernel(Opcode::kDot, {P::S32, P::S32}, P::S32, {}).ok());
  EXPECT_FALSE(SelectElementwiseKernel(Opcode::kSqrt, {P::S32}, P::S32, {}).ok());
  EXPECT_FALSE(SelectElementwiseKernel(Opcode::kCompare, {P::S32, P::S32}, P::PRED,
                                       Cmp(ComparisonDirection::kEq, ComparisonType::kUnsigned)).ok());
  EXPECT_TRUE(SelectElementwiseKernel(Opcode::kCompare, {P::U32, P::U32}, P::PRED,
                                      Cmp(ComparisonDirection::kEq, ComparisonType::kUnsigned)).ok());
  EXPECT_FALSE(SelectElementwiseKernel(Opcode::kSelect, {P::S32, P::S32, P::S32}, P::S32, {}).ok());
}

}  // namespace
}  // namespace hlo::cpu
