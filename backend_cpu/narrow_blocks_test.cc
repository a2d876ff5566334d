// Block conversions narrow float <-> f32 (ew_narrow_blocks.h) against the
// per-element path through double they replace, bit for bit (every 8- and
// 16-bit pattern decoded; specials, NaN payloads, denormals, rounding ties
// and a sweep of f32 patterns encoded), and dot / convolution with narrow
// operands: the block path against the per-element path, on 1 and 2
// threads, on random inputs with NaN, inf, denormals and ties.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backend_cpu/ew_narrow_blocks.h"
#include "backend_cpu/ew_types.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/test_hlo_text.h"
#include "backend_cpu/thread_pool.h"
#include "gtest/gtest.h"
#include "ir/float_format.h"
#include "ir/verifier.h"
#include "parser/parser.h"

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

// ------------------------------------------------------------ dot / convolution

// Random elements of type t: mostly small values (multiples of 2^-6 up to
// 4, so f32 sums are exact and often land on ties of the narrow type),
// some arbitrary patterns (NaN, inf, denormals with the type's own
// encodings) at rate `special`.
Literal RandomNarrow(const Shape& shape, std::mt19937_64& rng, double special) {
  Literal lit(shape);
  const P t = shape.element_type();
  std::uniform_real_distribution<double> u(0, 1);
  for (int64_t s = 0; s < lit.physical_count(); ++s) {
    if (u(rng) < special) {
      lit.SetFloatBits(s, rng() & ((uint64_t{1} << (8 * Bytes(t))) - 1));
    } else {
      const double v = static_cast<double>(static_cast<int64_t>(rng() % 513) - 256) / 64.0;
      lit.SetDouble(s, t == P::F8E8M0FNU ? std::fabs(v) + 0.5 : v);
    }
  }
  return lit;
}

std::string Text(P t, const std::vector<int64_t>& dims, const std::vector<int64_t>& m2m) {
  return absl::StrCat(PrimitiveTypeName(t), "[", absl::StrJoin(dims, ","), "]{", absl::StrJoin(m2m, ","), "}");
}

// Runs `hlo` with the per-element path and with the block path, each on 1
// and 2 threads; all four results must be the same bits. Without
// `across_paths`, only the two runs of each path are compared: a bf16/f16
// convolution on the block path runs oneDNN, on the per-element path
// im2col + OpenBLAS, which add in another order; their results agree only
// when every f32 sum is exact (inputs without special patterns).
void ExpectSameBitsAllPaths(const std::string& hlo, const std::vector<Literal>& args,
                            bool across_paths = true) {
  auto module = ParseModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status() << "\n" << hlo;
  ASSERT_TRUE(VerifyModule(**module).ok()) << hlo;
  const int width = ThreadPoolWidth();
  std::vector<Literal> results;
  for (bool blocks : {false, true}) {
    for (int threads : {1, 2}) {
      SetNarrowBlockConversion(blocks);
      SetThreadPoolWidth(threads);
      auto r = RunModule(**module, args);
      ASSERT_TRUE(r.ok()) << r.status() << "\n" << hlo;
      results.push_back(std::move(r->results[0]));
    }
  }
  SetNarrowBlockConversion(true);
  SetThreadPoolWidth(width);
  for (size_t i = 1; i < results.size(); ++i) {
    ASSERT_EQ(results[i].shape(), results[0].shape());
    ASSERT_EQ(results[i].size_bytes(), results[0].size_bytes());
    const Literal& other = across_paths || i != 3 ? results[0] : results[2];
    if (!across_paths && i == 2) continue;
    EXPECT_EQ(std::memcmp(results[i].data(), other.data(), other.size_bytes()), 0)
        << "run " << i << " (blocks " << (i >= 2) << ", threads " << (i % 2 + 1) << ") differs\n" << hlo;
  }
}

struct DotCase {
  P lt, rt, out;
  int64_t b, m, k, n;
};

TEST(NarrowBlocks, DotSameBitsAsThePerElementPath) {
  std::mt19937_64 rng(7);
  const DotCase cases[] = {
      {P::BF16, P::BF16, P::BF16, 0, 37, 29, 23},  {P::BF16, P::BF16, P::BF16, 3, 17, 64, 9},
      {P::BF16, P::BF16, P::BF16, 0, 300, 128, 64},  // parallel GEMM tiles
      {P::F16, P::F16, P::F16, 0, 33, 40, 31},     {P::F16, P::F16, P::F16, 2, 260, 70, 40},
      {P::BF16, P::BF16, P::F32, 0, 21, 50, 19},   {P::F16, P::F16, P::F32, 2, 9, 17, 33},
      {P::F8E4M3FN, P::F8E4M3FN, P::F8E4M3FN, 0, 19, 24, 21},
      {P::F8E5M2, P::F8E5M2, P::F8E5M2, 2, 7, 12, 5},
      {P::F8E4M3FNUZ, P::F8E4M3FNUZ, P::F32, 0, 11, 8, 13},
      {P::F32, P::BF16, P::BF16, 0, 15, 20, 17},  // mixed: the per-element path in both runs
  };
  for (const DotCase& c : cases) {
    for (double special : {0.0, 0.01}) {
      for (int layout = 0; layout < 4; ++layout) {
        // lhs [b?, m, k], rhs [b?, k, n]; layout bits: lhs column-major,
        // rhs column-major (the matrix dims swapped in minor_to_major).
        std::vector<int64_t> ld = {c.m, c.k}, rd = {c.k, c.n}, od = {c.m, c.n};
        std::vector<int64_t> lm = {1, 0}, rm = {1, 0}, om = {1, 0};
        if (layout & 1) lm = {0, 1};
        if (layout & 2) rm = {0, 1};
        if (layout == 3) om = {0, 1};
        std::string attrs = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
        if (c.b > 0) {
          ld.insert(ld.begin(), c.b);
          rd.insert(rd.begin(), c.b);
          od.insert(od.begin(), c.b);
          for (auto* m : {&lm, &rm, &om}) {
            for (int64_t& d : *m) ++d;
            m->push_back(0);
          }
          attrs = "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}";
        }
        const std::string hlo = EntryModuleText({Text(c.lt, ld, lm), Text(c.rt, rd, rm)}, Text(c.out, od, om),
                                                "dot", attrs);
        std::vector<Literal> args;
        args.push_back(RandomNarrow(*ParseShape(Text(c.lt, ld, lm)), rng, c.lt == P::F32 ? 0 : special));
        args.push_back(RandomNarrow(*ParseShape(Text(c.rt, rd, rm)), rng, special));
        SCOPED_TRACE(hlo);
        ExpectSameBitsAllPaths(hlo, args);
      }
    }
  }
}

TEST(NarrowBlocks, ConvolutionSameBitsAsThePerElementPath) {
  std::mt19937_64 rng(11);
  struct ConvCase {
    P t;
    std::string in_m2m, window, labels;
    int64_t n, h, w, c, o, kh, kw;
  };
  const ConvCase cases[] = {
      {P::BF16, "3,2,1,0", "size=3x3 pad=1_1x1_1", "b01f_01io->b01f", 2, 9, 9, 8, 16, 3, 3},  // oneDNN
      {P::BF16, "3,2,1,0", "size=3x3 stride=2x2", "b01f_01io->b01f", 2, 12, 11, 8, 12, 3, 3},
      {P::BF16, "3,2,1,0", "size=1x1", "b01f_01io->b01f", 3, 7, 7, 16, 8, 1, 1},
      {P::BF16, "1,0,3,2", "size=3x3 pad=1_1x1_1", "b01f_01io->b01f", 2, 8, 9, 4, 6, 3, 3},  // NCHW-like
      {P::F16, "3,2,1,0", "size=3x3 pad=1_1x1_1", "b01f_01io->b01f", 2, 9, 8, 8, 8, 3, 3},
      {P::F8E4M3FN, "3,2,1,0", "size=2x2", "b01f_01io->b01f", 1, 6, 6, 4, 4, 2, 2},
  };
  for (const ConvCase& c : cases) {
    for (double special : {0.0, 0.01}) {
      const std::string in = absl::StrCat(PrimitiveTypeName(c.t), "[", c.n, ",", c.h, ",", c.w, ",", c.c, "]{",
                                          c.in_m2m, "}");
      const std::string ker =
          absl::StrCat(PrimitiveTypeName(c.t), "[", c.kh, ",", c.kw, ",", c.c, ",", c.o, "]{3,2,1,0}");
      // Result shape from the verifier's shape inference would need the
      // window arithmetic; it is written out per case instead.
      int64_t oh = c.h, ow = c.w;
      if (c.window == "size=3x3 stride=2x2") {
        oh = (c.h - 3) / 2 + 1;
        ow = (c.w - 3) / 2 + 1;
      } else if (c.window == "size=2x2") {
        oh = c.h - 1;
        ow = c.w - 1;
      }
      for (const std::string out_m2m : {"3,2,1,0", "1,0,3,2"}) {
        const std::string out =
            absl::StrCat(PrimitiveTypeName(c.t), "[", c.n, ",", oh, ",", ow, ",", c.o, "]{", out_m2m, "}");
        const std::string hlo = EntryModuleText(
            {in, ker}, out, "convolution", absl::StrCat("window={", c.window, "}, dim_labels=", c.labels));
        std::vector<Literal> args;
        args.push_back(RandomNarrow(*ParseShape(in), rng, special));
        args.push_back(RandomNarrow(*ParseShape(ker), rng, special));
        SCOPED_TRACE(hlo);
        ExpectSameBitsAllPaths(hlo, args, /*across_paths=*/special == 0.0);
      }
    }
  }
}

}  // namespace
}  // namespace hlo::cpu
