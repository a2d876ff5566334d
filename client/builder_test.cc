// The builder's contract: errors at the call that caused them (the first
// one kept), computations shared between builders, and property tests that
// a builder-made module is the module one would write as text.
#include "client/builder.h"

#include <cstdlib>
#include <fstream>
#include <random>

#include "client/broadcasting.h"
#include "client/client_test_util.h"
#include "gmock/gmock.h"
#include "ir/shape_inference.h"

namespace hlo::client {
namespace {

using ::hlo::client::testing::BuildAndRun;
using ::hlo::client::testing::BuildChecked;
using ::hlo::client::testing::LiteralIs;
using ::hlo::client::testing::ScalarBinary;
using ::testing::HasSubstr;

constexpr PrimitiveType F32 = PrimitiveType::F32;
constexpr PrimitiveType S32 = PrimitiveType::S32;

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

TEST(BuilderErrors, FirstErrorIsKeptAndNamesOpAndShapes) {
  XlaBuilder b("errors");
  XlaOp x = Parameter(&b, 0, Shape::Array(F32, {2, 3}), "x");
  XlaOp y = Parameter(&b, 1, Shape::Array(F32, {4}), "y");
  XlaOp bad = Add(x, y);  // ranks differ, no broadcast_dimensions
  EXPECT_FALSE(bad.valid());
  // Later calls on the invalid op, and a second independent error, do not
  // replace the first.
  EXPECT_FALSE(Mul(bad, x).valid());
  EXPECT_FALSE(Transpose(x, {0}).valid());
  absl::StatusOr<XlaComputation> built = b.Build(x);
  ASSERT_FALSE(built.ok());
  EXPECT_THAT(built.status().message(), HasSubstr("Add: "));
  EXPECT_THAT(built.status().message(), HasSubstr("f32[2,3]"));
  EXPECT_THAT(built.status().message(), HasSubstr("f32[4]"));
  EXPECT_EQ(built.status(), b.first_error());
}

TEST(BuilderErrors, ShapeRuleMessagesComeFromTheVerifiersInference) {
  XlaBuilder b("rule");
  XlaOp x = Parameter(&b, 0, Shape::Array(F32, {2, 3}), "x");
  EXPECT_FALSE(Transpose(x, {0, 0}).valid());
  // "Transpose: <the rule's message>; operand shapes: (f32[2,3])".
  EXPECT_THAT(b.first_error().message(), HasSubstr("Transpose: "));
  EXPECT_THAT(b.first_error().message(), HasSubstr("operand shapes: (f32[2,3])"));
}

TEST(BuilderErrors, ElementTypeMismatchNamesBothShapes) {
  XlaBuilder b("types");
  XlaOp x = Parameter(&b, 0, Shape::Array(F32, {2}), "x");
  XlaOp y = Parameter(&b, 1, Shape::Array(S32, {2}), "y");
  EXPECT_FALSE(Sub(x, y).valid());
  EXPECT_THAT(b.first_error().message(),
              HasSubstr("Sub: operands must have the same element type (lhs f32[2], rhs s32[2])"));
}

TEST(BuilderErrors, OperandOfAnotherBuilder) {
  XlaBuilder a("a"), b("b");
  XlaOp x = ConstantR0<float>(&a, 1);
  XlaOp y = ConstantR0<float>(&b, 2);
  EXPECT_FALSE(Add(y, x).valid());
  EXPECT_THAT(b.first_error().message(), HasSubstr("operand 1 belongs to builder 'a'"));
  EXPECT_TRUE(a.first_error().ok());
}

TEST(BuilderErrors, MissingParameterNumber) {
  XlaBuilder b("gap");
  Parameter(&b, 1, Shape::Scalar(F32), "y");
  absl::StatusOr<XlaComputation> c = b.Build();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("parameter 0 of 'gap' is missing"));
}

TEST(BuilderErrors, DuplicateParameterNumber) {
  XlaBuilder b("dup");
  Parameter(&b, 0, Shape::Scalar(F32), "x");
  EXPECT_FALSE(Parameter(&b, 0, Shape::Scalar(F32), "y").valid());
  EXPECT_THAT(b.first_error().message(), HasSubstr("defined twice"));
}

TEST(BuilderErrors, BuildTwiceAndUseAfterBuild) {
  XlaBuilder b("twice");
  XlaOp x = ConstantR0<float>(&b, 1);
  ASSERT_TRUE(b.Build().ok());
  EXPECT_FALSE(b.Build().ok());
  EXPECT_FALSE(Neg(x).valid());
}

TEST(BuilderErrors, BadReducerIsReportedAtReduce) {
  XlaBuilder b("bad_reducer");
  XlaComputation add_s32 = ScalarBinary(b, "add", S32, Add);
  XlaOp x = ConstantR1<float>(&b, {1, 2});
  EXPECT_FALSE(Reduce(x, ConstantR0<float>(&b, 0), add_s32, {0}).valid());
  EXPECT_THAT(b.first_error().message(), HasSubstr("Reduce: "));
}

TEST(BuilderErrors, DotNeedsVectorsOrMatrices) {
  XlaBuilder b("dot_rank");
  EXPECT_FALSE(Dot(ConstantR0<float>(&b, 1), ConstantR1<float>(&b, {1})).valid());
  EXPECT_THAT(b.first_error().message(), HasSubstr("Dot: operands must be vectors or matrices, got f32[] and f32[1]"));
}

// ---------------------------------------------------------------------------
// Computations across builders
// ---------------------------------------------------------------------------

// A computation built by an unrelated top-level builder (as in the
// document's ReduceWindow example) is copied into the caller's module.
TEST(BuilderComputations, StandaloneComputationIsImported) {
  XlaBuilder max_builder("max");
  Max(Parameter(&max_builder, 0, Shape::Scalar(F32), "y"), Parameter(&max_builder, 1, Shape::Scalar(F32), "x"));
  absl::StatusOr<XlaComputation> max = max_builder.Build();
  ASSERT_TRUE(max.ok()) << max.status();

  XlaBuilder b("uses_max");
  XlaOp v = ConstantR1<float>(&b, {3, 9, 4});
  Reduce(v, MinValue(&b, F32), *max, {0});
  Reduce(v, MinValue(&b, F32), *max, {0});  // imported once, used twice
  absl::StatusOr<std::shared_ptr<Module>> m = BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->computations().size(), 2u);
  // The original stays usable on its own.
  EXPECT_EQ(max->module().computations().size(), 1u);
}

TEST(BuilderComputations, ProgramShape) {
  XlaBuilder b("sig");
  XlaOp x = Parameter(&b, 0, Shape::Array(F32, {2}), "x");
  ConvertElementType(x, S32);
  absl::StatusOr<XlaComputation> c = b.Build();
  ASSERT_TRUE(c.ok());
  ProgramShape ps = c->GetProgramShape();
  ASSERT_EQ(ps.parameters.size(), 1u);
  EXPECT_EQ(ShapeToMessageString(ps.parameters[0]), "f32[2]");
  EXPECT_EQ(ShapeToMessageString(ps.result), "s32[2]");
}

// ---------------------------------------------------------------------------
// Property: builder-made == written as text
// ---------------------------------------------------------------------------

// The text of `text` after parse and print, to compare with a builder's.
std::string Canonical(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? PrintModule(**m) : "";
}

TEST(BuilderEqualsText, MatrixPlusVector) {
  XlaBuilder b("matrix_plus_vector");
  XlaOp x = Parameter(&b, 0, Shape::Array(F32, {2, 3}), "x");
  XlaOp v = Parameter(&b, 1, Shape::Array(F32, {3}), "v");
  Add(x, v, {1});
  absl::StatusOr<std::shared_ptr<Module>> m = BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(PrintModule(**m), Canonical(R"(
HloModule matrix_plus_vector

ENTRY %matrix_plus_vector (x.1: f32[2,3], v.2: f32[3]) -> f32[2,3] {
  %x.1 = f32[2,3] parameter(0)
  %v.2 = f32[3] parameter(1)
  %broadcast.3 = f32[2,3] broadcast(%v.2), dimensions={1}
  ROOT %add.4 = f32[2,3] add(%x.1, %broadcast.3)
})"));
}

TEST(BuilderEqualsText, ReduceWithSubComputation) {
  XlaBuilder b("sum_rows");
  XlaComputation add = ScalarBinary(b, "add", F32, Add);
  XlaOp x = Parameter(&b, 0, Shape::Array(F32, {2, 3}), "x");
  Reduce(x, ConstantR0<float>(&b, 0), add, {1});
  absl::StatusOr<std::shared_ptr<Module>> m = BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(PrintModule(**m), Canonical(R"(
HloModule sum_rows

%add (x.1: f32[], y.2: f32[]) -> f32[] {
  %x.1 = f32[] parameter(0)
  %y.2 = f32[] parameter(1)
  ROOT %add.3 = f32[] add(%x.1, %y.2)
}

ENTRY %sum_rows (x.4: f32[2,3]) -> f32[2] {
  %x.4 = f32[2,3] parameter(0)
  %constant.5 = f32[] constant(0)
  ROOT %reduce.6 = f32[2] reduce(%x.4, %constant.5), dimensions={1}, to_apply=%add
})"));
}

TEST(BuilderEqualsText, CompareWithScalarAndSelect) {
  XlaBuilder b("relu");
  XlaOp x = Parameter(&b, 0, Shape::Array(F32, {4}), "x");
  XlaOp zero = ConstantR0<float>(&b, 0);
  XlaOp positive = Gt(x, zero);
  Select(positive, x, Broadcast(zero, {4}));
  absl::StatusOr<std::shared_ptr<Module>> m = BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(PrintModule(**m), Canonical(R"(
HloModule relu

ENTRY %relu (x.1: f32[4]) -> f32[4] {
  %x.1 = f32[4] parameter(0)
  %constant.2 = f32[] constant(0)
  %broadcast.3 = f32[4] broadcast(%constant.2), dimensions={}
  %compare.4 = pred[4] compare(%x.1, %broadcast.3), direction=GT
  %broadcast.5 = f32[4] broadcast(%constant.2), dimensions={}
  ROOT %select.6 = f32[4] select(%compare.4, %x.1, %broadcast.5)
})"));
}

// Values 0, 1, 2, ... in row-major order, times `scale`.
XlaOp Numbered(XlaBuilder* b, const std::vector<int64_t>& dims, int32_t scale) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return Mul(Reshape(Iota(b, S32, n), dims), ConstantR0<int32_t>(b, scale));
}

// Row-major linear index of `idx` read through an operand of `dims` whose
// dimension i sits at result dimension map[i] (size-1 dimensions read 0).
int64_t OperandLinear(const std::vector<int64_t>& dims, const std::vector<int64_t>& map,
                      const std::vector<int64_t>& idx) {
  int64_t linear = 0;
  for (size_t i = 0; i < dims.size(); ++i) linear = linear * dims[i] + (dims[i] == 1 ? 0 : idx[map[i]]);
  return linear;
}

// Random binary broadcasts the document allows (scalars, in-dim mappings
// with degenerate dims, same-rank degenerate and outer cases): every
// element of the builder's result, run on the CPU backend, is the sum of
// the operand elements the rules select.
TEST(BuilderProperty, RandomBroadcastsMatchTheRules) {
  std::mt19937 rng(17);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t rank = 1 + rng() % 3;
    std::vector<int64_t> full(rank);
    for (auto& d : full) d = 2 + rng() % 2;
    std::vector<int64_t> big = full, small, bdims, big_map(rank);
    for (int64_t i = 0; i < rank; ++i) big_map[i] = i;
    if (rng() % 3 == 0) {
      // Same rank: each side independently full or degenerate per dim.
      for (int64_t i = 0; i < rank; ++i) {
        if (rng() % 3 == 0) big[i] = 1;
        small.push_back(rng() % 3 == 0 ? 1 : full[i]);
      }
      bdims = big_map;
    } else {
      for (int64_t i = 0; i < rank; ++i)
        if (rng() % 2) {
          bdims.push_back(i);
          small.push_back(rng() % 3 == 0 ? 1 : full[i]);
        }
      if (static_cast<int64_t>(small.size()) == rank) small.pop_back(), bdims.pop_back();
    }
    const bool small_first = rng() % 2;
    XlaBuilder b("random_broadcast");
    XlaOp s = Numbered(&b, small, 1000);
    XlaOp g = Numbered(&b, big, 1);
    // Scalars and equal ranks take no broadcast_dimensions.
    std::vector<int64_t> pass = (small.empty() || small.size() == big.size()) ? std::vector<int64_t>() : bdims;
    if (small_first) {
      Add(s, g, pass);
    } else {
      Add(g, s, pass);
    }
    absl::StatusOr<Literal> r = BuildAndRun(b);
    ASSERT_TRUE(r.ok()) << r.status() << " iteration " << iter;
    std::vector<int64_t> idx(rank, 0);
    for (int64_t n = 0; n < r->physical_count(); ++n) {
      const int64_t want = OperandLinear(big, big_map, idx) + 1000 * OperandLinear(small, bdims, idx);
      ASSERT_EQ(r->GetInt(r->Slot(idx)), want) << "iteration " << iter;
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++idx[d] < r->shape().dim(d)) break;
        idx[d] = 0;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// The printed module through the tools
// ---------------------------------------------------------------------------

#if defined(HLO_OPT_PATH) && defined(HLO_RUN_PATH)
TEST(BuilderTools, HloOptVerifiesAndHloRunRuns) {
  XlaBuilder b("tools");
  XlaOp x = Parameter(&b, 0, Shape::Array(F32, {2, 3}), "x");
  Mul(x, ConstantR1<float>(&b, {1, 10}), {0});
  absl::StatusOr<std::shared_ptr<Module>> m = BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "/builder_tools.hlo", out = dir + "/builder_tools.out";
  std::ofstream(path) << PrintModule(**m);
  ASSERT_EQ(std::system((std::string(HLO_OPT_PATH) + " " + path + " > /dev/null").c_str()), 0);
  ASSERT_EQ(std::system((std::string(HLO_RUN_PATH) + " " + path + " --input='f32[2,3] {{1,2,3},{4,5,6}}' > " + out)
                            .c_str()),
            0);
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "f32[2,3] {\n  { 1, 2, 3 },\n  { 40, 50, 60 }\n}\n");
}
#endif

}  // namespace
}  // namespace hlo::client
