// Golden examples of the operation-semantics document (seeds) computed on
// one device: every worked example that gives its inputs and its result
// as values (the inventory is the table in docs/builder.md). Inputs are
// parameters fed by hlo-run --input with the document's values; the
// expected literal is the document's result.
#include <limits>

#include "client/golden_examples.h"
#include "client/ops.h"

namespace hlo::client {
namespace {

constexpr PrimitiveType F32 = PrimitiveType::F32;
constexpr PrimitiveType S32 = PrimitiveType::S32;

XlaComputation ScalarComputation(XlaBuilder* b, const std::string& name, PrimitiveType t,
                                 XlaOp (*op)(XlaOp, XlaOp, absl::Span<const int64_t>)) {
  std::unique_ptr<XlaBuilder> sub = b->CreateSubBuilder(name);
  XlaOp x = Parameter(sub.get(), 0, Shape::Scalar(t), "x");
  op(x, Parameter(sub.get(), 1, Shape::Scalar(t), "y"), {});
  absl::StatusOr<XlaComputation> c = sub->Build();
  return c.ok() ? *c : XlaComputation();
}

// The 4x2x3 array `v` of the Collapse and Reshape examples.
constexpr char kV[] =
    "f32[4,2,3] {{{10, 11, 12}, {15, 16, 17}}, {{20, 21, 22}, {25, 26, 27}}, {{30, 31, 32}, {35, 36, 37}},"
    " {{40, 41, 42}, {45, 46, 47}}}";
XlaOp V(XlaBuilder* b) { return Parameter(b, 0, Shape::Array(F32, {4, 2, 3}), "v"); }

// The 4x2x3 array of the Reduce examples: 1..6 replicated across dimension 0.
constexpr char kReduceInput[] =
    "f32[4,2,3] {{{1, 2, 3}, {4, 5, 6}}, {{1, 2, 3}, {4, 5, 6}}, {{1, 2, 3}, {4, 5, 6}}, {{1, 2, 3}, {4, 5, 6}}}";

// The 4x3 array `b` of the 2-dimensional Slice and DynamicSlice examples.
constexpr char kB[] = "f32[4,3] {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}";

void Broadcast2x3(XlaBuilder* b) { Broadcast(Parameter(b, 0, Shape::Scalar(F32), "operand"), {2, 3}); }

void Collapse012(XlaBuilder* b) { Collapse(V(b), {0, 1, 2}); }
void Collapse01(XlaBuilder* b) { Collapse(V(b), {0, 1}); }
void Collapse12(XlaBuilder* b) { Collapse(V(b), {1, 2}); }

void Concat1d(XlaBuilder* b) {
  ConcatInDim(b,
              {Parameter(b, 0, Shape::Array(S32, {2}), "x"), Parameter(b, 1, Shape::Array(S32, {2}), "y"),
               Parameter(b, 2, Shape::Array(S32, {2}), "z")},
              0);
}

void Concat2d(XlaBuilder* b) {
  ConcatInDim(b, {Parameter(b, 0, Shape::Array(S32, {3, 2}), "a"), Parameter(b, 1, Shape::Array(S32, {1, 2}), "b")},
              0);
}

void ConvertS32ToF32(XlaBuilder* b) { ConvertElementType(Parameter(b, 0, Shape::Array(S32, {3}), "a"), F32); }

void DotGeneralContracting(XlaBuilder* b) {
  XlaOp lhs = Parameter(b, 0, Shape::Array(F32, {2, 3}), "lhs");
  XlaOp rhs = Parameter(b, 1, Shape::Array(F32, {2, 3}), "rhs");
  DotDimensionNumbers d;
  d.lhs_contracting_dimensions = {1};
  d.rhs_contracting_dimensions = {1};
  DotGeneral(lhs, rhs, d);
}

void DotGeneralBatch(XlaBuilder* b) {
  XlaOp lhs = Parameter(b, 0, Shape::Array(F32, {2, 2, 2}), "lhs");
  XlaOp rhs = Parameter(b, 1, Shape::Array(F32, {2, 2, 2}), "rhs");
  DotDimensionNumbers d;
  d.lhs_contracting_dimensions = {2};
  d.rhs_contracting_dimensions = {1};
  d.lhs_batch_dimensions = {0};
  d.rhs_batch_dimensions = {0};
  DotGeneral(lhs, rhs, d);
}

void DynamicSlice1d(XlaBuilder* b) {
  DynamicSlice(Parameter(b, 0, Shape::Array(F32, {5}), "a"), {ConstantR0<int32_t>(b, 2)}, {2});
}

void DynamicSlice2d(XlaBuilder* b) {
  DynamicSlice(Parameter(b, 0, Shape::Array(F32, {4, 3}), "b"), {ConstantR0<int32_t>(b, 2), ConstantR0<int32_t>(b, 1)},
               {2, 2});
}

void DynamicUpdateSlice1d(XlaBuilder* b) {
  XlaOp a = Parameter(b, 0, Shape::Array(F32, {5}), "a");
  XlaOp u = Parameter(b, 1, Shape::Array(F32, {2}), "u");
  DynamicUpdateSlice(a, u, {ConstantR0<int32_t>(b, 2)});
}

void DynamicUpdateSlice2d(XlaBuilder* b) {
  XlaOp m = Parameter(b, 0, Shape::Array(F32, {4, 3}), "b");
  XlaOp u = Parameter(b, 1, Shape::Array(F32, {3, 2}), "u");
  XlaOp one = ConstantR0<int32_t>(b, 1);
  DynamicUpdateSlice(m, u, {one, one});
}

void ClampScalarBounds(XlaBuilder* b) {
  XlaOp operand = Parameter(b, 0, Shape::Array(S32, {3}), "operand");
  XlaOp lo = ConstantR0<int32_t>(b, 0);
  Clamp(lo, operand, ConstantR0<int32_t>(b, 6));
}

// The tuple t = (v, s) of the Tuple and GetTupleElement examples.
XlaOp TupleVS(XlaBuilder* b) {
  return Tuple(b, {Parameter(b, 0, Shape::Array(F32, {10}), "v"), Parameter(b, 1, Shape::Scalar(S32), "s")});
}
void TupleOfVS(XlaBuilder* b) { TupleVS(b); }
void GetTupleElementOne(XlaBuilder* b) { GetTupleElement(TupleVS(b), 1); }

// The document's dynamic sizes: reductions after SetDimensionSize ignore
// the elements past the runtime size (5, then 6, of v's 10).
void SetDimensionSizeReductions(XlaBuilder* b) {
  XlaComputation add = ScalarComputation(b, "add", F32, Add);
  XlaComputation mul = ScalarComputation(b, "multiply", F32, Mul);
  XlaOp v = Parameter(b, 0, Shape::Array(F32, {10}), "v");
  XlaOp padded_v_five = SetDimensionSize(v, ConstantR0<int32_t>(b, 5), 0);
  XlaOp padded_v_six = SetDimensionSize(v, ConstantR0<int32_t>(b, 6), 0);
  Tuple(b, {Reduce(padded_v_five, ConstantR0<float>(b, 0), add, {0}),
            Reduce(padded_v_five, ConstantR0<float>(b, 1), mul, {0}),
            Reduce(padded_v_six, ConstantR0<float>(b, 0), add, {0})});
}

void IotaDim0(XlaBuilder* b) { Iota(b, Shape::Array(S32, {4, 8}), 0); }
void IotaDim1(XlaBuilder* b) { Iota(b, Shape::Array(S32, {4, 8}), 1); }

void ReduceAdd(XlaBuilder* b, std::vector<int64_t> dims) {
  XlaComputation add = ScalarComputation(b, "add", F32, Add);
  Reduce(Parameter(b, 0, Shape::Array(F32, {4, 2, 3}), "operand"), ConstantR0<float>(b, 0), add, dims);
}
void ReduceDim0(XlaBuilder* b) { ReduceAdd(b, {0}); }
void ReduceDim2(XlaBuilder* b) { ReduceAdd(b, {2}); }
void ReduceDims01(XlaBuilder* b) { ReduceAdd(b, {0, 1}); }
void ReduceDims012(XlaBuilder* b) { ReduceAdd(b, {0, 1, 2}); }

// The document's pooling example: max over 2x3 windows with stride 2x3.
// Its input values are in a figure; ours are 1..24.
void MaxPool2x3(XlaBuilder* b) {
  std::unique_ptr<XlaBuilder> sub = b->CreateSubBuilder("max");
  XlaOp y = Parameter(sub.get(), 0, Shape::Scalar(F32), "y");
  Max(y, Parameter(sub.get(), 1, Shape::Scalar(F32), "x"));
  absl::StatusOr<XlaComputation> max = sub->Build();
  if (!max.ok()) return;
  XlaOp input = Parameter(b, 0, Shape::Array(F32, {4, 6}), "input");
  ReduceWindow(input, MinValue(b, F32), *max, {2, 3}, {2, 3}, Padding::kValid);
}

// Minimum over windows of 3 with stride 2; the initial value is MAX_FLOAT.
void ReduceWindowMin(XlaBuilder* b, Padding padding) {
  XlaComputation min = ScalarComputation(b, "min", F32, Min);
  ReduceWindow(Parameter(b, 0, Shape::Array(F32, {5}), "input"),
               ConstantR0<float>(b, std::numeric_limits<float>::max()), min, {3}, {2}, padding);
}
void ReduceWindowMinValid(XlaBuilder* b) { ReduceWindowMin(b, Padding::kValid); }
void ReduceWindowMinSame(XlaBuilder* b) { ReduceWindowMin(b, Padding::kSame); }

void ReshapeV012To24(XlaBuilder* b) { Reshape(V(b), {0, 1, 2}, {24}); }
void ReshapeV012To83(XlaBuilder* b) { Reshape(V(b), {0, 1, 2}, {8, 3}); }
void ReshapeV120To24(XlaBuilder* b) { Reshape(V(b), {1, 2, 0}, {24}); }
void ReshapeV120To83(XlaBuilder* b) { Reshape(V(b), {1, 2, 0}, {8, 3}); }
void ReshapeV120To262(XlaBuilder* b) { Reshape(V(b), {1, 2, 0}, {2, 6, 2}); }
void ReshapeToScalar(XlaBuilder* b) { Reshape(Parameter(b, 0, Shape::Array(F32, {1, 1}), "x"), {0, 1}, {}); }
void ReshapeFromScalar(XlaBuilder* b) { Reshape(Parameter(b, 0, Shape::Scalar(F32), "x"), {}, {1, 1}); }

void SelectArrayPred(XlaBuilder* b) {
  XlaOp pred = Parameter(b, 0, Shape::Array(PrimitiveType::PRED, {4}), "pred");
  Select(pred, Parameter(b, 1, Shape::Array(S32, {4}), "v1"), Parameter(b, 2, Shape::Array(S32, {4}), "v2"));
}

void SelectScalarPred(XlaBuilder* b) {
  XlaOp pred = Parameter(b, 0, Shape::Scalar(PrimitiveType::PRED), "pred");
  Select(pred, Parameter(b, 1, Shape::Array(S32, {4}), "v1"), Parameter(b, 2, Shape::Array(S32, {4}), "v2"));
}

void Slice1d(XlaBuilder* b) { Slice(Parameter(b, 0, Shape::Array(F32, {5}), "a"), {2}, {4}, {1}); }
void Slice2d(XlaBuilder* b) { Slice(Parameter(b, 0, Shape::Array(F32, {4, 3}), "b"), {2, 1}, {4, 3}, {1, 1}); }

// Three operands sorted together by a less-than on operand0 alone.
void SortThreeOperands(XlaBuilder* b) {
  std::unique_ptr<XlaBuilder> cmp = b->CreateSubBuilder("less_than_operand0");
  std::vector<XlaOp> p;
  const PrimitiveType types[] = {S32, S32, S32, S32, F32, F32};
  for (int64_t i = 0; i < 6; ++i)
    p.push_back(Parameter(cmp.get(), i, Shape::Scalar(types[i]), "p" + std::to_string(i)));
  Lt(p[0], p[1]);
  absl::StatusOr<XlaComputation> less = cmp->Build();
  if (!less.ok()) return;
  Sort({Parameter(b, 0, Shape::Array(S32, {2}), "operand0"), Parameter(b, 1, Shape::Array(S32, {2}), "operand1"),
        Parameter(b, 2, Shape::Array(F32, {2}), "operand2")},
       *less);
}

// The document's training-loop pseudocode: (iteration, vector) counts to
// 1000, adding a constant vector each time. It gives no values for the
// constant vector; ours is 1..10, so the vector ends at 1000 times it.
void WhileThousandIterations(XlaBuilder* b) {
  const Shape state = Shape::Tuple({Shape::Scalar(S32), Shape::Array(F32, {10})});
  std::unique_ptr<XlaBuilder> cb = b->CreateSubBuilder("condition");
  Lt(GetTupleElement(Parameter(cb.get(), 0, state, "result"), 0), ConstantR0<int32_t>(cb.get(), 1000));
  absl::StatusOr<XlaComputation> cond = cb->Build();
  std::unique_ptr<XlaBuilder> bb = b->CreateSubBuilder("body");
  XlaOp result = Parameter(bb.get(), 0, state, "result");
  XlaOp constant_vector = ConstantR1<float>(bb.get(), {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  Tuple(bb.get(), {Add(GetTupleElement(result, 0), ConstantR0<int32_t>(bb.get(), 1)),
                   Add(GetTupleElement(result, 1), constant_vector)});
  absl::StatusOr<XlaComputation> body = bb->Build();
  if (!cond.ok() || !body.ok()) return;
  While(*cond, *body, Tuple(b, {ConstantR0<int32_t>(b, 0), Broadcast(ConstantR0<float>(b, 0), {10})}));
}

}  // namespace

std::vector<GoldenExample> OpGoldenExamples() {
  const std::string v012_83 =
      "f32[8,3] {{10, 11, 12}, {15, 16, 17}, {20, 21, 22}, {25, 26, 27}, {30, 31, 32}, {35, 36, 37},"
      " {40, 41, 42}, {45, 46, 47}}";
  return {
      {"broadcast_scalar_2x3", "operation semantics, Broadcast: the f32 scalar 2.0f with broadcast_sizes {2, 3}",
       Broadcast2x3, {"f32[] 2"}, "f32[2,3] {{2, 2, 2}, {2, 2, 2}}"},
      {"clamp_scalar_bounds", "operation semantics, Clamp: scalar min and max", ClampScalarBounds,
       {"s32[3] {-1, 5, 9}"}, "s32[3] {0, 5, 6}"},
      {"collapse_012", "operation semantics, Collapse: v012 = Collapse(v, {0,1,2})", Collapse012, {kV},
       "f32[24] {10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27, 30, 31, 32, 35, 36, 37, 40, 41, 42, 45, 46, 47}"},
      // The document lists v01 as 4x6 and v12 as 8x3, against its own
      // definition (dimensions replaced in place by their product) and
      // XLA's builder: {0,1} of 4x2x3 is 8x3 (its v12 values), {1,2} is 4x6
      // (its v01 values). docs/builder.md, "Choices".
      {"collapse_01", "operation semantics, Collapse: v01 = Collapse(v, {0,1}), the values listed for v12",
       Collapse01, {kV}, v012_83},
      {"collapse_12", "operation semantics, Collapse: v12 = Collapse(v, {1,2}), the values listed for v01",
       Collapse12, {kV},
       "f32[4,6] {{10, 11, 12, 15, 16, 17}, {20, 21, 22, 25, 26, 27}, {30, 31, 32, 35, 36, 37},"
       " {40, 41, 42, 45, 46, 47}}"},
      {"concat_1d", "operation semantics, ConcatInDim: Concat({{2, 3}, {4, 5}, {6, 7}}, 0)", Concat1d,
       {"s32[2] {2, 3}", "s32[2] {4, 5}", "s32[2] {6, 7}"}, "s32[6] {2, 3, 4, 5, 6, 7}"},
      {"concat_2d", "operation semantics, ConcatInDim: Concat({a, b}, 0) of a 3x2 and a 1x2", Concat2d,
       {"s32[3,2] {{1, 2}, {3, 4}, {5, 6}}", "s32[1,2] {{7, 8}}"}, "s32[4,2] {{1, 2}, {3, 4}, {5, 6}, {7, 8}}"},
      {"convert_s32_to_f32", "operation semantics, ConvertElementType: s32[3] {0, 1, 2} to f32", ConvertS32ToF32,
       {"s32[3] {0, 1, 2}"}, "f32[3] {0, 1, 2}"},
      {"dot_general_contracting", "operation semantics, DotGeneral: contracting dimension example",
       DotGeneralContracting, {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "f32[2,3] {{1, 1, 1}, {2, 2, 2}}"},
       "f32[2,2] {{6, 12}, {15, 30}}"},
      {"dot_general_batch", "operation semantics, DotGeneral: batch dimension example",
       DotGeneralBatch,
       {"f32[2,2,2] {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}", "f32[2,2,2] {{{1, 0}, {0, 1}}, {{1, 0}, {0, 1}}}"},
       "f32[2,2,2] {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}"},
      {"dynamic_slice_1d", "operation semantics, DynamicSlice: 1-dimensional example", DynamicSlice1d,
       {"f32[5] {0, 1, 2, 3, 4}"}, "f32[2] {2, 3}"},
      {"dynamic_slice_2d", "operation semantics, DynamicSlice: 2-dimensional example", DynamicSlice2d, {kB},
       "f32[2,2] {{7, 8}, {10, 11}}"},
      {"dynamic_update_slice_1d", "operation semantics, DynamicUpdateSlice: 1-dimensional example",
       DynamicUpdateSlice1d, {"f32[5] {0, 1, 2, 3, 4}", "f32[2] {5, 6}"}, "f32[5] {0, 1, 5, 6, 4}"},
      {"dynamic_update_slice_2d", "operation semantics, DynamicUpdateSlice: 2-dimensional example",
       DynamicUpdateSlice2d, {kB, "f32[3,2] {{12, 13}, {14, 15}, {16, 17}}"},
       "f32[4,3] {{0, 1, 2}, {3, 12, 13}, {6, 14, 15}, {9, 16, 17}}"},
      {"get_tuple_element", "operation semantics, GetTupleElement: element 1 of tuple(v, s) is s", GetTupleElementOne,
       {"f32[10] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}", "s32[] 5"}, "s32[] 5"},
      {"iota_dim0", "operation semantics, Iota: Iota(s32[4, 8], 0)", IotaDim0, {},
       "s32[4,8] {{0, 0, 0, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1, 1, 1}, {2, 2, 2, 2, 2, 2, 2, 2},"
       " {3, 3, 3, 3, 3, 3, 3, 3}}"},
      {"iota_dim1", "operation semantics, Iota: Iota(s32[4, 8], 1)", IotaDim1, {},
       "s32[4,8] {{0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7},"
       " {0, 1, 2, 3, 4, 5, 6, 7}}"},
      {"reduce_dim0", "operation semantics, Reduce: add-reducing dimension 0 of the 4x2x3 array", ReduceDim0,
       {kReduceInput}, "f32[2,3] {{4, 8, 12}, {16, 20, 24}}"},
      {"reduce_dim2", "operation semantics, Reduce: add-reducing dimension 2 of the 4x2x3 array", ReduceDim2,
       {kReduceInput}, "f32[4,2] {{6, 15}, {6, 15}, {6, 15}, {6, 15}}"},
      {"reduce_dims01", "operation semantics, Reduce: add-reducing dimensions 0 and 1 of the 4x2x3 array",
       ReduceDims01, {kReduceInput}, "f32[3] {20, 28, 36}"},
      {"reduce_dims012", "operation semantics, Reduce: add-reducing all dimensions of the 4x2x3 array",
       ReduceDims012, {kReduceInput}, "f32[] 84"},
      {"reduce_window_2x3", "operation semantics, ReduceWindow: max over 2x3 windows of a 4x6 input", MaxPool2x3,
       {"f32[4,6] {{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}, {13, 14, 15, 16, 17, 18},"
        " {19, 20, 21, 22, 23, 24}}"},
       "f32[2,2] {{9, 12}, {21, 24}}"},
      {"reduce_window_min_valid", "operation semantics, ReduceWindow: minimum, window 3, stride 2, kValid",
       ReduceWindowMinValid, {"f32[5] {10000, 1000, 100, 10, 1}"}, "f32[2] {100, 1}"},
      {"reduce_window_min_same", "operation semantics, ReduceWindow: minimum, window 3, stride 2, kSame",
       ReduceWindowMinSame, {"f32[5] {10000, 1000, 100, 10, 1}"}, "f32[3] {1000, 10, 1}"},
      {"reshape_v012_24", "operation semantics, Reshape: in-order collapse v012_24 = Reshape(v, {0,1,2}, {24})",
       ReshapeV012To24, {kV},
       "f32[24] {10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27, 30, 31, 32, 35, 36, 37, 40, 41, 42, 45, 46, 47}"},
      {"reshape_v012_83", "operation semantics, Reshape: in-order collapse v012_83 = Reshape(v, {0,1,2}, {8,3})",
       ReshapeV012To83, {kV}, v012_83},
      {"reshape_v021_24", "operation semantics, Reshape: out-of-order collapse v021_24 = Reshape(v, {1,2,0}, {24})",
       ReshapeV120To24, {kV},
       "f32[24] {10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42, 15, 25, 35, 45, 16, 26, 36, 46, 17, 27, 37, 47}"},
      {"reshape_v021_83", "operation semantics, Reshape: out-of-order collapse v021_83 = Reshape(v, {1,2,0}, {8,3})",
       ReshapeV120To83, {kV},
       "f32[8,3] {{10, 20, 30}, {40, 11, 21}, {31, 41, 12}, {22, 32, 42}, {15, 25, 35}, {45, 16, 26},"
       " {36, 46, 17}, {27, 37, 47}}"},
      {"reshape_v021_262",
       "operation semantics, Reshape: out-of-order collapse v021_262 = Reshape(v, {1,2,0}, {2,6,2})",
       ReshapeV120To262, {kV},
       "f32[2,6,2] {{{10, 20}, {30, 40}, {11, 21}, {31, 41}, {12, 22}, {32, 42}},"
       " {{15, 25}, {35, 45}, {16, 26}, {36, 46}, {17, 27}, {37, 47}}}"},
      {"reshape_to_scalar", "operation semantics, Reshape: Reshape(f32[1x1] {{5}}, {0,1}, {}) == 5",
       ReshapeToScalar, {"f32[1,1] {{5}}"}, "f32[] 5"},
      {"reshape_from_scalar", "operation semantics, Reshape: Reshape(5, {}, {1,1}) == f32[1x1] {{5}}",
       ReshapeFromScalar, {"f32[] 5"}, "f32[1,1] {{5}}"},
      {"select_array_pred", "operation semantics, Select: example with non-scalar pred", SelectArrayPred,
       {"pred[4] {1, 0, 0, 1}", "s32[4] {1, 2, 3, 4}", "s32[4] {100, 200, 300, 400}"}, "s32[4] {1, 200, 300, 4}"},
      {"select_scalar_pred", "operation semantics, Select: example with scalar pred", SelectScalarPred,
       {"pred[] 1", "s32[4] {1, 2, 3, 4}", "s32[4] {100, 200, 300, 400}"}, "s32[4] {1, 2, 3, 4}"},
      {"slice_1d", "operation semantics, Slice: 1-dimensional example", Slice1d, {"f32[5] {0, 1, 2, 3, 4}"},
       "f32[2] {2, 3}"},
      {"slice_2d", "operation semantics, Slice: 2-dimensional example", Slice2d, {kB}, "f32[2,2] {{7, 8}, {10, 11}}"},
      {"sort_three_operands", "operation semantics, Sort: three operands compared by operand0 with less-than",
       SortThreeOperands, {"s32[2] {3, 1}", "s32[2] {42, 50}", "f32[2] {-3, 1.1}"},
       "(s32[2] {1, 3}, s32[2] {50, 42}, f32[2] {1.1, -3})"},
      {"set_dimension_size_reductions",
       "operation semantics, SetDimensionSize: sum and product of the first 5, sum of the first 6 of 1..10",
       SetDimensionSizeReductions, {"f32[10] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}"}, "(f32[] 15, f32[] 120, f32[] 21)"},
      {"tuple_v_s", "operation semantics, Tuple: t = tuple(v, s)", TupleOfVS,
       {"f32[10] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}", "s32[] 5"}, "(f32[10] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, s32[] 5)"},
      {"while_1000_iterations",
       "operation semantics, While: 1000 iterations adding a constant vector (ours: 1..10) to the accumulator",
       WhileThousandIterations, {},
       "(s32[] 1000, f32[10] {1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000})"},
  };
}

}  // namespace hlo::client
