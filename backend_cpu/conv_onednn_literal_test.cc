// Narrow-type, grouped and batch-group convolutions (conv_onednn_literal.h
// and the im2col path behind it), called on parsed instructions: which
// ones take the oneDNN path, that the result equals an f64 convolution
// rounded once to the result type on inputs whose f32 sums are exact (so
// the only rounding is the final one, to nearest even), and that the bits
// do not depend on the pool width (1, 2, 3).
#include "backend_cpu/conv_onednn_literal.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/ew_narrow_blocks.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/test_hlo_text.h"
#include "backend_cpu/thread_pool.h"
#include "gtest/gtest.h"
#include "ir/verifier.h"
#include "parser/parser.h"

namespace hlo::cpu {
namespace {

struct Case {
  std::string name, in, ker, out, attrs;
  // Who runs it: oneDNN; the im2col path (our rule declines the problem);
  // or either, by the kernels oneDNN has for this CPU's instructions.
  enum Path { kOneDnn, kIm2col, kCpuDependent } path = kOneDnn;
};

// NHWC activations, HWIO kernels, as TensorFlow and JAX emit them.
const Case kCases[] = {
    {"bf16 3x3", "bf16[2,9,10,16]{3,2,1,0}", "bf16[3,3,16,24]{3,2,1,0}", "bf16[2,9,10,24]{3,2,1,0}",
     "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
    {"bf16 4x4 few channels", "bf16[2,15,15,3]{3,2,1,0}", "bf16[4,4,3,16]{3,2,1,0}", "bf16[2,12,12,16]{3,2,1,0}",
     "window={size=4x4}, dim_labels=b01f_01io->b01f"},
    {"bf16 depthwise stride 2", "bf16[1,17,16,32]{3,2,1,0}", "bf16[3,3,1,32]{3,2,1,0}", "bf16[1,9,8,32]{3,2,1,0}",
     "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=32"},
    {"bf16 grouped", "bf16[2,8,8,32]{3,2,1,0}", "bf16[3,3,16,32]{3,2,1,0}", "bf16[2,8,8,32]{3,2,1,0}",
     "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2"},
    {"f16 NCHW", "f16[2,8,11,9]{3,2,1,0}", "f16[12,8,3,3]{3,2,1,0}", "f16[2,12,11,9]{3,2,1,0}",
     "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"},
    // 1.4 MB of f32 per input image: converted two images at a time
    // (kChunkBytes), then the last one alone.
    {"bf16 batch of large images", "bf16[3,80,80,56]{3,2,1,0}", "bf16[3,3,56,4]{3,2,1,0}",
     "bf16[3,80,80,4]{3,2,1,0}", "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
    {"bf16 x bf16 -> f32", "bf16[2,9,9,8]{3,2,1,0}", "bf16[3,3,8,8]{3,2,1,0}", "f32[2,9,9,8]{3,2,1,0}",
     "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
    // Depthwise weight gradient as JAX writes it: activations with the
    // batch as "feature" and the channels as batch groups, the output
    // gradient as the kernel.
    {"bf16 batch groups (depthwise weight gradient)", "bf16[2,10,10,16]{3,2,1,0}", "bf16[2,10,10,16]{3,2,1,0}",
     "bf16[3,3,1,16]{3,2,1,0}", "window={size=10x10 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf, batch_group_count=16",
     Case::kIm2col},  // 2 inputs and 1 output per group: oneDNN has only its gemm/ref kernels
    {"f32 batch groups", "f32[6,7,7,16]{3,2,1,0}", "f32[3,3,16,48]{3,2,1,0}", "f32[2,5,5,48]{3,2,1,0}",
     "window={size=3x3}, dim_labels=b01f_01io->b01f, batch_group_count=3"},
    {"bf16 batch groups NCHW", "bf16[4,16,9,8]{3,2,1,0}", "bf16[32,16,3,3]{3,2,1,0}", "bf16[2,32,9,8]{3,2,1,0}",
     "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, batch_group_count=2"},
    {"f32 batch groups, 4 features each", "f32[6,7,7,4]{3,2,1,0}", "f32[3,3,4,6]{3,2,1,0}", "f32[2,5,5,6]{3,2,1,0}",
     "window={size=3x3}, dim_labels=b01f_01io->b01f, batch_group_count=3",
     Case::kCpuDependent},  // oneDNN declines it on AVX2 and runs it with AVX-512
    // Left to the im2col path: f32 operands of a bf16 result (rounded to
    // bf16 first, as XLA's evaluator does), f8 types, lhs dilation.
    {"f32 -> bf16", "f32[1,6,6,4]{3,2,1,0}", "f32[3,3,4,4]{3,2,1,0}", "bf16[1,4,4,4]{3,2,1,0}",
     "window={size=3x3}, dim_labels=b01f_01io->b01f", Case::kIm2col},
    {"f8", "f8e4m3fn[1,6,6,4]{3,2,1,0}", "f8e4m3fn[3,3,4,4]{3,2,1,0}", "f8e4m3fn[1,4,4,4]{3,2,1,0}",
     "window={size=3x3}, dim_labels=b01f_01io->b01f", Case::kIm2col},
    {"lhs dilation", "bf16[1,6,6,4]{3,2,1,0}", "bf16[3,3,4,4]{3,2,1,0}", "bf16[1,9,9,4]{3,2,1,0}",
     "window={size=3x3 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f", Case::kIm2col},
};

// The case with every element type replaced by f64.
std::string F64(std::string shape) {
  for (const char* t : {"bf16[", "f16[", "f32[", "f8e4m3fn["}) {
    const size_t at = shape.find(t);
    if (at != std::string::npos) shape.replace(at, std::string(t).size(), "f64[");
  }
  return shape;
}

std::unique_ptr<Module> Parse(const Case& c, bool f64 = false) {
  const std::string text = f64 ? EntryModuleText({F64(c.in), F64(c.ker)}, F64(c.out), "convolution", c.attrs)
                               : EntryModuleText({c.in, c.ker}, c.out, "convolution", c.attrs);
  auto m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  if (!m.ok()) return nullptr;
  EXPECT_TRUE(VerifyModule(**m).ok()) << text;
  return std::move(*m);
}

// Multiples of 2^-6 in [-4, 4] (`exact`: every f32 sum of these products
// is exact, and most need more bits than bf16/f16 keep), or any value in
// [-2, 2).
Literal Random(const Shape& shape, std::mt19937_64& rng, bool exact) {
  Literal lit(shape);
  std::uniform_real_distribution<double> u(-2, 2);
  for (int64_t s = 0; s < lit.physical_count(); ++s)
    lit.SetDouble(s, exact ? static_cast<double>(static_cast<int64_t>(rng() % 513) - 256) / 64.0 : u(rng));
  return lit;
}

struct Conv {
  const Instruction* instr;
  const ConvolutionDimensionNumbers* dn;
  Window window;
  int64_t fg, bg;
};

Conv Describe(const Module& m) {
  const Instruction* r = m.entry()->root();
  Conv c{r, r->GetAttr<ConvolutionDimensionNumbers>("dim_labels"), *r->GetAttr<Window>("window"),
         r->AttrOr<int64_t>("feature_group_count", 1), r->AttrOr<int64_t>("batch_group_count", 1)};
  return c;
}

bool SameBytes(const Literal& a, const Literal& b) {
  return a.size_bytes() == b.size_bytes() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

// `lit` converted to the element type of `shape` (SetDouble: exact to f64,
// rounded once to nearest even to the narrow types).
Literal Converted(const Literal& lit, const Shape& shape) {
  Literal out(shape);
  for (int64_t s = 0; s < lit.physical_count(); ++s) out.SetDouble(s, lit.GetDouble(s));
  return out;
}

TEST(OneDnnConvLiterals, ExactAgainstF64RoundedOnce) {
  std::mt19937_64 rng(61);
  for (const Case& k : kCases) {
    SCOPED_TRACE(k.name);
    auto m = Parse(k), m64 = Parse(k, true);
    ASSERT_NE(m, nullptr);
    ASSERT_NE(m64, nullptr);
    const Conv c = Describe(*m);
    const Literal in = Random(*ParseShape(k.in), rng, true), ker = Random(*ParseShape(k.ker), rng, true);
    Literal direct;
    const bool ran = TryOneDnnConvolutionLiterals(*c.instr, *c.dn, c.window, in, ker, c.fg, c.bg, &direct);
    if (k.path != Case::kCpuDependent) {
      EXPECT_EQ(ran, k.path == Case::kOneDnn);
    }
    auto got = LinalgEvalConvolution(*c.instr, {&in, &ker});
    ASSERT_TRUE(got.ok()) << got.status();
    const Literal in64 = Converted(in, *ParseShape(F64(k.in))), ker64 = Converted(ker, *ParseShape(F64(k.ker)));
    auto ref64 = LinalgEvalConvolution(*m64->entry()->root(), {&in64, &ker64});
    ASSERT_TRUE(ref64.ok()) << ref64.status();
    const Literal ref = Converted(*ref64, c.instr->shape());
    EXPECT_TRUE(SameBytes(*got, ref));
    if (ran) {
      EXPECT_TRUE(SameBytes(direct, ref));
    }
  }
}

TEST(OneDnnConvLiterals, BitIdenticalAcrossThreadCounts) {
  std::mt19937_64 rng(62);
  const int saved = ThreadPoolWidth();
  for (const Case& k : kCases) {
    SCOPED_TRACE(k.name);
    auto m = Parse(k);
    ASSERT_NE(m, nullptr);
    const Conv c = Describe(*m);
    const Literal in = Random(*ParseShape(k.in), rng, false), ker = Random(*ParseShape(k.ker), rng, false);
    std::vector<Literal> results;
    for (int width : {1, 2, 3}) {
      SetThreadPoolWidth(width);
      auto r = LinalgEvalConvolution(*c.instr, {&in, &ker});
      ASSERT_TRUE(r.ok()) << r.status();
      results.push_back(std::move(*r));
    }
    EXPECT_TRUE(SameBytes(results[0], results[1]));
    EXPECT_TRUE(SameBytes(results[0], results[2]));
  }
  SetThreadPoolWidth(saved);
}

}  // namespace
}  // namespace hlo::cpu
