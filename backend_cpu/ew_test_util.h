// Test helpers for the elementwise kernel tests (not part of the library).
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <vector>

#include "backend_cpu/elementwise_kernels.h"
#include "gtest/gtest.h"
#include "ir/element_type.h"
#include "ir/float_format.h"

namespace hlo::cpu::testing {

// A typed buffer of n elements of an element type, as raw bytes.
struct Buf {
  PrimitiveType type = PrimitiveType::kInvalid;
  std::vector<unsigned char> bytes;
  int64_t n() const { return static_cast<int64_t>(bytes.size()) / PrimitiveTypeByteSize(type); }
  template <typename T>
  T get(int64_t i) const {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    return v;
  }
  template <typename T>
  void set(int64_t i, T v) {
    std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
  }
  // Raw bits of element i (up to 8 bytes), zero-extended.
  uint64_t bits(int64_t i) const {
    uint64_t v = 0;
    std::memcpy(&v, bytes.data() + i * PrimitiveTypeByteSize(type),
                std::min<int>(8, PrimitiveTypeByteSize(type)));
    return v;
  }
  void set_bits(int64_t i, uint64_t v) {
    std::memcpy(bytes.data() + i * PrimitiveTypeByteSize(type), &v,
                std::min<int>(8, PrimitiveTypeByteSize(type)));
  }
};

inline Buf MakeBuf(PrimitiveType t, int64_t n) {
  Buf b;
  b.type = t;
  b.bytes.assign(static_cast<size_t>(n * PrimitiveTypeByteSize(t)), 0);
  return b;
}

template <typename T>
Buf BufOf(PrimitiveType t, std::initializer_list<T> values) {
  Buf b = MakeBuf(t, static_cast<int64_t>(values.size()));
  EXPECT_EQ(sizeof(T), static_cast<size_t>(PrimitiveTypeByteSize(t)));
  int64_t i = 0;
  for (T v : values) b.set(i++, v);
  return b;
}

// Integer value -> canonical storage bits of an integer/pred type (wraps).
inline uint64_t IntBits(PrimitiveType t, int64_t v) {
  int bits = PrimitiveTypeBitWidth(t);
  if (t == PrimitiveType::PRED) return v != 0;
  uint64_t m = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  uint64_t p = static_cast<uint64_t>(v) & m;
  if (IsSignedInt(t) && bits < 64 && (p >> (bits - 1))) p |= ~m;  // sign-extend
  int bytes = PrimitiveTypeByteSize(t);
  if (bytes < 8) p &= (uint64_t{1} << (8 * bytes)) - 1;
  return p;
}
// Storage bits of an integer type -> its value.
inline int64_t IntValue(PrimitiveType t, uint64_t bits) {
  int w = PrimitiveTypeBitWidth(t);
  if (t == PrimitiveType::PRED) return bits != 0;
  uint64_t m = w == 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  uint64_t p = bits & m;
  if (IsSignedInt(t) && w < 64 && (p >> (w - 1))) return static_cast<int64_t>(p | ~m);
  return static_cast<int64_t>(p);
}

inline Buf IntBuf(PrimitiveType t, std::initializer_list<int64_t> values) {
  Buf b = MakeBuf(t, static_cast<int64_t>(values.size()));
  int64_t i = 0;
  for (int64_t v : values) b.set_bits(i++, IntBits(t, v));
  return b;
}

// Float value -> storage bits (RNE through float_format; f32/f64 exact casts).
inline Buf FloatBuf(PrimitiveType t, std::initializer_list<double> values) {
  Buf b = MakeBuf(t, static_cast<int64_t>(values.size()));
  int64_t i = 0;
  for (double v : values) {
    if (t == PrimitiveType::F64) b.set(i, v);
    else if (t == PrimitiveType::F32) b.set(i, static_cast<float>(v));
    else b.set_bits(i, EncodeFloat(t, v));
    ++i;
  }
  return b;
}

inline double FloatValue(const Buf& b, int64_t i) {
  if (b.type == PrimitiveType::F64) return b.get<double>(i);
  if (b.type == PrimitiveType::F32) return b.get<float>(i);
  return DecodeFloat(b.type, b.bits(i));
}

// Runs op on the inputs (all with the same element count) and returns the result.
inline Buf RunOp(Opcode op, const std::vector<const Buf*>& inputs, PrimitiveType result,
               const ElementwiseAttrs& attrs = {}) {
  std::vector<PrimitiveType> types;
  std::vector<const void*> ptrs;
  for (const Buf* b : inputs) {
    types.push_back(b->type);
    ptrs.push_back(b->bytes.data());
  }
  auto k = SelectElementwiseKernel(op, types, result, attrs);
  EXPECT_TRUE(k.ok()) << k.status();
  int64_t n = inputs.empty() ? 0 : inputs[0]->n();
  Buf out = MakeBuf(result, n);
  if (!k.ok()) return out;
  RunElementwise(*k, ptrs, out.bytes.data(), n, attrs.params(), /*min_block=*/64);
  return out;
}
inline Buf Run1(Opcode op, const Buf& a, PrimitiveType r, const ElementwiseAttrs& at = {}) {
  return RunOp(op, {&a}, r, at);
}
inline Buf Run2(Opcode op, const Buf& a, const Buf& b, PrimitiveType r,
                const ElementwiseAttrs& at = {}) {
  return RunOp(op, {&a, &b}, r, at);
}
inline Buf Run3(Opcode op, const Buf& a, const Buf& b, const Buf& c, PrimitiveType r,
                const ElementwiseAttrs& at = {}) {
  return RunOp(op, {&a, &b, &c}, r, at);
}

inline ElementwiseAttrs Cmp(ComparisonDirection d, ComparisonType t = ComparisonType::kDefault) {
  ElementwiseAttrs a;
  a.direction = d;
  a.comparison_type = t;
  return a;
}

inline const std::vector<PrimitiveType>& IntTypes() {
  static const std::vector<PrimitiveType> v = {
      PrimitiveType::S1, PrimitiveType::S2,  PrimitiveType::S4,  PrimitiveType::S8,
      PrimitiveType::S16, PrimitiveType::S32, PrimitiveType::S64, PrimitiveType::U1,
      PrimitiveType::U2, PrimitiveType::U4,  PrimitiveType::U8,  PrimitiveType::U16,
      PrimitiveType::U32, PrimitiveType::U64};
  return v;
}
inline const std::vector<PrimitiveType>& FloatTypes() {
  static const std::vector<PrimitiveType> v = {
      PrimitiveType::F16,        PrimitiveType::BF16,       PrimitiveType::F32,
      PrimitiveType::F64,        PrimitiveType::F8E5M2,     PrimitiveType::F8E4M3,
      PrimitiveType::F8E4M3FN,   PrimitiveType::F8E4M3B11FNUZ, PrimitiveType::F8E3M4,
      PrimitiveType::F8E5M2FNUZ, PrimitiveType::F8E4M3FNUZ, PrimitiveType::F4E2M1FN,
      PrimitiveType::F8E8M0FNU};
  return v;
}
inline std::vector<PrimitiveType> AllArrayTypes() {
  std::vector<PrimitiveType> v = {PrimitiveType::PRED};
  for (auto t : IntTypes()) v.push_back(t);
  for (auto t : FloatTypes()) v.push_back(t);
  v.push_back(PrimitiveType::C64);
  v.push_back(PrimitiveType::C128);
  return v;
}

// Random storage bits for type t: ints canonical, pred 0/1, floats any
// pattern of the type's width (NaNs, infs, subnormals included), complex
// from random f32/f64 patterns.
inline Buf RandomBuf(PrimitiveType t, int64_t n, std::mt19937_64& rng) {
  Buf b = MakeBuf(t, n);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t r = rng();
    if (t == PrimitiveType::PRED) {
      b.set_bits(i, r & 1);
    } else if (IsInteger(t)) {
      b.set_bits(i, IntBits(t, static_cast<int64_t>(r)));
    } else if (IsFloat(t)) {
      int w = PrimitiveTypeBitWidth(t);
      b.set_bits(i, w == 64 ? r : r & ((uint64_t{1} << w) - 1));
    } else if (t == PrimitiveType::C64) {
      b.set(i, r);  // two random f32 patterns
    } else {
      uint64_t two[2] = {r, rng()};
      std::memcpy(b.bytes.data() + 16 * i, two, 16);
    }
  }
  return b;
}

// Random finite "reasonable" floats (uniform in [lo, hi]) encoded in t.
inline Buf RandomFloats(PrimitiveType t, int64_t n, double lo, double hi, std::mt19937_64& rng) {
  Buf b = MakeBuf(t, n);
  std::uniform_real_distribution<double> d(lo, hi);
  for (int64_t i = 0; i < n; ++i) {
    double v = d(rng);
    if (t == PrimitiveType::F64) b.set(i, v);
    else if (t == PrimitiveType::F32) b.set(i, static_cast<float>(v));
    else b.set_bits(i, EncodeFloat(t, v));
  }
  return b;
}

inline float F32FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint32_t BitsOfF32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline uint64_t BitsOfF64(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

// Distance in ulps between two finite f32 values of the same sign region.
inline int64_t UlpDistance(float a, float b) {
  auto key = [](float f) {
    int64_t u = BitsOfF32(f);
    return (u & 0x80000000) ? -(u & 0x7fffffff) : u;
  };
  int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

}  // namespace hlo::cpu::testing
