#include "client/golden_examples.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "client/ops.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"

namespace hlo::client {
namespace {

constexpr PrimitiveType F32 = PrimitiveType::F32;

void MatrixPlusVector(XlaBuilder* b) {
  XlaOp x = Parameter(b, 0, Shape::Array(F32, {2, 3}), "x");
  XlaOp v = Parameter(b, 1, Shape::Array(F32, {3}), "v");
  Add(x, v, {1});
}

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

void ScalarTimesMatrix(XlaBuilder* b) {
  XlaOp x = Parameter(b, 0, Shape::Array(F32, {2, 3}), "x");
  Mul(ConstantR0<float>(b, 7), x);
}

void MaxPool2x3(XlaBuilder* b) {
  std::unique_ptr<XlaBuilder> sub = b->CreateSubBuilder("max");
  XlaOp y = Parameter(sub.get(), 0, Shape::Scalar(F32), "y");
  Max(y, Parameter(sub.get(), 1, Shape::Scalar(F32), "x"));
  absl::StatusOr<XlaComputation> max = sub->Build();
  if (!max.ok()) return;
  XlaOp input = Parameter(b, 0, Shape::Array(F32, {4, 6}), "input");
  ReduceWindow(input, MinValue(b, F32), *max, {2, 3}, {2, 3}, Padding::kValid);
}

void BatchDot(XlaBuilder* b) {
  XlaOp lhs = Parameter(b, 0, Shape::Array(F32, {2, 2, 2}), "lhs");
  XlaOp rhs = Parameter(b, 1, Shape::Array(F32, {2, 2, 2}), "rhs");
  DotDimensionNumbers d;
  d.lhs_contracting_dimensions = {2};
  d.rhs_contracting_dimensions = {1};
  d.lhs_batch_dimensions = {0};
  d.rhs_batch_dimensions = {0};
  DotGeneral(lhs, rhs, d);
}

void DynamicUpdateSlice2d(XlaBuilder* b) {
  XlaOp m = Parameter(b, 0, Shape::Array(F32, {4, 3}), "b");
  XlaOp u = Parameter(b, 1, Shape::Array(F32, {3, 2}), "u");
  XlaOp one = ConstantR0<int32_t>(b, 1);
  DynamicUpdateSlice(m, u, {one, one});
}

void ClampScalarBounds(XlaBuilder* b) {
  XlaOp operand = Parameter(b, 0, Shape::Array(PrimitiveType::S32, {3}), "operand");
  XlaOp lo = ConstantR0<int32_t>(b, 0);
  Clamp(lo, operand, ConstantR0<int32_t>(b, 6));
}

}  // namespace

const std::vector<GoldenExample>& GoldenExamples() {
  static auto* const kExamples = new std::vector<GoldenExample>{
      {"broadcast_matrix_vector", "broadcasting: matrix (2,3) + vector (3), broadcast_dimensions (1)",
       MatrixPlusVector, {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "f32[3] {7, 8, 9}"},
       "f32[2,3] {{8, 10, 12}, {11, 13, 15}}"},
      {"broadcast_in_dim_then_degenerate",
       "broadcasting: |1 2 3 4| + [5 6] (a 1x2 matrix), broadcast_dimensions (0)", VectorPlusDegenerateMatrix,
       {"f32[4] {1, 2, 3, 4}", "f32[1,2] {{5, 6}}"}, "f32[4,2] {{6, 7}, {7, 8}, {8, 9}, {9, 10}}"},
      {"broadcast_outer", "broadcasting: (2,1) and (1,3) broadcast to (2,3), an outer operation", OuterSum,
       {"f32[2,1] {{10}, {20}}", "f32[1,3] {{1, 2, 3}}"}, "f32[2,3] {{11, 12, 13}, {21, 22, 23}}"},
      {"broadcast_scalar", "broadcasting: a scalar with a matrix needs no broadcast_dimensions",
       ScalarTimesMatrix, {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}"}, "f32[2,3] {{7, 14, 21}, {28, 35, 42}}"},
      {"reduce_window_2x3", "operation semantics, ReduceWindow: max over 2x3 windows of a 4x6 input",
       MaxPool2x3,
       {"f32[4,6] {{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}, {13, 14, 15, 16, 17, 18},"
        " {19, 20, 21, 22, 23, 24}}"},
       "f32[2,2] {{9, 12}, {21, 24}}"},
      {"dot_general_batch", "operation semantics, DotGeneral: batch dimension example", BatchDot,
       {"f32[2,2,2] {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}", "f32[2,2,2] {{{1, 0}, {0, 1}}, {{1, 0}, {0, 1}}}"},
       "f32[2,2,2] {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}"},
      {"dynamic_update_slice_2d", "operation semantics, DynamicUpdateSlice: 2-dimensional example",
       DynamicUpdateSlice2d,
       {"f32[4,3] {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}", "f32[3,2] {{12, 13}, {14, 15}, {16, 17}}"},
       "f32[4,3] {{0, 1, 2}, {3, 12, 13}, {6, 14, 15}, {9, 16, 17}}"},
      {"clamp_scalar_bounds", "operation semantics, Clamp: scalar min and max", ClampScalarBounds,
       {"s32[3] {-1, 5, 9}"}, "s32[3] {0, 5, 6}"},
  };
  static const bool kAppended = [] {
    for (GoldenExample& e : DeviceGoldenExamples()) kExamples->push_back(std::move(e));
    return true;
  }();
  (void)kAppended;
  return *kExamples;
}

absl::StatusOr<std::string> GoldenFileText(const GoldenExample& example) {
  XlaBuilder b(example.name);
  example.build(&b);
  absl::StatusOr<std::shared_ptr<Module>> m = b.BuildModule();
  if (!m.ok()) return m.status();
  absl::Status verified = VerifyModule(**m);
  if (!verified.ok()) return verified;
  absl::StatusOr<Literal> expected = ParseLiteral(example.expected);
  if (!expected.ok()) return expected.status();
  const std::string module_text = PrintModule(**m);
  std::string root_line;
  // The entry's root is the last ROOT line (callees print first).
  for (absl::string_view line : absl::StrSplit(module_text, '\n'))
    if (absl::StartsWith(line, "  ROOT ")) root_line = std::string(line.substr(2));
  // FileCheck reads "{{" as the start of a regex: spell it as one.
  root_line = absl::StrReplaceAll(root_line, {{"{{", "{{[{][{]}}"}});
  std::string out = absl::StrCat(
      "// A worked example of the seeds (", example.source, "),\n",
      "// built with the builder: client/golden_examples.cc; regenerate with\n",
      "// `build/client/hlo-builder-goldens testdata/builder`.\n",
      "// hlo-opt verifies it; hlo-run computes the document's result.\n",
      "// RUN: %hlo_opt %s | FileCheck %s --check-prefix=OPT\n", "// OPT: ", root_line, "\n", "// RUN: %hlo_run %s");
  if (example.replicas != 1) absl::StrAppend(&out, " --replicas=", example.replicas);
  for (const std::string& in : example.infeed) absl::StrAppend(&out, " --infeed='", in, "'");
  for (const std::string& in : example.inputs) absl::StrAppend(&out, " --input='", in, "'");
  absl::StrAppend(&out, " | FileCheck %s\n");
  bool first = true;
  for (absl::string_view line : absl::StrSplit(LiteralToXlaString(*expected), '\n')) {
    absl::StrAppend(&out, first ? "// CHECK: " : "// CHECK-NEXT: ", line, "\n");
    first = false;
  }
  absl::StrAppend(&out, "\n", module_text);
  return out;
}

}  // namespace hlo::client
