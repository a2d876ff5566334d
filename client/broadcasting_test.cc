// The worked examples of the seeds' broadcasting document, built with the
// builder and checked by value on the CPU backend; and its error cases.
#include "client/broadcasting.h"

#include "client/client_test_util.h"
#include "gmock/gmock.h"
#include "ir/shape_inference.h"

namespace hlo::client {
namespace {

using ::hlo::client::testing::BuildAndRun;
using ::hlo::client::testing::LiteralIs;
using ::testing::HasSubstr;

const Shape kF32_2x3 = Shape::Array(PrimitiveType::F32, {2, 3});

// |1 2 3| + 7 = |8  9  10|
// |4 5 6|       |11 12 13|
TEST(BroadcastingDoc, ScalarPlusMatrix) {
  XlaBuilder b("scalar_plus_matrix");
  Add(ConstantR2<float>(&b, {{1, 2, 3}, {4, 5, 6}}), ConstantR0<float>(&b, 7));
  EXPECT_BUILDS_TO(b, {}, "f32[2,3] {{8, 9, 10}, {11, 12, 13}}");
}

// The scalar may be on either side.
TEST(BroadcastingDoc, ScalarOnTheLeft) {
  XlaBuilder b("scalar_left");
  Sub(ConstantR0<float>(&b, 7), ConstantR2<float>(&b, {{1, 2, 3}, {4, 5, 6}}));
  EXPECT_BUILDS_TO(b, {}, "f32[2,3] {{6, 5, 4}, {3, 2, 1}}");
}

// Matrix (2,3) + vector (3) with broadcast_dimensions (1).
TEST(BroadcastingDoc, MatrixPlusVectorDim1) {
  XlaBuilder b("matrix_plus_vector");
  Add(Parameter(&b, 0, kF32_2x3, "x"), Parameter(&b, 1, Shape::Array(PrimitiveType::F32, {3}), "v"), {1});
  EXPECT_BUILDS_TO(b, std::vector<std::string>({"f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "f32[3] {7, 8, 9}"}),
                   "f32[2,3] {{8, 10, 12}, {11, 13, 15}}");
}

// A 3-vector added to a 3x3 matrix both ways: (1) each element becomes a
// column... the vector is replicated for every row; (0) for every column.
TEST(BroadcastingDoc, VectorOnSquareMatrixBothWays) {
  for (int64_t dim : {0, 1}) {
    XlaBuilder b("square");
    Add(ConstantR2<int32_t>(&b, {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}), ConstantR1<int32_t>(&b, {7, 8, 9}), {dim});
    EXPECT_BUILDS_TO(b, {},
                     dim == 1 ? "s32[3,3] {{7, 8, 9}, {7, 8, 9}, {7, 8, 9}}"
                              : "s32[3,3] {{7, 7, 7}, {8, 8, 8}, {9, 9, 9}}");
  }
}

// A 2x3x4 box and a 3x4 matrix with broadcast_dimensions (1, 2).
TEST(BroadcastingDoc, MatrixOnCuboid) {
  XlaBuilder b("cuboid");
  XlaOp box = Broadcast(ConstantR0<int32_t>(&b, 100), {2, 3, 4});
  XlaOp m = Iota(&b, Shape::Array(PrimitiveType::S32, {3, 4}), 1);
  Add(box, m, {1, 2});
  EXPECT_BUILDS_TO(b, {},
                   "s32[2,3,4] {{{100, 101, 102, 103}, {100, 101, 102, 103}, {100, 101, 102, 103}},"
                   " {{100, 101, 102, 103}, {100, 101, 102, 103}, {100, 101, 102, 103}}}");
}

// The degenerate-dimension examples: (2,1)+(2,3), (1,2,5)+(7,2,5),
// (7,2,5)+(7,1,5) broadcast; (7,2,5)+(7,2,6) does not; (2,1)+(1,3) is an
// outer operation.
TEST(BroadcastingDoc, DegenerateDimensionShapes) {
  struct Case {
    std::vector<int64_t> a, b, want;
  };
  for (const Case& c : std::vector<Case>{{{2, 1}, {2, 3}, {2, 3}},
                                         {{1, 2, 5}, {7, 2, 5}, {7, 2, 5}},
                                         {{7, 2, 5}, {7, 1, 5}, {7, 2, 5}},
                                         {{2, 1}, {1, 3}, {2, 3}}}) {
    absl::StatusOr<BinaryBroadcastPlan> p = PlanBinaryBroadcast(
        "Add", Shape::Array(PrimitiveType::F32, c.a), Shape::Array(PrimitiveType::F32, c.b), {});
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->result_dims, c.want);
  }
  absl::StatusOr<BinaryBroadcastPlan> bad = PlanBinaryBroadcast(
      "Add", Shape::Array(PrimitiveType::F32, {7, 2, 5}), Shape::Array(PrimitiveType::F32, {7, 2, 6}), {});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("f32[7,2,5]"));
  EXPECT_THAT(bad.status().message(), HasSubstr("f32[7,2,6]"));
}

// (2,1) + (1,3) by value: the outer sum.
TEST(BroadcastingDoc, OuterSum) {
  XlaBuilder b("outer");
  Add(ConstantR2<float>(&b, {{10}, {20}}), ConstantR2<float>(&b, {{1, 2, 3}}));
  EXPECT_BUILDS_TO(b, {}, "f32[2,3] {{11, 12, 13}, {21, 22, 23}}");
}

// |1 2 3 4| + [5 6] (a 1x2 matrix) with broadcast_dimensions (0):
// the vector becomes 4x1 -> 4x2, the 1x2 matrix broadcasts along dim 0.
TEST(BroadcastingDoc, InDimThenDegenerate) {
  XlaBuilder b("compose");
  Add(ConstantR1<float>(&b, {1, 2, 3, 4}), ConstantR2<float>(&b, {{5, 6}}), {0});
  EXPECT_BUILDS_TO(b, {}, "f32[4,2] {{6, 7}, {7, 8}, {8, 9}, {9, 10}}");
}

// A 1x2 matrix added to a 4x3x1 array with broadcast_dimensions (1, 2)
// gives 4x3x2.
TEST(BroadcastingDoc, MatrixOnDegenerateCuboid) {
  XlaBuilder b("compose3");
  XlaOp big = Iota(&b, Shape::Array(PrimitiveType::S32, {4, 3, 1}), 0);
  Add(big, ConstantR2<int32_t>(&b, {{10, 20}}), {1, 2});
  absl::StatusOr<Literal> r = BuildAndRun(b);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(LiteralIs(*r,
                        "s32[4,3,2] {{{10, 20}, {10, 20}, {10, 20}}, {{11, 21}, {11, 21}, {11, 21}},"
                        " {{12, 22}, {12, 22}, {12, 22}}, {{13, 23}, {13, 23}, {13, 23}}}"));
}

// Illegal mappings from the formal definition: out of order, mismatched
// sizes, missing broadcast_dimensions, non-identity for equal ranks.
TEST(BroadcastingDoc, IllegalBroadcastDimensions) {
  const Shape big = Shape::Array(PrimitiveType::F32, {2, 3, 4, 5});
  const Shape tv = Shape::Array(PrimitiveType::F32, {4, 3});
  struct Case {
    Shape lhs, rhs;
    std::vector<int64_t> dims;
    const char* what;
  };
  for (const Case& c : std::vector<Case>{
           {big, tv, {2, 1}, "strictly increasing"},
           {big, tv, {1, 2}, "mismatch"},
           {big, tv, {}, "need broadcast_dimensions"},
           {big, tv, {0}, "has 1 entries"},
           {big, tv, {2, 4}, "out of range"},
           {tv, tv, {1, 0}, "identity"},
       }) {
    absl::StatusOr<BinaryBroadcastPlan> p = PlanBinaryBroadcast("Mul", c.lhs, c.rhs, c.dims);
    ASSERT_FALSE(p.ok()) << c.what;
    EXPECT_THAT(p.status().message(), HasSubstr(c.what));
    EXPECT_THAT(p.status().message(), HasSubstr("Mul: "));
    EXPECT_THAT(p.status().message(), HasSubstr(ShapeToMessageString(c.lhs)));
    EXPECT_THAT(p.status().message(), HasSubstr(ShapeToMessageString(c.rhs)));
  }
}

// The lowering is explicit: the vector of X + v becomes a broadcast.
TEST(BroadcastingLowering, EmitsBroadcastInstructions) {
  XlaBuilder b("lowered");
  XlaOp x = Parameter(&b, 0, kF32_2x3, "x");
  XlaOp v = Parameter(&b, 1, Shape::Array(PrimitiveType::F32, {3}), "v");
  Add(x, v, {1});
  absl::StatusOr<std::shared_ptr<Module>> m = b.BuildModule();
  ASSERT_TRUE(m.ok()) << m.status();
  const std::string text = PrintModule(**m);
  EXPECT_THAT(text, HasSubstr("f32[2,3]{1,0} broadcast(%v.2), dimensions={1}"));
  EXPECT_THAT(text, HasSubstr("add(%x.1, %broadcast.3)"));
}

// A degenerate dimension is reshaped away before the broadcast.
TEST(BroadcastingLowering, DegenerateDimensionIsReshapedAway) {
  XlaBuilder b("degenerate");
  XlaOp a = Parameter(&b, 0, Shape::Array(PrimitiveType::F32, {2, 1}), "a");
  XlaOp c = Parameter(&b, 1, Shape::Array(PrimitiveType::F32, {2, 3}), "c");
  Add(a, c);
  absl::StatusOr<std::shared_ptr<Module>> m = b.BuildModule();
  ASSERT_TRUE(m.ok()) << m.status();
  const std::string text = PrintModule(**m);
  EXPECT_THAT(text, HasSubstr("f32[2]{0} reshape(%a.1)"));
  EXPECT_THAT(text, HasSubstr("f32[2,3]{1,0} broadcast(%reshape.3), dimensions={0}"));
}

}  // namespace
}  // namespace hlo::client
