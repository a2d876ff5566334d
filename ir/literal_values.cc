// Value conversions of Literal elements through their element type.
//
// Storage (one unpacked element per PrimitiveTypeByteSize() bytes):
//   pred: uint8_t 0/1; sub-byte signed ints (s1 s2 s4): int8_t holding the
//   sign-extended value; sub-byte unsigned ints (u1 u2 u4): uint8_t holding
//   the value; other ints: their own width; f16/bf16: uint16_t bits;
//   f8/f4: uint8_t bits (f4 in the low nibble); f32/f64: native;
//   c64/c128: std::complex<float/double>.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "ir/float_format.h"
#include "ir/literal.h"

namespace hlo {
namespace {

uint64_t WidthMask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

// Wraps v to `bits` bits: sign-extended for signed types, zero-extended else.
int64_t WrapInt(int64_t v, int bits, bool is_signed) {
  if (bits >= 64) return v;
  uint64_t u = static_cast<uint64_t>(v) & WidthMask(bits);
  if (is_signed && (u >> (bits - 1)) & 1) u |= ~WidthMask(bits);
  return static_cast<int64_t>(u);
}

// int64 -> double rounded to odd when inexact, so that a second rounding to
// a format of at most 25 significant bits equals one direct rounding.
double IntToDoubleRoundOdd(int64_t v) {
  const bool negative = v < 0;
  uint64_t u = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  if (u < (uint64_t{1} << 53)) return negative ? -static_cast<double>(u) : static_cast<double>(u);
  int shift = 0;
  while ((u >> shift) >= (uint64_t{1} << 53)) ++shift;
  uint64_t t = u >> shift;
  if (u & WidthMask(shift)) t |= 1;
  double d = std::ldexp(static_cast<double>(t), shift);
  return negative ? -d : d;
}

// XLA float -> integer conversion: truncate toward zero, NaN -> 0, saturate
// to the type's range (min/max of its bit width).
int64_t DoubleToIntSaturating(double v, int bits, bool is_signed) {
  if (std::isnan(v)) return 0;
  double t = std::trunc(v);
  if (is_signed) {
    const double lo = -std::ldexp(1.0, bits - 1);
    const double hi = std::ldexp(1.0, bits - 1);  // exclusive
    if (t <= lo) return bits >= 64 ? std::numeric_limits<int64_t>::min()
                                   : -(int64_t{1} << (bits - 1));
    if (t >= hi) return bits >= 64 ? std::numeric_limits<int64_t>::max()
                                   : (int64_t{1} << (bits - 1)) - 1;
    return static_cast<int64_t>(t);
  }
  if (t <= 0) return 0;
  const double hi = std::ldexp(1.0, bits);  // exclusive
  if (t >= hi) return static_cast<int64_t>(WidthMask(bits));  // u64 max bit-cast
  if (t >= std::ldexp(1.0, 63)) return static_cast<int64_t>(static_cast<uint64_t>(t));
  return static_cast<int64_t>(t);
}

int64_t DoubleToInt64Truncating(double v) {
  if (std::isnan(v)) return 0;
  if (v >= std::ldexp(1.0, 63)) return std::numeric_limits<int64_t>::max();
  if (v <= -std::ldexp(1.0, 63)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// Narrow (and f32) float bits storage helpers.
uint64_t ReadBits(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  std::memcpy(&v, p, bytes);  // little-endian host
  return v;
}
void WriteBits(uint8_t* p, int bytes, uint64_t v) { std::memcpy(p, &v, bytes); }

}  // namespace

// Bytes GetFloatBits/SetFloatBits move: the element, or for complex types
// the real part.
static int BitsBytes(PrimitiveType t) {
  if (t == PrimitiveType::C64) return 4;
  if (t == PrimitiveType::C128) return 8;
  return PrimitiveTypeByteSize(t);
}

uint64_t Literal::GetFloatBits(int64_t slot) const {
  const int b = element_bytes();
  if (b == 0) return 0;
  return ReadBits(data() + slot * b, BitsBytes(shape_.element_type()));
}

void Literal::SetFloatBits(int64_t slot, uint64_t bits) {
  const int b = element_bytes();
  if (b == 0) return;
  WriteBits(data() + slot * b, BitsBytes(shape_.element_type()), bits);
}

double Literal::GetDouble(int64_t slot) const {
  const PrimitiveType t = shape_.element_type();
  switch (t) {
    case PrimitiveType::PRED:
      return GetRaw<uint8_t>(slot) != 0 ? 1.0 : 0.0;
    case PrimitiveType::F32:
      return FloatToDoubleExact(GetRaw<float>(slot));
    case PrimitiveType::F64:
      return GetRaw<double>(slot);
    case PrimitiveType::C64:
      return FloatToDoubleExact(GetRaw<std::complex<float>>(slot).real());
    case PrimitiveType::C128:
      return GetRaw<std::complex<double>>(slot).real();
    case PrimitiveType::U64:
      return static_cast<double>(GetRaw<uint64_t>(slot));
    default:
      break;
  }
  if (IsFloat(t)) return DecodeFloat(t, GetFloatBits(slot));
  if (IsInteger(t)) return static_cast<double>(GetInt(slot));
  return 0.0;
}

int64_t Literal::GetInt(int64_t slot) const {
  const PrimitiveType t = shape_.element_type();
  if (t == PrimitiveType::PRED) return GetRaw<uint8_t>(slot) != 0 ? 1 : 0;
  if (IsInteger(t)) {
    const int bits = PrimitiveTypeBitWidth(t);
    const uint64_t raw = ReadBits(data() + slot * element_bytes(), element_bytes());
    return WrapInt(static_cast<int64_t>(raw), bits, IsSignedInt(t));
  }
  if (IsFloat(t) || IsComplex(t)) return DoubleToInt64Truncating(GetDouble(slot));
  return 0;
}

std::complex<double> Literal::GetComplex(int64_t slot) const {
  switch (shape_.element_type()) {
    case PrimitiveType::C64: {
      std::complex<float> c = GetRaw<std::complex<float>>(slot);
      return {FloatToDoubleExact(c.real()), FloatToDoubleExact(c.imag())};
    }
    case PrimitiveType::C128:
      return GetRaw<std::complex<double>>(slot);
    default:
      return {GetDouble(slot), 0.0};
  }
}

void Literal::SetDouble(int64_t slot, double v) {
  const PrimitiveType t = shape_.element_type();
  switch (t) {
    case PrimitiveType::PRED:
      SetRaw<uint8_t>(slot, v != 0 ? 1 : 0);
      return;
    case PrimitiveType::F32:
      SetRaw<float>(slot, DoubleToFloat(v));
      return;
    case PrimitiveType::F64:
      SetRaw<double>(slot, v);
      return;
    case PrimitiveType::C64:
      SetRaw<std::complex<float>>(slot, {DoubleToFloat(v), 0.0f});
      return;
    case PrimitiveType::C128:
      SetRaw<std::complex<double>>(slot, {v, 0.0});
      return;
    default:
      break;
  }
  if (IsFloat(t)) {
    SetFloatBits(slot, EncodeFloat(t, v));
  } else if (IsInteger(t)) {
    SetInt(slot, DoubleToIntSaturating(v, PrimitiveTypeBitWidth(t), IsSignedInt(t)));
  }
}

void Literal::SetInt(int64_t slot, int64_t v) {
  const PrimitiveType t = shape_.element_type();
  if (t == PrimitiveType::PRED) {
    SetRaw<uint8_t>(slot, v != 0 ? 1 : 0);
    return;
  }
  if (IsInteger(t)) {
    const int bits = PrimitiveTypeBitWidth(t);
    const int64_t w = WrapInt(v, bits, IsSignedInt(t));
    WriteBits(data() + slot * element_bytes(), element_bytes(), static_cast<uint64_t>(w));
    return;
  }
  switch (t) {
    case PrimitiveType::F64:
      SetRaw<double>(slot, static_cast<double>(v));
      return;
    case PrimitiveType::C128:
      SetRaw<std::complex<double>>(slot, {static_cast<double>(v), 0.0});
      return;
    default:
      break;
  }
  if (IsFloatOrComplex(t)) SetDouble(slot, IntToDoubleRoundOdd(v));
}

void Literal::SetComplex(int64_t slot, std::complex<double> v) {
  switch (shape_.element_type()) {
    case PrimitiveType::C64:
      SetRaw<std::complex<float>>(slot, {DoubleToFloat(v.real()), DoubleToFloat(v.imag())});
      return;
    case PrimitiveType::C128:
      SetRaw<std::complex<double>>(slot, v);
      return;
    default:
      SetDouble(slot, v.real());
  }
}

namespace {

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A small finite value every float type can hold: multiples of 0.5 in
// [-6, 6] (f4e2m1fn's range); powers of two in [2^-4, 2^4] for the
// unsigned exponent-only f8e8m0fnu.
double SmallValue(uint64_t r, PrimitiveType t) {
  if (t == PrimitiveType::F8E8M0FNU) return std::ldexp(1.0, static_cast<int>(r % 9) - 4);
  return (static_cast<double>((r >> 11) % 25) - 12.0) * 0.5;
}

}  // namespace

void Literal::FillDeterministic(uint64_t seed) {
  if (IsTuple()) {
    for (size_t i = 0; i < elements_.size(); ++i)
      elements_[i].FillDeterministic(SplitMix64(seed ^ (0x51ed27aull * (i + 1))));
    return;
  }
  if (!shape_.IsArray()) return;
  if (size_bytes() > 0) std::memset(data(), 0, size_bytes());
  // Values depend on the logical position only: any layout of the same shape
  // gets the same logical values (padding stays zero).
  const std::vector<int64_t> slots = PhysicalIndexTable(shape_);
  const PrimitiveType t = shape_.element_type();
  for (size_t i = 0; i < slots.size(); ++i) {
    const uint64_t r = SplitMix64(seed * 0x100000001b3ull + i);
    const int64_t s = slots[i];
    if (t == PrimitiveType::PRED) {
      SetRaw<uint8_t>(s, static_cast<uint8_t>(r & 1));
    } else if (IsInteger(t)) {
      SetInt(s, static_cast<int64_t>(r));
    } else if (IsComplex(t)) {
      SetComplex(s, {SmallValue(r, t), SmallValue(SplitMix64(r), t)});
    } else if (IsFloat(t)) {
      SetDouble(s, SmallValue(r, t));
    }
  }
}

}  // namespace hlo
