#include "ir/float_format.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace hlo {
namespace {

constexpr int kDoubleMantissaBits = 52;
constexpr uint64_t kDoubleMantissaMask = (uint64_t{1} << kDoubleMantissaBits) - 1;
constexpr uint64_t kDoubleExpMask = uint64_t{0x7ff} << kDoubleMantissaBits;
constexpr uint64_t kDoubleSignMask = uint64_t{1} << 63;

uint64_t DoubleBits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}
double BitsToDouble(uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}
uint32_t FloatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}
float BitsToFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

FloatFormat Ieee(PrimitiveType t, int e, int m) {
  FloatFormat f;
  f.type = t;
  f.total_bits = 1 + e + m;
  f.exponent_bits = e;
  f.mantissa_bits = m;
  f.exponent_bias = (1 << (e - 1)) - 1;
  f.has_inf = true;
  f.nan = NanEncoding::kIeee;
  f.overflow = OverflowMode::kInfinity;
  f.max_finite_bits = ((((uint64_t{1} << e) - 2)) << m) | ((uint64_t{1} << m) - 1);
  return f;
}

FloatFormat Fn(PrimitiveType t, int e, int m, int bias) {  // f8e4m3fn
  FloatFormat f = Ieee(t, e, m);
  f.exponent_bias = bias;
  f.has_inf = false;
  f.nan = NanEncoding::kAllOnes;
  f.overflow = OverflowMode::kNan;
  f.max_finite_bits = (uint64_t{1} << (e + m)) - 2;
  return f;
}

FloatFormat Fnuz(PrimitiveType t, int e, int m, int bias) {
  FloatFormat f = Ieee(t, e, m);
  f.exponent_bias = bias;
  f.has_inf = false;
  f.has_negative_zero = false;
  f.nan = NanEncoding::kNegativeZero;
  f.overflow = OverflowMode::kNan;
  f.max_finite_bits = (uint64_t{1} << (e + m)) - 1;
  return f;
}

struct FormatTable {
  FloatFormat formats[kNumPrimitiveTypes];
  bool present[kNumPrimitiveTypes] = {};
  void Add(const FloatFormat& f) {
    formats[static_cast<int>(f.type)] = f;
    present[static_cast<int>(f.type)] = true;
  }
  FormatTable() {
    Add(Ieee(PrimitiveType::F16, 5, 10));
    Add(Ieee(PrimitiveType::BF16, 8, 7));
    Add(Ieee(PrimitiveType::F32, 8, 23));
    Add(Ieee(PrimitiveType::F64, 11, 52));
    Add(Ieee(PrimitiveType::F8E5M2, 5, 2));
    Add(Ieee(PrimitiveType::F8E4M3, 4, 3));
    Add(Ieee(PrimitiveType::F8E3M4, 3, 4));
    Add(Fn(PrimitiveType::F8E4M3FN, 4, 3, 7));
    Add(Fnuz(PrimitiveType::F8E4M3B11FNUZ, 4, 3, 11));
    Add(Fnuz(PrimitiveType::F8E5M2FNUZ, 5, 2, 16));
    Add(Fnuz(PrimitiveType::F8E4M3FNUZ, 4, 3, 8));
    {
      FloatFormat f = Ieee(PrimitiveType::F4E2M1FN, 2, 1);
      f.exponent_bias = 1;
      f.has_inf = false;
      f.nan = NanEncoding::kNone;
      f.overflow = OverflowMode::kSaturate;
      f.max_finite_bits = 0x7;
      Add(f);
    }
    {
      FloatFormat f;
      f.type = PrimitiveType::F8E8M0FNU;
      f.total_bits = 8;
      f.exponent_bits = 8;
      f.mantissa_bits = 0;
      f.exponent_bias = 127;
      f.is_signed = false;
      f.has_inf = false;
      f.has_zero = false;
      f.has_negative_zero = false;
      f.nan = NanEncoding::kAllOnes;
      f.overflow = OverflowMode::kNan;
      f.max_finite_bits = 0xfe;
      Add(f);
    }
  }
};

const FormatTable& Table() {
  static const FormatTable* table = new FormatTable();
  return *table;
}

// The one NaN encoding of a type (with sign where the type keeps it).
uint64_t DefaultNanBits(const FloatFormat& f, bool negative) {
  switch (f.nan) {
    case NanEncoding::kIeee: {
      uint64_t b = (((uint64_t{1} << f.exponent_bits) - 1) << f.mantissa_bits) |
                   (uint64_t{1} << (f.mantissa_bits - 1));
      return negative ? b | f.sign_mask() : b;
    }
    case NanEncoding::kAllOnes:
      return f.magnitude_mask() | (negative ? f.sign_mask() : 0);
    case NanEncoding::kNegativeZero:
      return f.sign_mask();
    case NanEncoding::kNone:
      // ml_dtypes: quiet_NaN() is the -0 pattern; negation flips its sign.
      return negative ? 0 : f.sign_mask();
  }
  return 0;
}

uint64_t InfBits(const FloatFormat& f, bool negative) {
  const uint64_t sign = negative ? f.sign_mask() : 0;
  switch (f.overflow) {
    case OverflowMode::kInfinity:
      return sign | (((uint64_t{1} << f.exponent_bits) - 1) << f.mantissa_bits);
    case OverflowMode::kNan:
      return DefaultNanBits(f, negative);
    case OverflowMode::kSaturate:
      return sign | f.max_finite_bits;
  }
  return 0;
}

// NaN of a double into an IEEE-like format (payload rule of the header).
uint64_t EncodeNan(const FloatFormat& f, double v) {
  const bool negative = std::signbit(v);
  if (f.nan != NanEncoding::kIeee) return DefaultNanBits(f, negative);
  const uint64_t p = DoubleBits(v) & kDoubleMantissaMask;
  const int m = f.mantissa_bits;
  const int shift = kDoubleMantissaBits - m;
  uint64_t field;
  const uint64_t low_mask = shift >= 64 ? ~uint64_t{0} : (uint64_t{1} << shift) - 1;
  if ((p & low_mask) == 0) {
    field = p >> shift;
  } else if (p < (uint64_t{1} << m)) {
    field = p;
  } else {
    field = p >> shift;
    if (field == 0) field = uint64_t{1} << (m - 1);
  }
  uint64_t b = (((uint64_t{1} << f.exponent_bits) - 1) << m) | field;
  return negative ? b | f.sign_mask() : b;
}

// Round-to-nearest-even of a non-negative double that is an exact multiple
// of a power of two away from an integer (y = x * 2^-q computed exactly).
uint64_t RoundHalfEven(double y) {
  double fl = std::floor(y);
  double frac = y - fl;  // exact
  uint64_t k = static_cast<uint64_t>(fl);
  if (frac > 0.5 || (frac == 0.5 && (k & 1))) ++k;
  return k;
}

// Finite, non-zero |v| into the magnitude bits of a format with subnormals
// (everything but e8m0). Returns a value above max_finite_bits on overflow.
uint64_t EncodeMagnitude(const FloatFormat& f, double a) {
  const int m = f.mantissa_bits;
  int ex;
  std::frexp(a, &ex);
  const int e_unb = ex - 1;                 // floor(log2 a)
  const int emin = 1 - f.exponent_bias;     // smallest normal exponent
  const int emax_field = (1 << f.exponent_bits) + 1;  // beyond any field
  if (e_unb + f.exponent_bias > emax_field) return f.max_finite_bits + 1;
  const int qexp = (e_unb > emin ? e_unb : emin) - m;
  if (qexp - 2 > e_unb) return 0;  // far below half the smallest subnormal
  const uint64_t k = RoundHalfEven(std::ldexp(a, -qexp));
  const int64_t biased = e_unb + f.exponent_bias;
  const uint64_t field = static_cast<uint64_t>(biased > 1 ? biased : 1);
  // k in [0, 2^(m+1)]; a carry to 2^(m+1) moves into the exponent naturally.
  return (field << m) + k - (uint64_t{1} << m);
}

uint64_t EncodeE8M0(const FloatFormat& f, double v) {
  if (std::isnan(v) || v <= 0 || std::isinf(v)) return 0xff;  // zero/negative/inf -> NaN
  int ex;
  std::frexp(v, &ex);
  const int e_unb = ex - 1;
  if (e_unb < -127) return 0x00;  // below 2^-127: the smallest value
  if (e_unb > 128) return 0xff;
  const uint64_t k = RoundHalfEven(std::ldexp(v, -e_unb));  // 1 or 2
  const uint64_t bits = static_cast<uint64_t>(e_unb + 127) + k - 1;
  return bits > f.max_finite_bits ? 0xff : bits;
}

double DecodeWith(const FloatFormat& f, uint64_t bits) {
  bits &= f.total_bits == 64 ? ~uint64_t{0} : (uint64_t{1} << f.total_bits) - 1;
  if (f.type == PrimitiveType::F64) return BitsToDouble(bits);
  if (f.type == PrimitiveType::F8E8M0FNU) {
    if (bits == 0xff) return std::numeric_limits<double>::quiet_NaN();
    return std::ldexp(1.0, static_cast<int>(bits) - 127);
  }
  const bool negative = (bits & f.sign_mask()) != 0;
  const uint64_t mag = bits & f.magnitude_mask();
  const int m = f.mantissa_bits;
  const uint64_t exp_field = mag >> m;
  const uint64_t frac = mag & f.mantissa_mask();
  const uint64_t exp_all = (uint64_t{1} << f.exponent_bits) - 1;
  switch (f.nan) {
    case NanEncoding::kIeee:
      if (exp_field == exp_all) {
        if (frac == 0) {
          double inf = std::numeric_limits<double>::infinity();
          return negative ? -inf : inf;
        }
        uint64_t d = kDoubleExpMask | (frac << (kDoubleMantissaBits - m));
        return BitsToDouble(negative ? d | kDoubleSignMask : d);
      }
      break;
    case NanEncoding::kAllOnes:
      if (mag == f.magnitude_mask()) {
        double nan = std::numeric_limits<double>::quiet_NaN();
        return negative ? -nan : nan;
      }
      break;
    case NanEncoding::kNegativeZero:
      if (bits == f.sign_mask()) return -std::numeric_limits<double>::quiet_NaN();
      break;
    case NanEncoding::kNone:
      break;
  }
  double value;
  if (exp_field == 0) {
    value = std::ldexp(static_cast<double>(frac), 1 - f.exponent_bias - m);
  } else {
    value = std::ldexp(static_cast<double>((uint64_t{1} << m) | frac),
                       static_cast<int>(exp_field) - f.exponent_bias - m);
  }
  return negative ? -value : value;
}

uint64_t EncodeWith(const FloatFormat& f, double v) {
  if (f.type == PrimitiveType::F64) return DoubleBits(v);
  if (std::isnan(v)) return EncodeNan(f, v);
  if (f.type == PrimitiveType::F8E8M0FNU) return EncodeE8M0(f, v);
  const bool negative = std::signbit(v);
  const uint64_t sign = negative ? f.sign_mask() : 0;
  if (std::isinf(v)) return InfBits(f, negative);
  if (f.type == PrimitiveType::F32) {
    return FloatBits(static_cast<float>(v));  // hardware RNE, overflow to inf
  }
  const double a = std::fabs(v);
  uint64_t mag = a == 0 ? 0 : EncodeMagnitude(f, a);
  if (mag > f.max_finite_bits) return InfBits(f, negative);
  if (mag == 0 && !f.has_negative_zero) return 0;
  return sign | mag;
}

const FloatFormat& FormatOrDie(PrimitiveType t) {
  const FloatFormat* f = GetFloatFormat(t);
  if (f == nullptr) return Table().formats[static_cast<int>(PrimitiveType::F64)];
  return *f;
}

}  // namespace

const FloatFormat* GetFloatFormat(PrimitiveType t) {
  int i = static_cast<int>(t);
  if (i < 0 || i >= kNumPrimitiveTypes || !Table().present[i]) return nullptr;
  return &Table().formats[i];
}

uint64_t EncodeFloat(PrimitiveType t, double v) { return EncodeWith(FormatOrDie(t), v); }

uint64_t EncodeFloat(PrimitiveType t, float v) {
  return EncodeWith(FormatOrDie(t), FloatToDoubleExact(v));
}

double DecodeFloat(PrimitiveType t, uint64_t bits) { return DecodeWith(FormatOrDie(t), bits); }

float DecodeFloatToFloat(PrimitiveType t, uint64_t bits) {
  if (t == PrimitiveType::F32) return BitsToFloat(static_cast<uint32_t>(bits));
  return DoubleToFloat(DecodeFloat(t, bits));
}

bool IsNanBits(PrimitiveType t, uint64_t bits) { return std::isnan(DecodeFloat(t, bits)); }
bool IsInfBits(PrimitiveType t, uint64_t bits) { return std::isinf(DecodeFloat(t, bits)); }

bool SignBit(PrimitiveType t, uint64_t bits) {
  const FloatFormat& f = FormatOrDie(t);
  return (bits & f.sign_mask()) != 0;
}

uint64_t NanPayloadMask(PrimitiveType t) {
  const FloatFormat* f = GetFloatFormat(t);
  if (f == nullptr || f->nan != NanEncoding::kIeee) return 0;
  return f->mantissa_mask();
}

uint64_t QuietNanPayload(PrimitiveType t) {
  const FloatFormat* f = GetFloatFormat(t);
  if (f == nullptr || f->nan != NanEncoding::kIeee) return 0;
  return uint64_t{1} << (f->mantissa_bits - 1);
}

uint64_t NanPayload(PrimitiveType t, uint64_t bits) {
  const FloatFormat* f = GetFloatFormat(t);
  if (f == nullptr || f->nan != NanEncoding::kIeee || !IsNanBits(t, bits)) return 0;
  return bits & f->mantissa_mask();
}

std::optional<uint64_t> MakeNanBits(PrimitiveType t, bool negative, uint64_t payload) {
  const FloatFormat* f = GetFloatFormat(t);
  if (f == nullptr || f->nan == NanEncoding::kNone) return std::nullopt;
  if (f->nan != NanEncoding::kIeee) return DefaultNanBits(*f, negative);
  if (payload == 0 || (payload & ~f->mantissa_mask()) != 0) return std::nullopt;
  uint64_t b = (((uint64_t{1} << f->exponent_bits) - 1) << f->mantissa_bits) | payload;
  return negative ? b | f->sign_mask() : b;
}

double MakeDoubleNan(bool negative, uint64_t payload) {
  uint64_t b = kDoubleExpMask | (payload & kDoubleMantissaMask);
  if ((payload & kDoubleMantissaMask) == 0) b |= uint64_t{1} << 51;
  return BitsToDouble(negative ? b | kDoubleSignMask : b);
}

uint64_t DoubleNanPayload(double v) {
  return std::isnan(v) ? DoubleBits(v) & kDoubleMantissaMask : 0;
}

double MaxFiniteValue(PrimitiveType t) {
  const FloatFormat& f = FormatOrDie(t);
  return DecodeWith(f, f.max_finite_bits);
}

double MinNormalValue(PrimitiveType t) {
  const FloatFormat& f = FormatOrDie(t);
  if (!f.has_zero) return DecodeWith(f, 0);
  return DecodeWith(f, uint64_t{1} << f.mantissa_bits);
}

double MinPositiveValue(PrimitiveType t) {
  const FloatFormat& f = FormatOrDie(t);
  if (!f.has_zero || f.mantissa_bits == 0) return MinNormalValue(t);
  return DecodeWith(f, 1);
}

double FloatToDoubleExact(float f) {
  if (!std::isnan(f)) return static_cast<double>(f);
  uint32_t b = FloatBits(f);
  uint64_t d = kDoubleExpMask | (static_cast<uint64_t>(b & 0x7fffff) << (kDoubleMantissaBits - 23));
  if (b >> 31) d |= kDoubleSignMask;
  return BitsToDouble(d);
}

float DoubleToFloat(double d) {
  if (!std::isnan(d)) return static_cast<float>(d);
  return BitsToFloat(static_cast<uint32_t>(EncodeNan(FormatOrDie(PrimitiveType::F32), d)));
}

double RoundToIeeeFormat(double v, int exponent_bits, int mantissa_bits) {
  if (exponent_bits < 1) exponent_bits = 1;
  if (exponent_bits > 11) exponent_bits = 11;
  if (mantissa_bits < 0) mantissa_bits = 0;
  if (mantissa_bits > 52) mantissa_bits = 52;
  if (exponent_bits == 11 && mantissa_bits == 52) return v;
  if (std::isnan(v) || std::isinf(v)) return v;
  FloatFormat f = Ieee(PrimitiveType::kInvalid, exponent_bits, mantissa_bits);
  const bool negative = std::signbit(v);
  const double a = std::fabs(v);
  if (a == 0) return v;
  double r;
  if (exponent_bits == 11) {
    // Same range as double: only the mantissa shrinks (subnormal quantum too).
    int ex;
    std::frexp(a, &ex);
    int e_unb = ex - 1;
    int qexp = (e_unb > -1022 ? e_unb : -1022) - mantissa_bits;
    r = std::ldexp(static_cast<double>(RoundHalfEven(std::ldexp(a, -qexp))), qexp);
  } else {
    uint64_t mag = EncodeMagnitude(f, a);
    r = mag > f.max_finite_bits ? std::numeric_limits<double>::infinity() : DecodeWith(f, mag);
  }
  return negative ? -r : r;
}

uint64_t ReducePrecisionBits(uint64_t bits, int src_e, int src_m, int e, int m) {
  const int total = 1 + src_e + src_m;
  const uint64_t all = total >= 64 ? ~uint64_t{0} : (uint64_t{1} << total) - 1;
  const uint64_t sign_mask = uint64_t{1} << (total - 1);
  const uint64_t exp_mask = ((uint64_t{1} << src_e) - 1) << src_m;
  const uint64_t mant_mask = (uint64_t{1} << src_m) - 1;
  bits &= all;
  const uint64_t original = bits;
  const bool is_nan = (bits & exp_mask) == exp_mask && (bits & mant_mask) != 0;
  if (m < src_m) {
    const int drop = src_m - (m < 0 ? 0 : m);
    const uint64_t last = uint64_t{1} << drop;
    const uint64_t base_bias = (last >> 1) - 1;
    const uint64_t last_bit = (bits & last) >> drop;
    bits = ((bits + last_bit + base_bias) & ~(last - 1)) & all;
  }
  if (e < src_e) {
    const uint64_t src_bias = (uint64_t{1} << (src_e - 1)) - 1;
    const uint64_t red_bias = e >= 1 ? (uint64_t{1} << (e - 1)) - 1 : 0;
    const uint64_t max_exp = src_bias + red_bias;
    const uint64_t min_exp = src_bias - red_bias;
    const uint64_t x_exp = bits & exp_mask;
    const uint64_t signed_zero = bits & sign_mask;
    if (x_exp > (max_exp << src_m)) bits = signed_zero | exp_mask;
    if (x_exp <= (min_exp << src_m)) bits = signed_zero;
  }
  if (is_nan) bits = m > 0 ? original : exp_mask;  // +inf when no mantissa
  return bits;
}

float ReducePrecision(float v, int exponent_bits, int mantissa_bits) {
  return BitsToFloat(static_cast<uint32_t>(
      ReducePrecisionBits(FloatBits(v), 8, 23, exponent_bits, mantissa_bits)));
}

double ReducePrecision(double v, int exponent_bits, int mantissa_bits) {
  return BitsToDouble(ReducePrecisionBits(DoubleBits(v), 11, 52, exponent_bits, mantissa_bits));
}

uint64_t ReducePrecisionOfType(PrimitiveType t, uint64_t bits, int exponent_bits, int mantissa_bits) {
  const FloatFormat& f = FormatOrDie(t);
  if (f.nan == NanEncoding::kIeee) {
    return ReducePrecisionBits(bits, f.exponent_bits, f.mantissa_bits, exponent_bits, mantissa_bits);
  }
  // Non-IEEE encodings: the same rule on values, then re-encoded.
  double v = DecodeWith(f, bits);
  if (std::isnan(v)) return mantissa_bits > 0 ? bits : EncodeWith(f, std::numeric_limits<double>::infinity());
  if (v == 0) return bits;
  const bool negative = std::signbit(v);
  double a = std::fabs(v);
  if (mantissa_bits < f.mantissa_bits) {
    int ex;
    std::frexp(a, &ex);
    const int e_unb = ex - 1;
    const int src_emin = 1 - f.exponent_bias;
    const int qexp = (e_unb > src_emin ? e_unb : src_emin) - (mantissa_bits < 0 ? 0 : mantissa_bits);
    a = std::ldexp(static_cast<double>(RoundHalfEven(std::ldexp(a, -qexp))), qexp);
  }
  if (exponent_bits < f.exponent_bits && a != 0) {
    const int red_bias = exponent_bits >= 1 ? (1 << (exponent_bits - 1)) - 1 : 0;
    int ex;
    std::frexp(a, &ex);
    const int e_unb = ex - 1;
    if (e_unb > red_bias) a = std::numeric_limits<double>::infinity();
    else if (e_unb <= -red_bias) a = 0;
  }
  return EncodeWith(f, negative ? -a : a);
}

}  // namespace hlo
