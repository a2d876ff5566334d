// Bit-level encode/decode of every floating-point element type (f16, bf16,
// f32, f64 and the f8/f4 family of element_type.h) to and from double/float,
// plus reduce-precision style rounding helpers that kernels can reuse.
//
// Semantics follow ml_dtypes / Eigen as used by XLA (non-saturating
// conversion, i.e. what `convert` and literal parsing do):
//   * rounding is round-to-nearest, ties to even, done once from the exact
//     double value (no double rounding through float);
//   * overflow (a value whose rounded magnitude exceeds the largest finite
//     value) and +-inf become the type's "infinity()":
//       f16 bf16 f32 f64 f8e5m2 f8e4m3 f8e3m4 -> +-inf
//       f8e4m3fn                               -> +-NaN (0x7f / 0xff)
//       f8e4m3b11fnuz f8e5m2fnuz f8e4m3fnuz    -> NaN (0x80)
//       f8e8m0fnu                              -> NaN (0xff)
//       f4e2m1fn (no inf, no NaN)              -> saturates to +-6
//   * NaN inputs: IEEE-like types keep the sign and (see below) the payload;
//     f8e4m3fn -> 0x7f/0xff; fnuz types -> 0x80; f8e8m0fnu -> 0xff;
//     f4e2m1fn (no NaN) -> 0x8 (-0) for +NaN and 0x0 (+0) for -NaN, which is
//     what ml_dtypes does (its quiet_NaN() is -0 and negating flips it).
//   * zero: fnuz types have no -0 (-0 and negative values rounding to zero
//     encode as 0x00); f8e8m0fnu has no zero: 0 and negative inputs are NaN,
//     positive values below 2^-127 become 2^-127 (0x00).
//   * decoding fnuz NaN (0x80) gives a NaN with the sign bit set (ml_dtypes
//     sees the sign bit), f8e8m0fnu 0xff gives +NaN.
//
// NaN payloads (IEEE-like types: f16 bf16 f32 f64 f8e5m2 f8e4m3 f8e3m4): the
// payload of a type is its whole mantissa field (quiet bit included).
// Decoding moves the field to the top of the double mantissa (as a hardware
// float->double conversion does, but without quieting), so decode/encode
// round-trips every NaN bit for bit. Encoding a double NaN with mantissa p
// into a type with m mantissa bits:
//   * p's low (52-m) bits are zero  -> field = p >> (52-m)   (hardware style;
//     the canonical quiet NaN maps to the canonical quiet NaN);
//   * else p < 2^m                  -> field = p             (XLA text style:
//     `nan(0x7f)` parsed as a double with payload 0x7f);
//   * else                          -> field = p >> (52-m), or the quiet bit
//     if that is zero (payload not representable).
// The two first cases cannot both apply, so the rule is unambiguous.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/element_type.h"

namespace hlo {

enum class NanEncoding {
  kIeee,          // exponent all ones, mantissa != 0 (inf: mantissa == 0)
  kAllOnes,       // magnitude all ones (f8e4m3fn: 0x7f/0xff; f8e8m0fnu: 0xff)
  kNegativeZero,  // the -0 pattern (fnuz types: 0x80)
  kNone,          // no NaN (f4e2m1fn)
};

enum class OverflowMode { kInfinity, kNan, kSaturate };

struct FloatFormat {
  PrimitiveType type = PrimitiveType::kInvalid;
  int total_bits = 0;
  int exponent_bits = 0;
  int mantissa_bits = 0;
  int exponent_bias = 0;
  bool is_signed = true;         // false: f8e8m0fnu
  bool has_inf = false;
  bool has_zero = true;          // false: f8e8m0fnu
  bool has_negative_zero = true; // false: fnuz types, f8e8m0fnu
  NanEncoding nan = NanEncoding::kIeee;
  OverflowMode overflow = OverflowMode::kInfinity;
  uint64_t max_finite_bits = 0;  // magnitude bits of the largest finite value
  uint64_t sign_mask() const { return is_signed ? uint64_t{1} << (total_bits - 1) : 0; }
  uint64_t mantissa_mask() const { return (uint64_t{1} << mantissa_bits) - 1; }
  uint64_t magnitude_mask() const {
    return (total_bits == 64 ? ~uint64_t{0} : (uint64_t{1} << total_bits) - 1) & ~sign_mask();
  }
};

// Format of a float element type (f16 ... f8e8m0fnu, f32, f64); nullptr for
// anything else (ints, complex, pred, token).
const FloatFormat* GetFloatFormat(PrimitiveType t);

// Encodes `v` into the bits of float type `t` (low total_bits bits of the
// result). Round-to-nearest-even; overflow/NaN/zero as described above.
uint64_t EncodeFloat(PrimitiveType t, double v);
// Same from a float (exact widening first, so no double rounding).
uint64_t EncodeFloat(PrimitiveType t, float v);
// Decodes bits of float type `t` (bits above total_bits are ignored).
double DecodeFloat(PrimitiveType t, uint64_t bits);
// Decodes to float (exact for every type but f64, which rounds).
float DecodeFloatToFloat(PrimitiveType t, uint64_t bits);

bool IsNanBits(PrimitiveType t, uint64_t bits);
bool IsInfBits(PrimitiveType t, uint64_t bits);
// Sign bit of the encoding (fnuz NaN 0x80 counts as negative).
bool SignBit(PrimitiveType t, uint64_t bits);

// NaN payloads (the mantissa field) of IEEE-like types; other types have a
// single NaN encoding and no payload (mask 0).
uint64_t NanPayloadMask(PrimitiveType t);
// The payload of the default quiet NaN (top mantissa bit), 0 if none.
uint64_t QuietNanPayload(PrimitiveType t);
// Payload of NaN bits (0 for non-NaN bits).
uint64_t NanPayload(PrimitiveType t, uint64_t bits);
// NaN bits with the given sign and payload; nullopt if the type has no NaN
// or the payload is 0 or does not fit. For single-NaN types the payload is
// ignored (their one NaN; fnuz ignores the sign too).
std::optional<uint64_t> MakeNanBits(PrimitiveType t, bool negative, uint64_t payload);
// Double NaN with the given sign and 52-bit mantissa field (payload != 0).
double MakeDoubleNan(bool negative, uint64_t payload);
// Double mantissa field of a NaN (0 for non-NaN).
uint64_t DoubleNanPayload(double v);

// Largest finite value / smallest positive normal / smallest positive
// subnormal (min normal when there are no subnormals) of a float type.
double MaxFiniteValue(PrimitiveType t);
double MinNormalValue(PrimitiveType t);
double MinPositiveValue(PrimitiveType t);

// Exact float <-> double moves that keep NaN bits (no quieting).
double FloatToDoubleExact(float f);
float DoubleToFloat(double d);  // RNE, overflow to inf, NaN payload rule above

// Narrow helpers for storage types (bits in the low part).
inline uint16_t EncodeF16(double v) { return static_cast<uint16_t>(EncodeFloat(PrimitiveType::F16, v)); }
inline uint16_t EncodeBF16(double v) { return static_cast<uint16_t>(EncodeFloat(PrimitiveType::BF16, v)); }
inline double DecodeF16(uint16_t b) { return DecodeFloat(PrimitiveType::F16, b); }
inline double DecodeBF16(uint16_t b) { return DecodeFloat(PrimitiveType::BF16, b); }

// Rounds a double to the nearest value of an IEEE-like format with the given
// exponent/mantissa widths (bias 2^(e-1)-1, subnormals kept, RNE, overflow to
// inf, NaN kept). 1 <= exponent_bits <= 11, 0 <= mantissa_bits <= 52.
double RoundToIeeeFormat(double v, int exponent_bits, int mantissa_bits);

// XLA `reduce-precision` semantics, applied to a value of a source format
// with src_exponent_bits/src_mantissa_bits given as raw bits (up to 64):
// the mantissa is rounded to nearest even at mantissa_bits (a carry may bump
// the exponent); if exponent_bits < src_exponent_bits, values whose exponent
// is above the reduced range become signed inf and values at or below the
// reduced minimum exponent (the reduced format's subnormals) become signed
// zero (XLA flushes them, it does not round them); NaN inputs stay the
// original NaN if mantissa_bits > 0, otherwise become +inf.
uint64_t ReducePrecisionBits(uint64_t bits, int src_exponent_bits, int src_mantissa_bits,
                             int exponent_bits, int mantissa_bits);
float ReducePrecision(float v, int exponent_bits, int mantissa_bits);
double ReducePrecision(double v, int exponent_bits, int mantissa_bits);
// For any float element type (bits of that type in and out); the source
// format is the type's own (f8/f4 types use their exponent/mantissa widths).
uint64_t ReducePrecisionOfType(PrimitiveType t, uint64_t bits, int exponent_bits, int mantissa_bits);

}  // namespace hlo
