// The worked examples of the operation-semantics document (seeds), built
// with the builder's calls and checked by value on the CPU backend.
#include "client/client_test_util.h"
#include "gmock/gmock.h"
#include "ir/shape_inference.h"

namespace hlo::client {
namespace {

using ::hlo::client::testing::BuildAndRun;
using ::hlo::client::testing::LiteralIs;
using ::hlo::client::testing::ScalarBinary;
using ::hlo::client::testing::ScalarParameters;
using ::hlo::client::testing::SubComputation;

constexpr PrimitiveType F32 = PrimitiveType::F32;
constexpr PrimitiveType S32 = PrimitiveType::S32;

// The 24-element array of the Collapse and Reshape examples.
XlaOp V(XlaBuilder* b) {
  return ConstantR3<float>(b, {{{10, 11, 12}, {15, 16, 17}},
                               {{20, 21, 22}, {25, 26, 27}},
                               {{30, 31, 32}, {35, 36, 37}},
                               {{40, 41, 42}, {45, 46, 47}}});
}

TEST(OpSemanticsDoc, Clamp) {
  XlaBuilder b("clamp");
  XlaOp operand = ConstantR1<int32_t>(&b, {-1, 5, 9});
  Clamp(ConstantR0<int32_t>(&b, 0), operand, ConstantR0<int32_t>(&b, 6));
  EXPECT_BUILDS_TO(b, {}, "s32[3] {0, 5, 6}");
}

TEST(OpSemanticsDoc, Collapse) {
  {
    XlaBuilder b("collapse012");
    Collapse(V(&b), {0, 1, 2});
    EXPECT_BUILDS_TO(b, {},
                     "f32[24] {10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27, 30, 31, 32, 35, 36, 37, 40, 41, "
                     "42, 45, 46, 47}");
  }
  // The document's other two examples have their results swapped: by its
  // own definition (and XLA's XlaBuilder::Collapse) the merged dimensions
  // are replaced, in place, by one of their product, so {0,1} of 4x2x3 is
  // 8x3 and {1,2} is 4x6 (docs/builder.md). The values are the document's.
  {
    XlaBuilder b("collapse01");
    Collapse(V(&b), {0, 1});
    EXPECT_BUILDS_TO(b, {},
                     "f32[8,3] {{10, 11, 12}, {15, 16, 17}, {20, 21, 22}, {25, 26, 27}, {30, 31, 32},"
                     " {35, 36, 37}, {40, 41, 42}, {45, 46, 47}}");
  }
  {
    XlaBuilder b("collapse12");
    Collapse(V(&b), {1, 2});
    EXPECT_BUILDS_TO(b, {},
                     "f32[4,6] {{10, 11, 12, 15, 16, 17}, {20, 21, 22, 25, 26, 27}, {30, 31, 32, 35, 36, 37},"
                     " {40, 41, 42, 45, 46, 47}}");
  }
}

TEST(OpSemanticsDoc, Collapse_RejectsNonConsecutiveDimensions) {
  XlaBuilder b("collapse_bad");
  EXPECT_FALSE(Collapse(V(&b), {0, 2}).valid());
  EXPECT_THAT(b.first_error().message(), ::testing::HasSubstr("Collapse: dimensions {0,2} must be consecutive"));
}

TEST(OpSemanticsDoc, ConcatInDim) {
  {
    XlaBuilder b("concat1");
    ConcatInDim(&b, {ConstantR1<int32_t>(&b, {2, 3}), ConstantR1<int32_t>(&b, {4, 5}), ConstantR1<int32_t>(&b, {6, 7})},
                0);
    EXPECT_BUILDS_TO(b, {}, "s32[6] {2, 3, 4, 5, 6, 7}");
  }
  {
    XlaBuilder b("concat2");
    XlaOp a = ConstantR2<int32_t>(&b, {{1, 2}, {3, 4}, {5, 6}});
    XlaOp c = ConstantR2<int32_t>(&b, {{7, 8}});
    ConcatInDim(&b, {a, c}, 0);
    EXPECT_BUILDS_TO(b, {}, "s32[4,2] {{1, 2}, {3, 4}, {5, 6}, {7, 8}}");
  }
}

TEST(OpSemanticsDoc, ConvertElementType) {
  XlaBuilder b("convert");
  ConvertElementType(ConstantR1<int32_t>(&b, {0, 1, 2}), F32);
  EXPECT_BUILDS_TO(b, {}, "f32[3] {0, 1, 2}");
}

TEST(OpSemanticsDoc, BitcastConvertType) {
  XlaBuilder b("bitcast");
  BitcastConvertType(ConstantR1<float>(&b, {1.0f, -2.0f}), S32);
  EXPECT_BUILDS_TO(b, {}, "s32[2] {1065353216, -1073741824}");
}

TEST(OpSemanticsDoc, DotGeneralContracting) {
  XlaBuilder b("dot_contracting");
  XlaOp lhs = ConstantR2<float>(&b, {{1, 2, 3}, {4, 5, 6}});
  XlaOp rhs = ConstantR2<float>(&b, {{1, 1, 1}, {2, 2, 2}});
  DotDimensionNumbers d;
  d.lhs_contracting_dimensions = {1};
  d.rhs_contracting_dimensions = {1};
  DotGeneral(lhs, rhs, d);
  EXPECT_BUILDS_TO(b, {}, "f32[2,2] {{6, 12}, {15, 30}}");
}

// The batch-dimension example of DotGeneral is a golden example
// (client/golden_examples.cc, testdata/builder/dot_general_batch.hlo).

TEST(OpSemanticsDoc, DotMatrixVector) {
  XlaBuilder b("dot");
  Dot(ConstantR2<float>(&b, {{1, 2, 3}, {4, 5, 6}}), ConstantR1<float>(&b, {1, 0, 2}));
  EXPECT_BUILDS_TO(b, {}, "f32[2] {7, 16}");
}

TEST(OpSemanticsDoc, DynamicSlice) {
  {
    XlaBuilder b("ds1");
    DynamicSlice(ConstantR1<float>(&b, {0, 1, 2, 3, 4}), {ConstantR0<int32_t>(&b, 2)}, {2});
    EXPECT_BUILDS_TO(b, {}, "f32[2] {2, 3}");
  }
  {
    XlaBuilder b("ds2");
    XlaOp m = ConstantR2<float>(&b, {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}});
    DynamicSlice(m, {ConstantR0<int32_t>(&b, 2), ConstantR0<int32_t>(&b, 1)}, {2, 2});
    EXPECT_BUILDS_TO(b, {}, "f32[2,2] {{7, 8}, {10, 11}}");
  }
}

TEST(OpSemanticsDoc, DynamicUpdateSlice) {
  {
    XlaBuilder b("dus1");
    DynamicUpdateSlice(ConstantR1<float>(&b, {0, 1, 2, 3, 4}), ConstantR1<float>(&b, {5, 6}),
                       {ConstantR0<int32_t>(&b, 2)});
    EXPECT_BUILDS_TO(b, {}, "f32[5] {0, 1, 5, 6, 4}");
  }
  {
    XlaBuilder b("dus2");
    XlaOp m = ConstantR2<float>(&b, {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}});
    XlaOp u = ConstantR2<float>(&b, {{12, 13}, {14, 15}, {16, 17}});
    DynamicUpdateSlice(m, u, {ConstantR0<int32_t>(&b, 1), ConstantR0<int32_t>(&b, 1)});
    EXPECT_BUILDS_TO(b, {}, "f32[4,3] {{0, 1, 2}, {3, 12, 13}, {6, 14, 15}, {9, 16, 17}}");
  }
}

TEST(OpSemanticsDoc, Iota) {
  {
    XlaBuilder b("iota0");
    Iota(&b, Shape::Array(S32, {4, 8}), 0);
    EXPECT_BUILDS_TO(b, {},
                     "s32[4,8] {{0,0,0,0,0,0,0,0}, {1,1,1,1,1,1,1,1}, {2,2,2,2,2,2,2,2}, {3,3,3,3,3,3,3,3}}");
  }
  {
    XlaBuilder b("iota1");
    Iota(&b, Shape::Array(S32, {4, 8}), 1);
    EXPECT_BUILDS_TO(b, {},
                     "s32[4,8] {{0,1,2,3,4,5,6,7}, {0,1,2,3,4,5,6,7}, {0,1,2,3,4,5,6,7}, {0,1,2,3,4,5,6,7}}");
  }
}

TEST(OpSemanticsDoc, Select) {
  {
    XlaBuilder b("select");
    XlaOp pred = ConstantR1<bool>(&b, {true, false, false, true});
    Select(pred, ConstantR1<int32_t>(&b, {1, 2, 3, 4}), ConstantR1<int32_t>(&b, {100, 200, 300, 400}));
    EXPECT_BUILDS_TO(b, {}, "s32[4] {1, 200, 300, 4}");
  }
  {
    XlaBuilder b("select_scalar");
    XlaOp pred = ConstantR0<bool>(&b, true);
    Select(pred, ConstantR1<int32_t>(&b, {1, 2, 3, 4}), ConstantR1<int32_t>(&b, {100, 200, 300, 400}));
    EXPECT_BUILDS_TO(b, {}, "s32[4] {1, 2, 3, 4}");
  }
}

TEST(OpSemanticsDoc, Slice) {
  {
    XlaBuilder b("slice1");
    Slice(ConstantR1<float>(&b, {0, 1, 2, 3, 4}), {2}, {4}, {1});
    EXPECT_BUILDS_TO(b, {}, "f32[2] {2, 3}");
  }
  {
    XlaBuilder b("slice2");
    Slice(ConstantR2<float>(&b, {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}), {2, 1}, {4, 3}, {1, 1});
    EXPECT_BUILDS_TO(b, {}, "f32[2,2] {{7, 8}, {10, 11}}");
  }
  {
    XlaBuilder b("slice_in_dim");
    SliceInDim(ConstantR2<float>(&b, {{0, 1, 2}, {3, 4, 5}}), 0, 3, 2, 1);
    EXPECT_BUILDS_TO(b, {}, "f32[2,2] {{0, 2}, {3, 5}}");
  }
}

TEST(OpSemanticsDoc, ReshapeWithDimensions) {
  {
    XlaBuilder b("v012_83");
    Reshape(V(&b), {0, 1, 2}, {8, 3});
    EXPECT_BUILDS_TO(b, {},
                     "f32[8,3] {{10, 11, 12}, {15, 16, 17}, {20, 21, 22}, {25, 26, 27}, {30, 31, 32},"
                     " {35, 36, 37}, {40, 41, 42}, {45, 46, 47}}");
  }
  {
    XlaBuilder b("v021_83");
    Reshape(V(&b), {1, 2, 0}, {8, 3});
    EXPECT_BUILDS_TO(b, {},
                     "f32[8,3] {{10, 20, 30}, {40, 11, 21}, {31, 41, 12}, {22, 32, 42}, {15, 25, 35},"
                     " {45, 16, 26}, {36, 46, 17}, {27, 37, 47}}");
  }
  {
    XlaBuilder b("v021_262");
    Reshape(V(&b), {1, 2, 0}, {2, 6, 2});
    EXPECT_BUILDS_TO(b, {},
                     "f32[2,6,2] {{{10, 20}, {30, 40}, {11, 21}, {31, 41}, {12, 22}, {32, 42}},"
                     " {{15, 25}, {35, 45}, {16, 26}, {36, 46}, {17, 27}, {37, 47}}}");
  }
  {
    XlaBuilder b("to_scalar");
    Reshape(ConstantR2<float>(&b, {{5}}), {0, 1}, {});
    EXPECT_BUILDS_TO(b, {}, "f32[] 5");
  }
  {
    XlaBuilder b("from_scalar");
    Reshape(ConstantR0<float>(&b, 5), {}, {1, 1});
    EXPECT_BUILDS_TO(b, {}, "f32[1,1] {{5}}");
  }
}

TEST(OpSemanticsDoc, Broadcast) {
  XlaBuilder b("broadcast");
  Broadcast(ConstantR0<float>(&b, 2.0f), {2, 3});
  EXPECT_BUILDS_TO(b, {}, "f32[2,3] {{2, 2, 2}, {2, 2, 2}}");
}

TEST(OpSemanticsDoc, BroadcastInDimExpandsSizeOneDimensions) {
  XlaBuilder b("broadcast_in_dim");
  BroadcastInDim(ConstantR2<float>(&b, {{1}, {2}}), {2, 3, 2}, {0, 1});
  EXPECT_BUILDS_TO(b, {}, "f32[2,3,2] {{{1, 1}, {1, 1}, {1, 1}}, {{2, 2}, {2, 2}, {2, 2}}}");
}

TEST(OpSemanticsDoc, TransposeAndRev) {
  {
    XlaBuilder b("transpose");
    Transpose(ConstantR2<int32_t>(&b, {{1, 2, 3}, {4, 5, 6}}), {1, 0});
    EXPECT_BUILDS_TO(b, {}, "s32[3,2] {{1, 4}, {2, 5}, {3, 6}}");
  }
  {
    XlaBuilder b("rev");
    Rev(ConstantR2<int32_t>(&b, {{1, 2}, {3, 4}}), {0});
    EXPECT_BUILDS_TO(b, {}, "s32[2,2] {{3, 4}, {1, 2}}");
  }
}

TEST(OpSemanticsDoc, PadEdgeInteriorAndNegative) {
  {
    XlaBuilder b("pad");
    PaddingConfig pc = {{1, 0, 0}, {0, 1, 1}};
    Pad(ConstantR2<int32_t>(&b, {{1, 2}, {3, 4}}), ConstantR0<int32_t>(&b, 0), pc);
    EXPECT_BUILDS_TO(b, {}, "s32[3,4] {{0, 0, 0, 0}, {1, 0, 2, 0}, {3, 0, 4, 0}}");
  }
  {
    // Interior padding comes first, then the negative low edge removes.
    XlaBuilder b("pad_negative");
    Pad(ConstantR1<int32_t>(&b, {1, 2, 3}), ConstantR0<int32_t>(&b, 0), {{-1, 0, 1}});
    EXPECT_BUILDS_TO(b, {}, "s32[4] {0, 2, 0, 3}");
  }
}

// The 4x2x3 array of the Reduce examples: 1..6 replicated along dim 0.
XlaOp ReduceInput(XlaBuilder* b) {
  return Broadcast(ConstantR2<float>(b, {{1, 2, 3}, {4, 5, 6}}), {4});
}

TEST(OpSemanticsDoc, Reduce) {
  struct Case {
    std::vector<int64_t> dims;
    const char* want;
  };
  for (const Case& c : std::vector<Case>{{{0}, "f32[2,3] {{4, 8, 12}, {16, 20, 24}}"},
                                         {{2}, "f32[4,2] {{6, 15}, {6, 15}, {6, 15}, {6, 15}}"},
                                         {{0, 1}, "f32[3] {20, 28, 36}"},
                                         {{0, 1, 2}, "f32[] 84"}}) {
    XlaBuilder b("reduce");
    XlaComputation add = ScalarBinary(b, "add", F32, Add);
    Reduce(ReduceInput(&b), ConstantR0<float>(&b, 0), add, c.dims);
    EXPECT_BUILDS_TO(b, {}, c.want);
  }
}

TEST(OpSemanticsDoc, ReduceAll) {
  XlaBuilder b("reduce_all");
  XlaComputation add = ScalarBinary(b, "add", F32, Add);
  ReduceAll(ReduceInput(&b), ConstantR0<float>(&b, 0), add);
  EXPECT_BUILDS_TO(b, {}, "f32[] 84");
}

// Variadic reduce: max and argmax in one pass.
TEST(OpSemanticsDoc, VariadicReduceArgmax) {
  XlaBuilder b("argmax");
  XlaComputation step = SubComputation(b, "argmax_step", [](XlaBuilder* f) {
    // (max, argmax, value, index)
    std::vector<XlaOp> p = ScalarParameters(f, {F32, S32, F32, S32});
    XlaOp take = Ge(p[2], p[0]);
    Tuple(f, {Select(take, p[2], p[0]), Select(take, p[3], p[1])});
  });
  XlaOp v = ConstantR1<float>(&b, {1, 5, 3});
  XlaOp k = Iota(&b, S32, 3);
  Reduce(&b, {v, k}, {MinValue(&b, F32), ConstantR0<int32_t>(&b, 0)}, step, {0});
  EXPECT_BUILDS_TO(b, {}, "(f32[], s32[]) (5, 1)");
}

TEST(OpSemanticsDoc, ReduceWindowValidAndSame) {
  for (Padding p : {Padding::kValid, Padding::kSame}) {
    XlaBuilder b("reduce_window_min");
    XlaComputation min = ScalarBinary(b, "min", F32, Min);
    ReduceWindow(ConstantR1<float>(&b, {10000, 1000, 100, 10, 1}), MaxValue(&b, F32), min, {3}, {2}, p);
    EXPECT_BUILDS_TO(b, {}, p == Padding::kValid ? "f32[2] {100, 1}" : "f32[3] {1000, 10, 1}");
  }
}

TEST(OpSemanticsDoc, ReduceWindowMaxPool2x3) {
  XlaBuilder b("reduce_window_2x3");
  XlaComputation max = ScalarBinary(b, "max", F32, Max);
  XlaOp input = Parameter(&b, 0, Shape::Array(F32, {4, 6}), "input");
  ReduceWindow(input, MinValue(&b, F32), max, {2, 3}, {2, 3}, Padding::kValid);
  EXPECT_BUILDS_TO(b,
                   std::vector<std::string>({"f32[4,6] {{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12},"
                                             " {13, 14, 15, 16, 17, 18}, {19, 20, 21, 22, 23, 24}}"}),
                   "f32[2,2] {{9, 12}, {21, 24}}");
}

TEST(OpSemanticsDoc, SelectAndScatter) {
  XlaBuilder b("select_and_scatter");
  XlaComputation ge = ScalarBinary(b, "ge", F32, Ge);
  XlaComputation add = ScalarBinary(b, "add", F32, Add);
  SelectAndScatter(ConstantR1<float>(&b, {1, 9, 3, 7, 5, 6}), ge, {2}, {2}, Padding::kValid,
                   ConstantR1<float>(&b, {10, 20, 30}), ConstantR0<float>(&b, 0), add);
  EXPECT_BUILDS_TO(b, {}, "f32[6] {0, 10, 0, 20, 0, 30}");
}

TEST(OpSemanticsDoc, MapWithComputation) {
  XlaBuilder b("map");
  XlaComputation fn = SubComputation(b, "mul_plus_one", [](XlaBuilder* f) {
    std::vector<XlaOp> p = ScalarParameters(f, {F32, F32});
    Add(Mul(p[0], p[1]), ConstantR0<float>(f, 1));
  });
  Map(&b, {ConstantR1<float>(&b, {1, 2, 3}), ConstantR1<float>(&b, {4, 5, 6})}, fn, {0});
  EXPECT_BUILDS_TO(b, {}, "f32[3] {5, 11, 19}");
}

TEST(OpSemanticsDoc, SortKeysAndValues) {
  XlaBuilder b("sort");
  XlaComputation lt = SubComputation(b, "lt", [](XlaBuilder* cmp) {
    // (key0, key1, value0, value1): orders by key only.
    std::vector<XlaOp> p = ScalarParameters(cmp, {F32, F32, S32, S32});
    Lt(p[0], p[1]);
  });
  Sort({ConstantR1<float>(&b, {3, 1, 2}), ConstantR1<int32_t>(&b, {30, 10, 20})}, lt);
  EXPECT_BUILDS_TO(b, {}, "(f32[3], s32[3]) ({1, 2, 3}, {10, 20, 30})");
}

TEST(OpSemanticsDoc, GatherRows) {
  XlaBuilder b("gather");
  XlaOp operand = ConstantR2<float>(&b, {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}});
  XlaOp indices = ConstantR2<int32_t>(&b, {{2}, {0}});
  GatherDimensionNumbers d;
  d.offset_dims = {1};
  d.collapsed_slice_dims = {0};
  d.start_index_map = {0};
  d.index_vector_dim = 1;
  Gather(operand, indices, d, {1, 3});
  EXPECT_BUILDS_TO(b, {}, "f32[2,3] {{6, 7, 8}, {0, 1, 2}}");
}

TEST(OpSemanticsDoc, ScatterAddRows) {
  XlaBuilder b("scatter");
  XlaComputation add = ScalarBinary(b, "add", F32, Add);
  XlaOp operand = Broadcast(ConstantR0<float>(&b, 0), {3, 3});
  XlaOp indices = ConstantR2<int32_t>(&b, {{0}, {2}});
  XlaOp updates = ConstantR2<float>(&b, {{1, 2, 3}, {4, 5, 6}});
  ScatterDimensionNumbers d;
  d.update_window_dims = {1};
  d.inserted_window_dims = {0};
  d.scatter_dims_to_operand_dims = {0};
  d.index_vector_dim = 1;
  Scatter(operand, indices, updates, add, d);
  EXPECT_BUILDS_TO(b, {}, "f32[3,3] {{1, 2, 3}, {0, 0, 0}, {4, 5, 6}}");
}

// 3x3 input, 2x2 kernel of ones: VALID sums the four 2x2 windows; SAME
// pads one row/column at the high end.
TEST(OpSemanticsDoc, ConvValidAndSame) {
  for (Padding p : {Padding::kValid, Padding::kSame}) {
    XlaBuilder b("conv");
    XlaOp input = Reshape(Iota(&b, F32, 9), {1, 1, 3, 3});
    XlaOp kernel = Broadcast(ConstantR0<float>(&b, 1), {1, 1, 2, 2});
    Conv(input, kernel, {1, 1}, p);
    EXPECT_BUILDS_TO(b, {},
                     p == Padding::kValid ? "f32[1,1,2,2] {{{{8, 12}, {20, 24}}}}"
                                          : "f32[1,1,3,3] {{{{8, 12, 7}, {20, 24, 13}, {13, 15, 8}}}}");
  }
}

TEST(OpSemanticsDoc, ConvGeneralDilatedMatchesWithGeneralPadding) {
  // lhs dilation 2 spreads the 1-D input {1,2,3} to {1,0,2,0,3}; a size-2
  // kernel {1,1} then sums neighbours.
  XlaBuilder b("conv_dilated");
  XlaOp input = Reshape(ConstantR1<float>(&b, {1, 2, 3}), {1, 1, 3});
  XlaOp kernel = Reshape(ConstantR1<float>(&b, {1, 1}), {1, 1, 2});
  ConvGeneralDilated(input, kernel, {1}, {{0, 0}}, {2}, {1}, CreateDefaultConvDimensionNumbers(1));
  EXPECT_BUILDS_TO(b, {}, "f32[1,1,4] {{{1, 2, 2, 3}}}");
}

TEST(OpSemanticsDoc, ConvWithGeneralPadding) {
  XlaBuilder b("conv_padded");
  XlaOp input = Reshape(ConstantR1<float>(&b, {1, 2, 3}), {1, 1, 3});
  XlaOp kernel = Reshape(ConstantR1<float>(&b, {1, 1}), {1, 1, 2});
  ConvWithGeneralPadding(input, kernel, {1}, {{1, 1}});
  EXPECT_BUILDS_TO(b, {}, "f32[1,1,4] {{{1, 3, 5, 3}}}");
}

TEST(OpSemanticsDoc, TupleAndGetTupleElement) {
  XlaBuilder b("tuple");
  XlaOp t = Tuple(&b, {Iota(&b, F32, 10), ConstantR0<int32_t>(&b, 5)});
  GetTupleElement(t, 1);
  EXPECT_BUILDS_TO(b, {}, "s32[] 5");
}

TEST(OpSemanticsDoc, WhileCountsToTen) {
  XlaBuilder b("while");
  const Shape state = Shape::Tuple({Shape::Scalar(S32), Shape::Scalar(F32)});
  std::unique_ptr<XlaBuilder> cb = b.CreateSubBuilder("cond");
  Lt(GetTupleElement(Parameter(cb.get(), 0, state, "s"), 0), ConstantR0<int32_t>(cb.get(), 10));
  absl::StatusOr<XlaComputation> cond = cb->Build();
  ASSERT_TRUE(cond.ok()) << cond.status();
  std::unique_ptr<XlaBuilder> bb = b.CreateSubBuilder("body");
  {
    XlaOp s = Parameter(bb.get(), 0, state, "s");
    Tuple(bb.get(), {Add(GetTupleElement(s, 0), ConstantR0<int32_t>(bb.get(), 1)),
                     Add(GetTupleElement(s, 1), ConstantR0<float>(bb.get(), 2))});
  }
  absl::StatusOr<XlaComputation> body = bb->Build();
  ASSERT_TRUE(body.ok()) << body.status();
  While(*cond, *body, Tuple(&b, {ConstantR0<int32_t>(&b, 0), ConstantR0<float>(&b, 0)}));
  EXPECT_BUILDS_TO(b, {}, "(s32[], f32[]) (10, 20)");
}

TEST(OpSemanticsDoc, ConditionalBothForms) {
  for (bool pred : {true, false}) {
    XlaBuilder b("conditional");
    std::unique_ptr<XlaBuilder> tb = b.CreateSubBuilder("double");
    Mul(Parameter(tb.get(), 0, Shape::Scalar(F32), "x"), ConstantR0<float>(tb.get(), 2));
    absl::StatusOr<XlaComputation> t = tb->Build();
    std::unique_ptr<XlaBuilder> fb = b.CreateSubBuilder("negate");
    Neg(Parameter(fb.get(), 0, Shape::Scalar(F32), "x"));
    absl::StatusOr<XlaComputation> f = fb->Build();
    ASSERT_TRUE(t.ok() && f.ok());
    XlaOp x = ConstantR0<float>(&b, 3);
    Conditional(ConstantR0<bool>(&b, pred), x, *t, x, *f);
    EXPECT_BUILDS_TO(b, {}, pred ? "f32[] 6" : "f32[] -3");
  }
  XlaBuilder b("indexed");
  std::vector<XlaComputation> branches;
  for (float k : {10.0f, 20.0f, 30.0f}) {
    std::unique_ptr<XlaBuilder> sb = b.CreateSubBuilder("branch");
    Add(Parameter(sb.get(), 0, Shape::Scalar(F32), "x"), ConstantR0<float>(sb.get(), k));
    absl::StatusOr<XlaComputation> c = sb->Build();
    ASSERT_TRUE(c.ok()) << c.status();
    branches.push_back(*c);
  }
  XlaOp x = ConstantR0<float>(&b, 1);
  Conditional(ConstantR0<int32_t>(&b, 1), {&branches[0], &branches[1], &branches[2]}, {x, x, x});
  EXPECT_BUILDS_TO(b, {}, "f32[] 21");
}

TEST(OpSemanticsDoc, Call) {
  XlaBuilder b("call");
  XlaComputation mul = ScalarBinary(b, "mul", F32, Mul);
  Call(&b, mul, {ConstantR0<float>(&b, 3), ConstantR0<float>(&b, 4)});
  EXPECT_BUILDS_TO(b, {}, "f32[] 12");
}

TEST(OpSemanticsDoc, RngUniformStaysInRange) {
  XlaBuilder b("rng");
  RngUniform(ConstantR0<float>(&b, 2), ConstantR0<float>(&b, 3), Shape::Array(F32, {64}));
  absl::StatusOr<Literal> r = BuildAndRun(b);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->physical_count(), 64);
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_GE(r->GetDouble(i), 2.0);
    EXPECT_LT(r->GetDouble(i), 3.0);
  }
}

TEST(OpSemanticsDoc, RngNormalHasTheShape) {
  XlaBuilder b("rng_normal");
  RngNormal(ConstantR0<float>(&b, 0), ConstantR0<float>(&b, 1), Shape::Array(F32, {2, 3}));
  absl::StatusOr<Literal> r = BuildAndRun(b);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(ShapeToMessageString(r->shape()), "f32[2,3]");
}

TEST(OpSemanticsDoc, UnaryAndComparisonHelpers) {
  XlaBuilder b("unary");
  XlaOp x = ConstantR1<float>(&b, {-2.5f, 0.5f, 4.0f});
  XlaOp parts = Tuple(&b, {Abs(x), Floor(x), Ceil(x), Round(x), Neg(x), Sign(x), Sqrt(Abs(x)), Square(x),
                           Reciprocal(x), Gt(x, ConstantR0<float>(&b, 0)), Ne(x, x)});
  (void)parts;
  EXPECT_BUILDS_TO(b, {},
                   "(f32[3], f32[3], f32[3], f32[3], f32[3], f32[3], f32[3], f32[3], f32[3], pred[3], pred[3]) "
                   "({2.5, 0.5, 4}, {-3, 0, 4}, {-2, 1, 4}, {-3, 1, 4}, {2.5, -0.5, -4}, {-1, 1, 1},"
                   " {1.58113885, 0.707106769, 2}, {6.25, 0.25, 16}, {-0.4, 2, 0.25}, {0, 1, 1}, {0, 0, 0})");
}

}  // namespace
}  // namespace hlo::client
