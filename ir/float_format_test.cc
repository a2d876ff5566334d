#include "ir/float_format.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace hlo {
namespace {

using PT = PrimitiveType;

const PT kNarrowTypes[] = {PT::F8E5M2,     PT::F8E4M3,     PT::F8E4M3FN, PT::F8E4M3B11FNUZ,
                           PT::F8E3M4,     PT::F8E5M2FNUZ, PT::F8E4M3FNUZ, PT::F4E2M1FN,
                           PT::F8E8M0FNU};
const PT kAllFloatTypes[] = {PT::F16,      PT::BF16,          PT::F32,    PT::F64,
                             PT::F8E5M2,   PT::F8E4M3,        PT::F8E4M3FN,
                             PT::F8E4M3B11FNUZ, PT::F8E3M4,   PT::F8E5M2FNUZ,
                             PT::F8E4M3FNUZ,    PT::F4E2M1FN, PT::F8E8M0FNU};

uint64_t Bits(PT t, double v) { return EncodeFloat(t, v); }
double Val(PT t, uint64_t b) { return DecodeFloat(t, b); }
int NumEncodings(PT t) { return 1 << GetFloatFormat(t)->total_bits; }

uint64_t DBits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
uint32_t FBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float FFromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

TEST(FloatFormatTest, TableCoversEveryFloatType) {
  for (int i = 0; i < kNumPrimitiveTypes; ++i) {
    PT t = static_cast<PT>(i);
    EXPECT_EQ(GetFloatFormat(t) != nullptr, IsFloat(t)) << PrimitiveTypeName(t);
    if (const FloatFormat* f = GetFloatFormat(t)) {
      EXPECT_EQ(f->total_bits, PrimitiveTypeBitWidth(t)) << PrimitiveTypeName(t);
      EXPECT_EQ(f->total_bits, f->exponent_bits + f->mantissa_bits + (f->is_signed ? 1 : 0));
    }
  }
  EXPECT_EQ(GetFloatFormat(PT::S32), nullptr);
  EXPECT_EQ(GetFloatFormat(PT::C64), nullptr);
}

TEST(FloatFormatTest, KnownLimits) {
  EXPECT_EQ(MaxFiniteValue(PT::F16), 65504.0);
  EXPECT_EQ(MaxFiniteValue(PT::BF16), 0x1.fep127);
  EXPECT_EQ(MaxFiniteValue(PT::F8E5M2), 57344.0);
  EXPECT_EQ(MaxFiniteValue(PT::F8E4M3), 240.0);
  EXPECT_EQ(MaxFiniteValue(PT::F8E4M3FN), 448.0);
  EXPECT_EQ(MaxFiniteValue(PT::F8E4M3B11FNUZ), 30.0);
  EXPECT_EQ(MaxFiniteValue(PT::F8E3M4), 15.5);
  EXPECT_EQ(MaxFiniteValue(PT::F8E5M2FNUZ), 57344.0);
  EXPECT_EQ(MaxFiniteValue(PT::F8E4M3FNUZ), 240.0);
  EXPECT_EQ(MaxFiniteValue(PT::F4E2M1FN), 6.0);
  EXPECT_EQ(MaxFiniteValue(PT::F8E8M0FNU), std::ldexp(1.0, 127));
  EXPECT_EQ(MinNormalValue(PT::F16), std::ldexp(1.0, -14));
  EXPECT_EQ(MinPositiveValue(PT::F16), std::ldexp(1.0, -24));
  EXPECT_EQ(MinPositiveValue(PT::F8E5M2), std::ldexp(1.0, -16));
  EXPECT_EQ(MinPositiveValue(PT::F8E4M3FN), std::ldexp(1.0, -9));
  EXPECT_EQ(MinPositiveValue(PT::F8E4M3B11FNUZ), std::ldexp(1.0, -13));
  EXPECT_EQ(MinNormalValue(PT::F8E4M3FNUZ), std::ldexp(1.0, -7));
  EXPECT_EQ(MinPositiveValue(PT::F8E4M3FNUZ), std::ldexp(1.0, -10));
  EXPECT_EQ(MinPositiveValue(PT::F8E5M2FNUZ), std::ldexp(1.0, -17));
  EXPECT_EQ(MinPositiveValue(PT::F8E3M4), std::ldexp(1.0, -6));
  EXPECT_EQ(MinPositiveValue(PT::F4E2M1FN), 0.5);
  EXPECT_EQ(MinPositiveValue(PT::F8E8M0FNU), std::ldexp(1.0, -127));
}

TEST(FloatFormatTest, SpecificEncodings) {
  EXPECT_EQ(Bits(PT::F16, 1.0), 0x3c00u);
  EXPECT_EQ(Bits(PT::BF16, 1.0), 0x3f80u);
  EXPECT_EQ(Bits(PT::F8E5M2, 1.0), 0x3cu);
  EXPECT_EQ(Bits(PT::F8E4M3, 1.0), 0x38u);
  EXPECT_EQ(Bits(PT::F8E4M3FN, 1.0), 0x38u);
  EXPECT_EQ(Bits(PT::F8E4M3B11FNUZ, 1.0), 0x58u);
  EXPECT_EQ(Bits(PT::F8E3M4, 1.0), 0x30u);
  EXPECT_EQ(Bits(PT::F8E5M2FNUZ, 1.0), 0x40u);
  EXPECT_EQ(Bits(PT::F8E4M3FNUZ, 1.0), 0x40u);
  EXPECT_EQ(Bits(PT::F4E2M1FN, 1.0), 0x2u);
  EXPECT_EQ(Bits(PT::F8E8M0FNU, 1.0), 0x7fu);
  EXPECT_EQ(Bits(PT::F4E2M1FN, -6.0), 0xfu);
  EXPECT_EQ(Bits(PT::F8E4M3FN, -448.0), 0xfeu);
  EXPECT_TRUE(std::isnan(Val(PT::F8E4M3FN, 0x7f)));
  EXPECT_TRUE(std::isnan(Val(PT::F8E4M3FN, 0xff)));
  EXPECT_EQ(Val(PT::F8E4M3FN, 0x78), 256.0);  // exponent all ones is normal
  EXPECT_EQ(Val(PT::F8E4M3FNUZ, 0x78), 128.0);
  EXPECT_EQ(Val(PT::F8E8M0FNU, 0x00), std::ldexp(1.0, -127));
  EXPECT_EQ(Val(PT::F8E8M0FNU, 0x80), 2.0);
  EXPECT_TRUE(std::isinf(Val(PT::F8E4M3, 0x78)));
  EXPECT_TRUE(std::isnan(Val(PT::F8E4M3, 0x79)));
  EXPECT_TRUE(std::isinf(Val(PT::F8E3M4, 0x70)));
}

// Every encoding of every 8-bit (and 4-bit) type decodes and re-encodes to
// itself; NaNs re-encode to the type's NaN; -0 of fnuz does not exist.
TEST(FloatFormatTest, EveryNarrowEncodingRoundTrips) {
  for (PT t : kNarrowTypes) {
    for (int b = 0; b < NumEncodings(t); ++b) {
      double v = Val(t, b);
      uint64_t back = Bits(t, v);
      if (std::isnan(v)) {
        EXPECT_TRUE(IsNanBits(t, back)) << PrimitiveTypeName(t) << " " << b;
        EXPECT_TRUE(IsNanBits(t, b));
        continue;
      }
      EXPECT_EQ(back, static_cast<uint64_t>(b)) << PrimitiveTypeName(t) << " bits " << b << " value " << v;
      // Through float as well.
      EXPECT_EQ(EncodeFloat(t, DecodeFloatToFloat(t, b)), static_cast<uint64_t>(b));
    }
  }
}

TEST(FloatFormatTest, Every16BitEncodingRoundTripsIncludingNanPayloads) {
  for (PT t : {PT::F16, PT::BF16}) {
    for (uint32_t b = 0; b < 65536; ++b) {
      double v = Val(t, b);
      ASSERT_EQ(Bits(t, v), b) << PrimitiveTypeName(t) << " " << b;
      ASSERT_EQ(EncodeFloat(t, DecodeFloatToFloat(t, b)), b) << PrimitiveTypeName(t) << " " << b;
    }
  }
}

TEST(FloatFormatTest, IeeeLikeF8NanPayloadsRoundTrip) {
  for (PT t : {PT::F8E5M2, PT::F8E4M3, PT::F8E3M4}) {
    for (int b = 0; b < 256; ++b) {
      if (!IsNanBits(t, b)) continue;
      EXPECT_EQ(Bits(t, Val(t, b)), static_cast<uint64_t>(b)) << PrimitiveTypeName(t) << " " << b;
    }
  }
}

// Reference rounding: nearest of all finite values, ties to the even
// encoding, with a virtual "next after max" value standing for overflow.
struct Reference {
  std::vector<std::pair<double, uint64_t>> pos;  // ascending, incl. +0 when present
  double overflow_value;
  uint64_t overflow_bits;
  explicit Reference(PT t) {
    const FloatFormat* f = GetFloatFormat(t);
    for (int b = 0; b < NumEncodings(t); ++b) {
      if (f->is_signed && (b & f->sign_mask())) continue;
      double v = Val(t, b);
      if (std::isnan(v) || std::isinf(v)) continue;
      pos.push_back({v, static_cast<uint64_t>(b)});
    }
    std::sort(pos.begin(), pos.end());
    double max = pos.back().first;
    double prev = pos[pos.size() - 2].first;
    // Next value with the exponent continued: same spacing as max's binade.
    double ulp = std::ldexp(1.0, std::ilogb(max) - f->mantissa_bits);
    (void)prev;
    overflow_value = max + ulp;
    overflow_bits = pos.back().second + 1;
  }
  // Returns magnitude bits, or nullopt for overflow.
  std::optional<uint64_t> Round(double a) const {
    if (a >= overflow_value) return std::nullopt;
    auto it = std::lower_bound(pos.begin(), pos.end(), std::make_pair(a, uint64_t{0}));
    if (it != pos.end() && it->first == a) return it->second;
    double lo_v, hi_v;
    uint64_t lo_b, hi_b;
    if (it == pos.end()) {
      lo_v = pos.back().first;
      lo_b = pos.back().second;
      hi_v = overflow_value;
      hi_b = overflow_bits;
    } else {
      hi_v = it->first;
      hi_b = it->second;
      lo_v = std::prev(it)->first;
      lo_b = std::prev(it)->second;
    }
    double dl = a - lo_v, dh = hi_v - a;
    bool up = dh < dl || (dh == dl && (hi_b & 1) == 0);
    if (up && hi_v == overflow_value) return std::nullopt;
    return up ? hi_b : lo_b;
  }
};

uint64_t OverflowBits(PT t, bool negative) {
  const FloatFormat* f = GetFloatFormat(t);
  uint64_t s = negative ? f->sign_mask() : 0;
  switch (f->overflow) {
    case OverflowMode::kInfinity:
      return s | (((uint64_t{1} << f->exponent_bits) - 1) << f->mantissa_bits);
    case OverflowMode::kNan:
      return f->nan == NanEncoding::kNegativeZero ? f->sign_mask() : (s | f->magnitude_mask());
    case OverflowMode::kSaturate:
      return s | f->max_finite_bits;
  }
  return 0;
}

TEST(FloatFormatTest, RandomValuesMatchBruteForceNearestEven) {
  std::mt19937_64 rng(42);
  for (PT t : {PT::F16, PT::BF16, PT::F8E5M2, PT::F8E4M3, PT::F8E4M3FN, PT::F8E4M3B11FNUZ,
               PT::F8E3M4, PT::F8E5M2FNUZ, PT::F8E4M3FNUZ, PT::F4E2M1FN}) {
    Reference ref(t);
    const FloatFormat* f = GetFloatFormat(t);
    const double max = MaxFiniteValue(t);
    std::vector<double> samples;
    // Midpoints and near-midpoints of every pair of neighbours (ties!).
    for (size_t i = 0; i + 1 < ref.pos.size(); i += (t == PT::F16 || t == PT::BF16) ? 97 : 1) {
      double a = ref.pos[i].first, b = ref.pos[i + 1].first, mid = (a + b) / 2;
      samples.insert(samples.end(), {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1e300), a, b});
    }
    samples.push_back((max + ref.overflow_value) / 2);
    samples.push_back(std::nextafter((max + ref.overflow_value) / 2, 0.0));
    samples.push_back(ref.overflow_value * 4);
    for (int i = 0; i < 3000; ++i) {
      double scale = std::ldexp(1.0, static_cast<int>(rng() % 40) - 30);
      samples.push_back(std::ldexp(static_cast<double>(rng() >> 11), -53) * scale * max);
    }
    for (double a : samples) {
      for (bool negative : {false, true}) {
        double v = negative ? -a : a;
        auto r = ref.Round(a);
        uint64_t expected;
        if (!r) {
          expected = OverflowBits(t, negative);
        } else if (*r == 0 && !f->has_negative_zero) {
          expected = 0;
        } else {
          expected = *r | (negative ? f->sign_mask() : 0);
        }
        ASSERT_EQ(Bits(t, v), expected) << PrimitiveTypeName(t) << " value " << v;
      }
    }
  }
}

TEST(FloatFormatTest, RoundingTies) {
  // f16 around 1: spacing 2^-10.
  EXPECT_EQ(Bits(PT::F16, 1 + std::ldexp(1.0, -11)), 0x3c00u);      // tie -> even (down)
  EXPECT_EQ(Bits(PT::F16, 1 + 3 * std::ldexp(1.0, -11)), 0x3c02u);  // tie -> even (up)
  // No double rounding through float: just above the tie rounds up.
  EXPECT_EQ(Bits(PT::F16, 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)), 0x3c01u);
  EXPECT_EQ(Bits(PT::BF16, 1 + std::ldexp(1.0, -8)), 0x3f80u);
  EXPECT_EQ(Bits(PT::BF16, 1 + 3 * std::ldexp(1.0, -8)), 0x3f82u);
  EXPECT_EQ(Bits(PT::BF16, 1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)), 0x3f81u);
  // f8e4m3fn: 464 is the tie between 448 (mantissa 110) and 480 (would be
  // the NaN pattern): ties to even -> 448; anything above -> NaN.
  EXPECT_EQ(Bits(PT::F8E4M3FN, 464.0), 0x7eu);
  EXPECT_EQ(Bits(PT::F8E4M3FN, 464.0001), 0x7fu);
  EXPECT_EQ(Bits(PT::F8E4M3FN, -464.0001), 0xffu);
  // f4e2m1fn: 7 ties between 6 (odd) and 8 (overflow) -> saturates to 6.
  EXPECT_EQ(Bits(PT::F4E2M1FN, 7.0), 0x7u);
  EXPECT_EQ(Bits(PT::F4E2M1FN, 0.25), 0x0u);   // tie between 0 and 0.5 -> 0
  EXPECT_EQ(Bits(PT::F4E2M1FN, 0.75), 0x2u);   // tie between 0.5 and 1 -> 1
  EXPECT_EQ(Bits(PT::F4E2M1FN, 2.5), 0x4u);    // tie between 2 and 3 -> 2
  EXPECT_EQ(Bits(PT::F4E2M1FN, 5.0), 0x6u);    // tie between 4 and 6 -> 4
  // f8e8m0fnu: the significand is the implicit 1 only; 1.5*2^e rounds up.
  EXPECT_EQ(Bits(PT::F8E8M0FNU, 1.5), 0x80u);
  EXPECT_EQ(Bits(PT::F8E8M0FNU, 1.4999), 0x7fu);
  EXPECT_EQ(Bits(PT::F8E8M0FNU, 3.0), 0x81u);
  EXPECT_EQ(Bits(PT::F8E8M0FNU, 0.75), 0x7fu);
}

TEST(FloatFormatTest, Overflow) {
  const double inf = std::numeric_limits<double>::infinity();
  // Types with inf.
  EXPECT_EQ(Bits(PT::F16, 65519.0), 0x7bffu);
  EXPECT_EQ(Bits(PT::F16, 65520.0), 0x7c00u);
  EXPECT_EQ(Bits(PT::F16, -1e6), 0xfc00u);
  EXPECT_EQ(Bits(PT::BF16, 1e39), 0x7f80u);
  EXPECT_EQ(Bits(PT::F8E5M2, 61439.0), 0x7bu);
  EXPECT_EQ(Bits(PT::F8E5M2, 61440.0), 0x7cu);
  EXPECT_EQ(Bits(PT::F8E4M3, 1000.0), 0x78u);
  EXPECT_EQ(Bits(PT::F8E3M4, -16.0), 0xf0u);
  EXPECT_EQ(Bits(PT::F32, 1e39), 0x7f800000u);
  // fn: NaN with sign; fnuz: the NaN 0x80.
  EXPECT_EQ(Bits(PT::F8E4M3FN, 1e4), 0x7fu);
  EXPECT_EQ(Bits(PT::F8E4M3FN, inf), 0x7fu);
  EXPECT_EQ(Bits(PT::F8E4M3FN, -inf), 0xffu);
  EXPECT_EQ(Bits(PT::F8E4M3FNUZ, 1e4), 0x80u);
  EXPECT_EQ(Bits(PT::F8E4M3FNUZ, -1e4), 0x80u);
  EXPECT_EQ(Bits(PT::F8E4M3FNUZ, 247.0), 0x7fu);  // 240 + less than half an ulp
  EXPECT_EQ(Bits(PT::F8E4M3FNUZ, 248.0), 0x80u);  // tie, 240 is odd -> overflow
  EXPECT_EQ(Bits(PT::F8E5M2FNUZ, inf), 0x80u);
  EXPECT_EQ(Bits(PT::F8E4M3B11FNUZ, 31.0), 0x80u);
  EXPECT_EQ(Bits(PT::F8E4M3B11FNUZ, 30.9), 0x7fu);
  // f4e2m1fn saturates; e8m0 overflows to NaN.
  EXPECT_EQ(Bits(PT::F4E2M1FN, 100.0), 0x7u);
  EXPECT_EQ(Bits(PT::F4E2M1FN, -inf), 0xfu);
  EXPECT_EQ(Bits(PT::F8E8M0FNU, std::ldexp(1.0, 127)), 0xfeu);
  EXPECT_EQ(Bits(PT::F8E8M0FNU, std::ldexp(1.5, 127)), 0xffu);
  EXPECT_EQ(Bits(PT::F8E8M0FNU, inf), 0xffu);
}

TEST(FloatFormatTest, Subnormals) {
  for (PT t : {PT::F16, PT::BF16, PT::F8E5M2, PT::F8E4M3, PT::F8E4M3FN, PT::F8E4M3B11FNUZ,
               PT::F8E3M4, PT::F8E5M2FNUZ, PT::F8E4M3FNUZ, PT::F4E2M1FN}) {
    const double tiny = MinPositiveValue(t);
    EXPECT_EQ(Bits(t, tiny), 1u) << PrimitiveTypeName(t);
    EXPECT_EQ(Val(t, 1), tiny);
    EXPECT_EQ(Bits(t, tiny / 2), 0u) << PrimitiveTypeName(t);          // tie -> 0 (even)
    EXPECT_EQ(Bits(t, tiny * 0.75), 1u) << PrimitiveTypeName(t);
    EXPECT_EQ(Bits(t, tiny * 1.5), 2u) << PrimitiveTypeName(t);        // tie -> 2 (even)
    EXPECT_EQ(Bits(t, tiny * 2.5), 2u) << PrimitiveTypeName(t);        // tie -> 2 (even)
    EXPECT_EQ(Bits(t, 1e-300), 0u);
    // Largest subnormal rounds up into the smallest normal.
    const double min_normal = MinNormalValue(t);
    EXPECT_EQ(Bits(t, min_normal - tiny / 4), uint64_t{1} << GetFloatFormat(t)->mantissa_bits);
  }
  EXPECT_EQ(Bits(PT::F16, std::ldexp(1.0, -24)), 0x0001u);
  EXPECT_EQ(Bits(PT::F16, std::ldexp(1023.0, -24)), 0x03ffu);
  EXPECT_EQ(Val(PT::F16, 0x0200), std::ldexp(1.0, -15));
  // f32 subnormals from double.
  EXPECT_EQ(Bits(PT::F32, std::ldexp(1.0, -149)), 1u);
  EXPECT_EQ(Bits(PT::F32, std::ldexp(1.0, -150)), 0u);
}

TEST(FloatFormatTest, SignedAndUnsignedZero) {
  for (PT t : kAllFloatTypes) {
    const FloatFormat* f = GetFloatFormat(t);
    if (!f->has_zero) continue;
    EXPECT_EQ(Bits(t, 0.0), 0u) << PrimitiveTypeName(t);
    uint64_t nz = Bits(t, -0.0);
    if (f->has_negative_zero) {
      EXPECT_EQ(nz, f->sign_mask()) << PrimitiveTypeName(t);
      EXPECT_TRUE(std::signbit(Val(t, nz)));
      // Tiny negatives underflow to -0.
      if (t != PT::F64) {
        EXPECT_EQ(Bits(t, -1e-300), f->sign_mask()) << PrimitiveTypeName(t);
      }
    } else {
      EXPECT_EQ(nz, 0u) << PrimitiveTypeName(t);
      EXPECT_EQ(Bits(t, -1e-300), 0u) << PrimitiveTypeName(t);
    }
  }
  // e8m0 has no zero: 0 and negatives are NaN, tiny positives the minimum.
  EXPECT_EQ(Bits(PT::F8E8M0FNU, 0.0), 0xffu);
  EXPECT_EQ(Bits(PT::F8E8M0FNU, -0.0), 0xffu);
  EXPECT_EQ(Bits(PT::F8E8M0FNU, -2.0), 0xffu);
  EXPECT_EQ(Bits(PT::F8E8M0FNU, 1e-300), 0x00u);
}

TEST(FloatFormatTest, NanEncodings) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(Bits(PT::F16, nan), 0x7e00u);
  EXPECT_EQ(Bits(PT::F16, -nan), 0xfe00u);
  EXPECT_EQ(Bits(PT::BF16, nan), 0x7fc0u);
  EXPECT_EQ(Bits(PT::F32, nan), 0x7fc00000u);
  EXPECT_EQ(Bits(PT::F8E5M2, nan), 0x7eu);
  EXPECT_EQ(Bits(PT::F8E4M3, nan), 0x7cu);
  EXPECT_EQ(Bits(PT::F8E3M4, nan), 0x78u);
  EXPECT_EQ(Bits(PT::F8E4M3FN, nan), 0x7fu);
  EXPECT_EQ(Bits(PT::F8E4M3FN, -nan), 0xffu);
  for (PT t : {PT::F8E4M3B11FNUZ, PT::F8E5M2FNUZ, PT::F8E4M3FNUZ}) {
    EXPECT_EQ(Bits(t, nan), 0x80u);
    EXPECT_EQ(Bits(t, -nan), 0x80u);
    EXPECT_TRUE(std::isnan(Val(t, 0x80)));
    EXPECT_TRUE(SignBit(t, 0x80));
    EXPECT_TRUE(std::signbit(Val(t, 0x80)));  // ml_dtypes: the sign bit is set
  }
  EXPECT_EQ(Bits(PT::F8E8M0FNU, nan), 0xffu);
  EXPECT_EQ(Bits(PT::F8E8M0FNU, -nan), 0xffu);
  // f4e2m1fn has no NaN: ml_dtypes gives -0 for +NaN and +0 for -NaN.
  EXPECT_EQ(Bits(PT::F4E2M1FN, nan), 0x8u);
  EXPECT_EQ(Bits(PT::F4E2M1FN, -nan), 0x0u);
  for (int b = 0; b < 16; ++b) EXPECT_FALSE(IsNanBits(PT::F4E2M1FN, b));
}

TEST(FloatFormatTest, NanPayloads) {
  // XLA text style: nan(0x7f) is a double NaN with mantissa 0x7f.
  EXPECT_EQ(Bits(PT::F32, MakeDoubleNan(false, 0x7f)), 0x7f80007fu);
  EXPECT_EQ(Bits(PT::F32, MakeDoubleNan(true, 0x400001)), 0xffc00001u);
  EXPECT_EQ(Bits(PT::F16, MakeDoubleNan(false, 0x101)), 0x7d01u);
  EXPECT_EQ(Bits(PT::BF16, MakeDoubleNan(false, 0x41)), 0x7fc1u);
  EXPECT_EQ(Bits(PT::F8E5M2, MakeDoubleNan(false, 0x1)), 0x7du);
  // Hardware style: f32 NaN bits widened keep their place.
  for (uint32_t fb : {0x7fc00000u, 0x7f800001u, 0xffbfffffu, 0x7fc12345u}) {
    float f = FFromBits(fb);
    double d = FloatToDoubleExact(f);
    EXPECT_TRUE(std::isnan(d));
    EXPECT_EQ(FBits(DoubleToFloat(d)), fb);
    EXPECT_EQ(Bits(PT::F32, d), fb);
    EXPECT_EQ(EncodeFloat(PT::F32, f), fb);
  }
  // Not representable: quiet NaN of the sign.
  EXPECT_EQ(Bits(PT::F16, MakeDoubleNan(false, 0x12345678)), 0x7e00u | (0x12345678ull >> 42));
  EXPECT_EQ(Bits(PT::F16, MakeDoubleNan(false, 0x12345)), 0x7e00u);
  // Payload helpers.
  EXPECT_EQ(NanPayloadMask(PT::F32), 0x7fffffu);
  EXPECT_EQ(QuietNanPayload(PT::F16), 0x200u);
  EXPECT_EQ(NanPayload(PT::F16, 0x7d01), 0x101u);
  EXPECT_EQ(NanPayload(PT::F16, 0x3c00), 0u);
  EXPECT_EQ(MakeNanBits(PT::BF16, true, 0x41), std::optional<uint64_t>(0xffc1));
  EXPECT_EQ(MakeNanBits(PT::BF16, false, 0x80), std::nullopt);
  EXPECT_EQ(MakeNanBits(PT::F32, false, 0), std::nullopt);
  EXPECT_EQ(MakeNanBits(PT::F8E4M3FNUZ, true, 5), std::optional<uint64_t>(0x80));
  EXPECT_EQ(MakeNanBits(PT::F8E4M3FN, true, 5), std::optional<uint64_t>(0xff));
  EXPECT_EQ(MakeNanBits(PT::F4E2M1FN, false, 1), std::nullopt);
  EXPECT_EQ(NanPayloadMask(PT::F8E4M3FN), 0u);
  EXPECT_EQ(DoubleNanPayload(MakeDoubleNan(false, 0x7f)), 0x7fu);
  EXPECT_EQ(DBits(MakeDoubleNan(false, 0)), 0x7ff8000000000000ull);
  // Double bits survive f64 untouched.
  double d = MakeDoubleNan(true, 0x5);
  EXPECT_EQ(Bits(PT::F64, d), DBits(d));
}

TEST(FloatFormatTest, FloatInputMatchesDoubleInput) {
  std::mt19937 rng(5);
  for (int i = 0; i < 20000; ++i) {
    float f = FFromBits(static_cast<uint32_t>(rng()));
    for (PT t : kAllFloatTypes) {
      if (t == PT::F64) continue;
      ASSERT_EQ(EncodeFloat(t, f), EncodeFloat(t, FloatToDoubleExact(f))) << PrimitiveTypeName(t);
    }
  }
}

TEST(FloatFormatTest, RoundToIeeeFormatMatchesTypes) {
  std::mt19937_64 rng(9);
  for (int i = 0; i < 20000; ++i) {
    double scale = std::ldexp(1.0, static_cast<int>(rng() % 80) - 40);
    double v = (std::ldexp(static_cast<double>(rng() >> 11), -53) - 0.5) * scale;
    EXPECT_EQ(RoundToIeeeFormat(v, 5, 10), Val(PT::F16, Bits(PT::F16, v)));
    EXPECT_EQ(RoundToIeeeFormat(v, 8, 7), Val(PT::BF16, Bits(PT::BF16, v)));
    EXPECT_EQ(RoundToIeeeFormat(v, 8, 23), static_cast<double>(static_cast<float>(v)));
    EXPECT_EQ(RoundToIeeeFormat(v, 5, 2), Val(PT::F8E5M2, Bits(PT::F8E5M2, v)));
    EXPECT_EQ(RoundToIeeeFormat(v, 4, 3), Val(PT::F8E4M3, Bits(PT::F8E4M3, v)));
    EXPECT_EQ(RoundToIeeeFormat(v, 3, 4), Val(PT::F8E3M4, Bits(PT::F8E3M4, v)));
  }
  EXPECT_EQ(RoundToIeeeFormat(1.0 + std::ldexp(1.0, -53), 11, 52), 1.0 + std::ldexp(1.0, -53));
  EXPECT_EQ(RoundToIeeeFormat(1.0 + std::ldexp(1.0, -30), 11, 20), 1.0);
  EXPECT_TRUE(std::isinf(RoundToIeeeFormat(70000.0, 5, 10)));
  EXPECT_TRUE(std::isnan(RoundToIeeeFormat(std::nan(""), 5, 10)));
}

TEST(FloatFormatTest, ReducePrecisionXlaSemantics) {
  // Identity at the source's own widths.
  for (float v : {1.5f, -3.25e-40f, 3e38f, 0.0f}) EXPECT_EQ(FBits(ReducePrecision(v, 8, 23)), FBits(v));
  // Normal values: same as rounding to f16/bf16.
  std::mt19937 rng(1);
  for (int i = 0; i < 20000; ++i) {
    float v = std::ldexp(static_cast<float>(rng() % 100000) / 1000.0f - 50.0f, static_cast<int>(rng() % 20) - 10);
    if (std::fabs(v) >= std::ldexp(1.0f, -14) || v == 0) {
      EXPECT_EQ(ReducePrecision(v, 5, 10), static_cast<float>(Val(PT::F16, Bits(PT::F16, v)))) << v;
    }
    EXPECT_EQ(ReducePrecision(v, 8, 7), static_cast<float>(Val(PT::BF16, Bits(PT::BF16, v)))) << v;
  }
  // Reduced subnormals are flushed (not rounded) to signed zero.
  EXPECT_EQ(FBits(ReducePrecision(std::ldexp(1.0f, -20), 5, 10)), 0u);
  EXPECT_EQ(FBits(ReducePrecision(-std::ldexp(1.0f, -20), 5, 10)), 0x80000000u);
  // ... but a value that rounds up to the smallest normal survives.
  EXPECT_EQ(ReducePrecision(std::ldexp(4095.0f, -26), 5, 10), std::ldexp(1.0f, -14));
  EXPECT_EQ(ReducePrecision(std::ldexp(2047.0f, -25), 5, 10), 0.0f);
  // Overflow -> signed inf.
  EXPECT_TRUE(std::isinf(ReducePrecision(70000.0f, 5, 10)));
  EXPECT_EQ(ReducePrecision(-65520.0f, 5, 10), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(ReducePrecision(65519.0f, 5, 10), 65504.0f);
  // NaN stays the same NaN; with no mantissa bits it becomes +inf.
  float nan = FFromBits(0xffc00123u);
  EXPECT_EQ(FBits(ReducePrecision(nan, 5, 10)), 0xffc00123u);
  EXPECT_EQ(ReducePrecision(nan, 5, 0), std::numeric_limits<float>::infinity());
  // Doubles and f16 sources.
  EXPECT_EQ(ReducePrecision(1.0 + std::ldexp(1.0, -11), 5, 10), 1.0);
  EXPECT_EQ(ReducePrecision(std::ldexp(1.0, -130), 8, 23), 0.0);  // below f32 normal range
  EXPECT_EQ(ReducePrecisionOfType(PT::F16, 0x3c01, 5, 9), 0x3c00u);
  EXPECT_EQ(ReducePrecisionOfType(PT::F16, 0x3c03, 5, 9), 0x3c04u);
  EXPECT_EQ(ReducePrecisionOfType(PT::BF16, 0x3f81, 8, 6), 0x3f80u);
  // Non-IEEE types: by value, re-encoded.
  EXPECT_EQ(ReducePrecisionOfType(PT::F8E4M3FN, Bits(PT::F8E4M3FN, 1.125), 4, 2), Bits(PT::F8E4M3FN, 1.0));
  EXPECT_EQ(ReducePrecisionOfType(PT::F8E4M3FN, Bits(PT::F8E4M3FN, 448.0), 3, 3), 0x7fu);  // inf -> NaN
}

}  // namespace
}  // namespace hlo
