// Golden examples of the broadcasting document (seeds): the binary ops of
// the builder with its broadcast_dimensions, lowered to explicit
// broadcast/reshape instructions. Values are the document's where it gives
// them; the outer-operation example gives shapes only (ours are small
// integers).
#include "client/golden_examples.h"
#include "client/ops.h"

namespace hlo::client {
namespace {

constexpr PrimitiveType F32 = PrimitiveType::F32;

void MatrixPlusVector(XlaBuilder* b) {
  XlaOp x = Parameter(b, 0, Shape::Array(F32, {2, 3}), "x");
  XlaOp v = Parameter(b, 1, Shape::Array(F32, {3}), "v");
  Add(x, v, {1});
}

// A 3-vector added to a 3x3 matrix along dimension `dim`. The document
// shows the broadcast vector (no matrix values): a zero matrix makes the
// sum that broadcast.
void VectorOnSquareMatrix(XlaBuilder* b, int64_t dim) {
  XlaOp x = Parameter(b, 0, Shape::Array(F32, {3, 3}), "x");
  XlaOp v = Parameter(b, 1, Shape::Array(F32, {3}), "v");
  Add(x, v, {dim});
}
void VectorAsRows(XlaBuilder* b) { VectorOnSquareMatrix(b, 1); }
void VectorAsColumns(XlaBuilder* b) { VectorOnSquareMatrix(b, 0); }

void VectorPlusDegenerateMatrix(XlaBuilder* b) {
  XlaOp v = Parameter(b, 0, Shape::Array(F32, {4}), "v");
  XlaOp m = Parameter(b, 1, Shape::Array(F32, {1, 2}), "m");
  Add(v, m, {0});
}

void OuterSum(XlaBuilder* b) {
  XlaOp col = Parameter(b, 0, Shape::Array(F32, {2, 1}), "col");
  XlaOp row = Parameter(b, 1, Shape::Array(F32, {1, 3}), "row");
  Add(col, row);
}

void MatrixPlusScalar(XlaBuilder* b) {
  XlaOp x = Parameter(b, 0, Shape::Array(F32, {2, 3}), "x");
  Add(x, ConstantR0<float>(b, 7));
}

}  // namespace

std::vector<GoldenExample> BroadcastingGoldenExamples() {
  constexpr char kZero3x3[] = "f32[3,3] {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}";
  return {
      {"broadcast_matrix_vector", "broadcasting: matrix (2,3) + vector (3), broadcast_dimensions (1)",
       MatrixPlusVector, {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "f32[3] {7, 8, 9}"},
       "f32[2,3] {{8, 10, 12}, {11, 13, 15}}"},
      {"broadcast_vector_rows", "broadcasting: vector (3) on a 3x3 matrix, broadcast dimension 1 (rows)",
       VectorAsRows, {kZero3x3, "f32[3] {7, 8, 9}"}, "f32[3,3] {{7, 8, 9}, {7, 8, 9}, {7, 8, 9}}"},
      {"broadcast_vector_columns", "broadcasting: vector (3) on a 3x3 matrix, broadcast dimension 0 (columns)",
       VectorAsColumns, {kZero3x3, "f32[3] {7, 8, 9}"}, "f32[3,3] {{7, 7, 7}, {8, 8, 8}, {9, 9, 9}}"},
      {"broadcast_in_dim_then_degenerate",
       "broadcasting: |1 2 3 4| + [5 6] (a 1x2 matrix), broadcast_dimensions (0)", VectorPlusDegenerateMatrix,
       {"f32[4] {1, 2, 3, 4}", "f32[1,2] {{5, 6}}"}, "f32[4,2] {{6, 7}, {7, 8}, {8, 9}, {9, 10}}"},
      {"broadcast_outer", "broadcasting: (2,1) and (1,3) broadcast to (2,3), an outer operation", OuterSum,
       {"f32[2,1] {{10}, {20}}", "f32[1,3] {{1, 2, 3}}"}, "f32[2,3] {{11, 12, 13}, {21, 22, 23}}"},
      {"broadcast_scalar", "broadcasting: |1 2 3; 4 5 6| + 7, a scalar needs no broadcast_dimensions",
       MatrixPlusScalar, {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}"}, "f32[2,3] {{8, 9, 10}, {11, 12, 13}}"},
  };
}

}  // namespace hlo::client
