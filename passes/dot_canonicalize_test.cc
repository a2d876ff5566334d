#include "passes/dot_canonicalize.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "passes/algsimp_test_util.h"

namespace hlo {
namespace {

using passes_test::CountOpcode;
using passes_test::RunAndCompare;

std::vector<int64_t> Ints(const Instruction* x, const char* name) {
  const auto* v = x->GetAttr<std::vector<int64_t>>(name);
  return v ? *v : std::vector<int64_t>{};
}

// Every dot of the module has the form [B..., M, K] x [B..., K, N].
void ExpectAllCanonical(const Module& m, const std::string& text) {
  for (const Computation* c : m.computations())
    for (const Instruction* i : c->instructions()) {
      if (i->opcode() != Opcode::kDot) continue;
      const int64_t b = static_cast<int64_t>(Ints(i, "lhs_batch_dims").size());
      std::vector<int64_t> batch;
      for (int64_t d = 0; d < b; ++d) batch.push_back(d);
      EXPECT_EQ(i->operand(0)->shape().rank(), b + 2) << text;
      EXPECT_EQ(i->operand(1)->shape().rank(), b + 2) << text;
      EXPECT_EQ(Ints(i, "lhs_batch_dims"), batch) << text;
      EXPECT_EQ(Ints(i, "rhs_batch_dims"), batch) << text;
      EXPECT_EQ(Ints(i, "lhs_contracting_dims"), std::vector<int64_t>{b + 1}) << text;
      EXPECT_EQ(Ints(i, "rhs_contracting_dims"), std::vector<int64_t>{b}) << text;
    }
}

std::string Entry(const std::string& body) { return "HloModule m\n\nENTRY e {\n" + body + "}\n"; }

TEST(DotCanonicalize, CanonicalDotsAreLeftAlone) {
  auto pass = CreateDotCanonicalizePass();
  for (const std::string& body : {
           std::string("  a = s32[3,4] parameter(0)\n  b = s32[4,5] parameter(1)\n"
                       "  ROOT d = s32[3,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"),
           std::string("  a = s32[2,3,4] parameter(0)\n  b = s32[2,4,5] parameter(1)\n"
                       "  ROOT d = s32[2,3,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                       "rhs_batch_dims={0}, rhs_contracting_dims={1}\n")}) {
    auto run = RunAndCompare(*pass, Entry(body));
    ASSERT_NE(run.module, nullptr);
    EXPECT_FALSE(run.changed) << run.text;
    EXPECT_EQ(CountOpcode(*run.module, Opcode::kTranspose), 0);
    EXPECT_EQ(CountOpcode(*run.module, Opcode::kReshape), 0);
  }
}

struct Case {
  const char* name;
  std::string body;
  int64_t transposes;  // expected transpose count afterwards
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class DotCanon : public ::testing::TestWithParam<Case> {};

TEST_P(DotCanon, RewritesToCanonicalFormAndKeepsResults) {
  auto pass = CreateDotCanonicalizePass();
  auto run = RunAndCompare(*pass, Entry(GetParam().body));
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed) << run.text;
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kDot), 1) << run.text;
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kTranspose), GetParam().transposes) << run.text;
  ExpectAllCanonical(*run.module, run.text);
  auto again = pass->Run(*run.module);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again) << run.text;
}

INSTANTIATE_TEST_SUITE_P(
    Forms, DotCanon,
    ::testing::Values(
        // A^T B^T: both operands transposed.
        Case{"transposed_operands",
             "  a = s32[4,3] parameter(0)\n  b = s32[5,4] parameter(1)\n"
             "  ROOT d = s32[3,5] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}\n",
             2},
        // Two contracting dims merged into one K = 12.
        Case{"two_contracting_dims",
             "  a = s32[2,3,4] parameter(0)\n  b = s32[3,4,5] parameter(1)\n"
             "  ROOT d = s32[2,5] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}\n",
             0},
        // Contracting dims paired in a non-sorted order.
        Case{"contracting_dims_swapped",
             "  a = s32[2,3,4] parameter(0)\n  b = s32[4,3,5] parameter(1)\n"
             "  ROOT d = s32[2,5] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}\n",
             1},
        // Matrix x vector: N = 1 is inserted, then dropped by the result reshape.
        Case{"matrix_vector",
             "  a = s32[3,4] parameter(0)\n  b = s32[4] parameter(1)\n"
             "  ROOT d = s32[3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
             0},
        // Vector . vector -> scalar.
        Case{"vector_vector",
             "  a = s32[4] parameter(0)\n  b = s32[4] parameter(1)\n"
             "  ROOT d = s32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n",
             0},
        // Outer product: K = 1.
        Case{"outer_product",
             "  a = s32[3] parameter(0)\n  b = s32[5] parameter(1)\n  ROOT d = s32[3,5] dot(a, b)\n", 0},
        // Batch dims not leading, two free dims on each side, two batch dims.
        Case{"batch_in_the_middle",
             "  a = s32[3,2,4,6] parameter(0)\n  b = s32[4,5,2,6,7] parameter(1)\n"
             "  ROOT d = s32[2,6,3,5,7] dot(a, b), lhs_batch_dims={1,3}, lhs_contracting_dims={2}, "
             "rhs_batch_dims={2,3}, rhs_contracting_dims={0}\n",
             2},
        // Batch dims leading but in swapped order on the rhs.
        Case{"batch_order_swapped",
             "  a = s32[2,3,4,5] parameter(0)\n  b = s32[3,2,5,6] parameter(1)\n"
             "  ROOT d = s32[2,3,4,6] dot(a, b), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
             "rhs_batch_dims={1,0}, rhs_contracting_dims={2}\n",
             1}),
    [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// f32 with integer-valued inputs (exact sums), attributes kept.
TEST(DotCanonicalize, FloatKeepsPrecisionConfig) {
  auto pass = CreateDotCanonicalizePass();
  const std::string hlo = Entry(
      "  a = f32[2,3] parameter(0)\n  b = f32[3] parameter(1)\n"
      "  ROOT d = f32[2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
      "operand_precision={highest,highest}\n");
  auto run = RunAndCompare(*pass, hlo, 0, {{"f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "f32[3] {1, -1, 2}"}});
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_NE(run.text.find("operand_precision={highest,highest}"), std::string::npos) << run.text;
  EXPECT_EQ(run.module->entry()->root()->opcode(), Opcode::kReshape);
  ExpectAllCanonical(*run.module, run.text);
  // Hand-computed: {1-2+6, 4-5+12} = {5, 11}.
  auto r = cpu::RunModule(*run.module, {*ParseLiteral("f32[2,3] {{1, 2, 3}, {4, 5, 6}}"),
                                         *ParseLiteral("f32[3] {1, -1, 2}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(LiteralToString(r->results[0]), "f32[2]{0} {5, 11}");
}


// The result keeps the dot's layout.
TEST(DotCanonicalize, KeepsResultLayout) {
  auto pass = CreateDotCanonicalizePass();
  auto run = RunAndCompare(*pass, Entry("  a = s32[4,3] parameter(0)\n  b = s32[5,4] parameter(1)\n"
                                        "  ROOT d = s32[3,5]{0,1} dot(a, b), lhs_contracting_dims={0}, "
                                        "rhs_contracting_dims={1}\n"
                                        "  \n"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(run.module->entry()->root()->opcode(), Opcode::kDot);
  EXPECT_EQ(ToStdVector(run.module->entry()->root()->shape().layout().minor_to_major), (std::vector<int64_t>{0, 1}));
}

}  // namespace
}  // namespace hlo
