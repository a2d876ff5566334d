// Block conversions narrow float <-> f32 (ew_narrow_blocks.h) against the
// per-element path through double they replace, bit for bit (every 8- and
// 16-bit pattern decoded; specials, NaN payloads, denormals, rounding ties
// and a sweep of f32 patterns encoded).
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "backend_cpu/ew_narrow_blocks.h"
#include "backend_cpu/ew_types.h"
#include "gtest/gtest.h"
#include "ir/float_format.h"

namespace hlo::cpu {
namespace {

using P = PrimitiveType;

const P kNarrowTypes[] = {P::F16,         P::BF16,       P::F8E5M2,     P::F8E4M3,
                          P::F8E4M3FN,    P::F8E4M3B11FNUZ, P::F8E3M4, P::F8E5M2FNUZ,
                          P::F8E4M3FNUZ,  P::F4E2M1FN,   P::F8E8M0FNU};

uint32_t Bits(float f) { return ew::BitCast<uint32_t>(f); }
float FromBits(uint32_t b) { return ew::BitCast<float>(b); }

// What Literal::GetDouble + static_cast<float> gave per element.
float OldDecode(P t, uint64_t bits) { return static_cast<float>(DecodeFloat(t, bits)); }
// What Literal::SetDouble(static_cast<double>(f)) stored per element.
uint64_t OldEncode(P t, float f) { return EncodeFloat(t, static_cast<double>(f)); }

int Bytes(P t) { return PrimitiveTypeByteSize(t); }

TEST(NarrowBlocks, DecodeEveryPattern) {
  for (P t : kNarrowTypes) {
    ASSERT_TRUE(IsBlockConvertible(t)) << PrimitiveTypeName(t);
    const int64_t count = Bytes(t) == 2 ? 65536 : 256;
    // Element 0 is skipped so that the block starts unaligned and ends in a
    // tail shorter than a vector.
    std::vector<uint8_t> src(count * Bytes(t));
    for (int64_t i = 0; i < count; ++i) {
      if (Bytes(t) == 2) {
        const uint16_t v = static_cast<uint16_t>(i);
        std::memcpy(src.data() + 2 * i, &v, 2);
      } else {
        src[i] = static_cast<uint8_t>(i);
      }
    }
    std::vector<float> dst(count, 0.0f);
    NarrowToF32(t, src.data() + Bytes(t), dst.data() + 1, count - 1);
    NarrowToF32(t, src.data(), dst.data(), 1);
    for (int64_t i = 0; i < count; ++i)
      ASSERT_EQ(Bits(dst[i]), Bits(OldDecode(t, i))) << PrimitiveTypeName(t) << " bits " << i;
  }
  // The portable f16 loop too (the F16C one replaces it where available).
  std::vector<uint16_t> h(65536);
  for (int i = 0; i < 65536; ++i) h[i] = static_cast<uint16_t>(i);
  std::vector<float> f(65536);
  narrow_internal::F16ToF32Portable(h.data(), f.data(), 65536);
  for (int i = 0; i < 65536; ++i) ASSERT_EQ(Bits(f[i]), Bits(OldDecode(P::F16, i))) << i;
}

// f32 inputs for the encoders: specials, NaNs with many payloads, f32
// denormals, exact ties and their neighbours for bf16 and f16 (normal and
// subnormal f16 range), the f16 overflow edge, and a sweep of patterns.
std::vector<float> EncodeInputs() {
  std::vector<uint32_t> b = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7f7fffffu, 0xff7fffffu,
                             0x00000001u, 0x807fffffu, 0x00800000u, 0x477fe000u, 0x477fefffu, 0x477ff000u,
                             0x477ff001u, 0x33000000u, 0x33000001u, 0xb3000000u, 0x33800000u, 0x7f7f8000u};
  const uint32_t payloads[] = {0x400000u, 0x000001u, 0x200000u, 0x7fffffu, 0x00ffffu, 0x010000u,
                               0x001fffu, 0x002000u, 0x3fffffu, 0x000040u, 0x400001u, 0x0f0f0fu};
  for (uint32_t p : payloads) {
    b.push_back(0x7f800000u | p);
    b.push_back(0xff800000u | p);
  }
  std::mt19937 rng(12345);
  for (int i = 0; i < 4000; ++i) {
    const uint32_t sign = (rng() & 1u) << 31;
    b.push_back(sign | 0x7f800000u | (rng() & 0x7fffffu) | 1u);     // NaN
    b.push_back(sign | (rng() & 0x7fffffu));                         // f32 denormal
    const uint32_t exp = (rng() % 254 + 1) << 23;
    const uint32_t high = rng() & 0x7f0000u;
    for (uint32_t low : {0x7fffu, 0x8000u, 0x8001u, 0x0000u, 0xffffu})  // bf16 ties
      b.push_back(sign | exp | high | low);
    const uint32_t hexp = (rng() % 40 + 98) << 23;  // f16 subnormal .. normal range
    const uint32_t hhigh = rng() & 0x7fe000u;
    for (uint32_t low : {0x0fffu, 0x1000u, 0x1001u, 0x0000u, 0x1fffu})  // f16 ties
      b.push_back(sign | hexp | hhigh | low);
  }
  for (uint64_t i = 0; i < (1u << 18); ++i) b.push_back(static_cast<uint32_t>(i * 2654435761u + 7u));
  std::vector<float> out;
  for (uint32_t x : b) out.push_back(FromBits(x));
  return out;
}

TEST(NarrowBlocks, EncodeMatchesThePathThroughDouble) {
  const std::vector<float> in = EncodeInputs();
  const int64_t n = static_cast<int64_t>(in.size());
  for (P t : kNarrowTypes) {
    std::vector<uint8_t> out(n * Bytes(t), 0);
    // Two calls at an odd split: a vector tail and an unaligned start.
    F32ToNarrow(t, in.data(), out.data(), 13);
    F32ToNarrow(t, in.data() + 13, out.data() + 13 * Bytes(t), n - 13);
    for (int64_t i = 0; i < n; ++i) {
      uint64_t got = 0;
      std::memcpy(&got, out.data() + i * Bytes(t), Bytes(t));
      ASSERT_EQ(got, OldEncode(t, in[i])) << PrimitiveTypeName(t) << " f32 bits 0x" << std::hex << Bits(in[i]);
    }
  }
  std::vector<uint16_t> h(n);
  narrow_internal::F32ToF16Portable(in.data(), h.data(), n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(h[i], OldEncode(P::F16, in[i])) << "f32 bits 0x" << std::hex << Bits(in[i]);
}

}  // namespace
}  // namespace hlo::cpu
