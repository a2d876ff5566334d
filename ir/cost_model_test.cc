#include "ir/cost_model.h"

#include "gtest/gtest.h"
#include "parser/parser.h"

namespace hlo {
namespace {

const Instruction* Find(const Module& m, absl::string_view name) {
  for (const Computation* c : m.computations())
    for (const Instruction* i : c->instructions())
      if (i->name() == name) return i;
  return nullptr;
}

TEST(CostModelTest, CountsAsXlaCostAnalysis) {
  auto m = ParseModule(R"(
HloModule costs
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}
ENTRY %e (a: f32[8,16], b: f32[16,4], img: f32[2,10,10,3], k: f32[3,3,3,5], c: c64[1024]) -> (f32[8,4], f32[8,16], f32[2,8,8,5], f32[8], f32[4,8], c64[1024], bf16[3]) {
  %a = f32[8,16] parameter(0)
  %b = f32[16,4] parameter(1)
  %dot = f32[8,4] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %tanh = f32[8,16] tanh(%a)
  %neg = f32[8,16] negate(%tanh)
  %img = f32[2,10,10,3] parameter(2)
  %k = f32[3,3,3,5] parameter(3)
  %conv = f32[2,8,8,5] convolution(%img, %k), window={size=3x3}, dim_labels=b01f_01io->b01f
  %zero = f32[] constant(0)
  %red = f32[8] reduce(%a, %zero), dimensions={1}, to_apply=%add
  %rw = f32[4,8] reduce-window(%a, %zero), window={size=2x2 stride=2x2}, to_apply=%add
  %c = c64[1024] parameter(4)
  %fft = c64[1024] fft(%c), fft_type=FFT, fft_length={1024}
  %bf = bf16[3] constant({1, 2, 3})
  ROOT %t = (f32[8,4], f32[8,16], f32[2,8,8,5], f32[8], f32[4,8], c64[1024], bf16[3]) tuple(%dot, %neg, %conv, %red, %rw, %fft, %bf)
}
)");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(EstimateCost(*Find(**m, "dot")).flops, 2.0 * 8 * 4 * 16);
  EXPECT_EQ(EstimateCost(*Find(**m, "tanh")).flops, 0);
  EXPECT_EQ(EstimateCost(*Find(**m, "tanh")).transcendentals, 8 * 16);
  EXPECT_EQ(EstimateCost(*Find(**m, "neg")).flops, 8 * 16);
  // 2 per output element and kernel tap (3x3 window, 3 input features).
  EXPECT_EQ(EstimateCost(*Find(**m, "conv")).flops, 2.0 * (2 * 8 * 8 * 5) * (3 * 3 * 3));
  // The reducer (one add) runs inputs - outputs times.
  EXPECT_EQ(EstimateCost(*Find(**m, "red")).flops, 8 * 16 - 8);
  // (window - 1) reducer applications per output element.
  EXPECT_EQ(EstimateCost(*Find(**m, "rw")).flops, 4 * 8 * 3);
  // 2 * 4 * log2(1024) per element.
  EXPECT_EQ(EstimateCost(*Find(**m, "fft")).flops, 8.0 * 10 * 1024);
  // Bytes: operands + result; a tuple moves only its pointer table.
  EXPECT_EQ(EstimateCost(*Find(**m, "dot")).bytes_accessed, 4 * (128 + 64 + 32));
  EXPECT_EQ(EstimateCost(*Find(**m, "t")).bytes_accessed, 8 * 7);
  EXPECT_EQ(EstimateCost(*Find(**m, "a")).bytes_accessed, 0);
  EXPECT_EQ(EstimateCost(*Find(**m, "t")).flops, 0);
  EXPECT_EQ(ShapeBytes(Find(**m, "bf")->shape()), 6);
  EXPECT_EQ(ShapeBytes(Find(**m, "t")->shape()), 4 * (32 + 128 + 640 + 8 + 32) + 8 * 1024 + 6);
}

// A batch-grouped convolution (a depthwise weight gradient as JAX writes
// it): each output element reads one batch of its group, so 2 flops per
// kernel tap, not that times the number of groups.
TEST(CostModelTest, BatchGroupedConvolutionCountsOneBatchPerOutput) {
  auto m = ParseModule(R"(
HloModule grads
ENTRY %e (x: f32[8,56,56,128], g: f32[8,56,56,128]) -> f32[3,3,1,128] {
  %x = f32[8,56,56,128] parameter(0)
  %g = f32[8,56,56,128] parameter(1)
  ROOT %dw = f32[3,3,1,128] convolution(%x, %g), window={size=56x56 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf, batch_group_count=128
}
)");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(EstimateCost(*Find(**m, "dw")).flops, 2.0 * (3 * 3 * 128) * (56 * 56 * 8));
}

}  // namespace
}  // namespace hlo
