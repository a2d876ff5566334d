// DecodedConstants: narrow constants of skinny dots are decoded to f32 once
// per Executable, and a dot reading the copy gives the same bits as the
// same dot decoding its operand every run (the weight given as a parameter).
#include "backend_cpu/decoded_constants.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/executor.h"
#include "parser/parser.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

// Values of a [rows, cols] literal in text: ordinary numbers with NaN, both
// infinities, negative zero and values below the narrow type's normal range
// among them (every 997th element: in x, only the first row has them, so
// the other rows' results stay finite and compare every weight).
std::string Values(int64_t rows, int64_t cols) {
  const char* specials[] = {"nan", "inf", "-inf", "-0", "1e-40", "-3e-39", "6e-08"};
  std::string text = "{";
  for (int64_t r = 0; r < rows; ++r) {
    absl::StrAppend(&text, r == 0 ? "{" : ", {");
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t i = r * cols + c;
      if (c > 0) text += ", ";
      if (i % 997 == 5) {
        text += specials[(i / 997) % 7];
      } else {
        absl::StrAppend(&text, static_cast<double>((i * 7919) % 2001 - 1000) / 256.0);
      }
    }
    text += "}";
  }
  return text + "}";
}

// Runs `with_constant` on x and `with_parameter` on (x, w), w being the
// constant's value; expects the same result bits.
void ExpectSameBits(const Module& with_constant, const Module& with_parameter, const Literal& x,
                    const Literal& w) {
  std::vector<Literal> args_a, args_b;
  args_a.push_back(x);
  args_b.push_back(x);
  args_b.push_back(w);
  absl::StatusOr<RunResult> ra = RunModule(with_constant, args_a);
  ASSERT_TRUE(ra.ok()) << ra.status();
  absl::StatusOr<RunResult> rb = RunModule(with_parameter, args_b);
  ASSERT_TRUE(rb.ok()) << rb.status();
  const Literal& ga = ra->results[0];
  const Literal& gb = rb->results[0];
  ASSERT_EQ(ga.size_bytes(), gb.size_bytes());
  EXPECT_EQ(std::memcmp(ga.data(), gb.data(), ga.size_bytes()), 0);
}

struct Case {
  const char* type;         // operand type
  const char* result;       // dot result type
  const char* weight_dims;  // the constant's dims and layout
  const char* dot_dims;     // contracting dims of the dot
  int64_t w0, w1;           // the constant's dims
  int64_t k, n;             // contracting and output column sizes
  int64_t batch;            // the other side's free rows
  bool expect_copy;
};

// Runs `dot(x, W)` with W a constant and with W a parameter given the same
// values; expects the same bits and (per case) a copy or none.
void Check(const Case& c) {
  const std::string weight_shape = absl::StrCat(c.type, c.weight_dims);
  const std::string x_shape = absl::StrCat(c.type, "[", c.batch, ",", c.k, "]");
  const std::string out_shape = absl::StrCat(c.result, "[", c.batch, ",", c.n, "]");
  const std::string with_constant = absl::StrCat(
      "HloModule m\nENTRY e {\n  x = ", x_shape, " parameter(0)\n  w = ", weight_shape, " constant(",
      Values(c.w0, c.w1), ")\n  ROOT d = ", out_shape, " dot(x, w), ", c.dot_dims, "\n}\n");
  const std::string with_parameter = absl::StrCat("HloModule m\nENTRY e {\n  x = ", x_shape,
                                                  " parameter(0)\n  w = ", weight_shape,
                                                  " parameter(1)\n  ROOT d = ", out_shape, " dot(x, w), ",
                                                  c.dot_dims, "\n}\n");
  absl::StatusOr<std::unique_ptr<Module>> a = ParseModule(with_constant);
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<std::unique_ptr<Module>> b = ParseModule(with_parameter);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(DecodedConstants(**a).bytes() > 0, c.expect_copy);
  absl::StatusOr<Literal> x = ParseLiteral(absl::StrCat(x_shape, " ", Values(c.batch, c.k)));
  ASSERT_TRUE(x.ok()) << x.status();
  ExpectSameBits(**a, **b, *x, (*a)->entry()->root()->operand(1)->literal());
}

TEST(DecodedConstantsTest, Bf16SkinnyDotReadsTheCopyWithTheSameBits) {
  Check({"bf16", "bf16", "[300,40]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", 300, 40, 300, 40, 2, true});
}

TEST(DecodedConstantsTest, F16ToF32AndAColumnMajorConstant) {
  Check({"f16", "f32", "[300,40]{0,1}", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", 300, 40, 300, 40, 3, true});
}

TEST(DecodedConstantsTest, Bf16ConstantWithItsContractingDimLast) {
  // w is [cols, rows] contracted on its dim 1 (a transposed weight).
  Check({"bf16", "f32", "[40,300]", "lhs_contracting_dims={1}, rhs_contracting_dims={1}", 40, 300, 300, 40, 2, true});
}

TEST(DecodedConstantsTest, WideProductsAndF32ResultsOfOtherTypesDecodeEachRun) {
  // 300 rows on the other side: the product outweighs the decode.
  Check({"bf16", "bf16", "[64,40]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", 64, 40, 64, 40, 300, false});
}


// A dot under its epilogue in a fusion whose weight is a constant outside
// it: packed once, same bits as the weight given as an entry parameter. A
// fused computation two fusions call with different constants is left
// alone.
TEST(DecodedConstantsTest, FusedDotWhoseWeightIsAConstantOutside) {
  // The epilogue's two bf16 ops make the fusion run widened
  // (fusion_widen_bf16.h): its dot is a copy that finds the packed weight
  // through FusionPlans::OriginalOf.
  const std::string fused = R"(
f {
  x = bf16[2,300] parameter(0)
  w = bf16[300,40] parameter(1)
  d = bf16[2,40] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  l = bf16[2,40] logistic(d)
  ROOT t = bf16[2,40] tanh(l)
}
)";
  const std::string weights = absl::StrCat("bf16[300,40] constant(", Values(300, 40), ")");
  const std::string with_constant = absl::StrCat("HloModule m\n", fused,
                                                 "ENTRY e {\n  x = bf16[2,300] parameter(0)\n  w = ", weights,
                                                 "\n  ROOT r = bf16[2,40] fusion(x, w), kind=kOutput, calls=f\n}\n");
  const std::string with_parameter =
      absl::StrCat("HloModule m\n", fused,
                   "ENTRY e {\n  x = bf16[2,300] parameter(0)\n  w = bf16[300,40] parameter(1)\n"
                   "  ROOT r = bf16[2,40] fusion(x, w), kind=kOutput, calls=f\n}\n");
  const std::string two_callers = absl::StrCat(
      "HloModule m\n", fused, "ENTRY e {\n  x = bf16[2,300] parameter(0)\n  w = ", weights,
      "\n  v = bf16[300,40] negate(w)\n  a = bf16[2,40] fusion(x, w), kind=kOutput, calls=f\n"
      "  b = bf16[2,40] fusion(x, v), kind=kOutput, calls=f\n  ROOT t = (bf16[2,40], bf16[2,40]) tuple(a, b)\n}\n");
  absl::StatusOr<std::unique_ptr<Module>> a = ParseModule(with_constant);
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<std::unique_ptr<Module>> b = ParseModule(with_parameter);
  ASSERT_TRUE(b.ok()) << b.status();
  absl::StatusOr<std::unique_ptr<Module>> two = ParseModule(two_callers);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_GT(DecodedConstants(**a).bytes(), 0);
  EXPECT_EQ(DecodedConstants(**two).bytes(), 0);
  absl::StatusOr<Literal> x = ParseLiteral(absl::StrCat("bf16[2,300] ", Values(2, 300)));
  ASSERT_TRUE(x.ok()) << x.status();
  ExpectSameBits(**a, **b, *x, (*a)->entry()->root()->operand(1)->literal());
}

}  // namespace
}  // namespace hlo::cpu
