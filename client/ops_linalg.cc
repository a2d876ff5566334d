// Custom calls, FFT, Cholesky, triangular solve, batch norm, top-k,
// dynamic dimension sizes and random bits: each one instruction with the
// attributes of its text form.
#include "absl/strings/str_cat.h"
#include "client/ops_internal.h"
#include "ir/shape_inference.h"

namespace hlo::client {

XlaOp CustomCall(XlaBuilder* b, const std::string& call_target_name, absl::Span<const XlaOp> operands,
                 const Shape& shape, const std::string& opaque, bool has_side_effect) {
  if (call_target_name.empty()) return Fail(b, "CustomCall", "the call target name is empty");
  Attrs attrs = {{"custom_call_target", call_target_name}};
  if (has_side_effect) attrs.emplace_back("custom_call_has_side_effect", true);
  if (!opaque.empty()) attrs.emplace_back("backend_config", StringOrDict{opaque});
  Shape s = shape;
  s.FillDefaultLayoutIfMissing();
  return b->AddInstruction("CustomCall", Opcode::kCustomCall, operands, std::move(attrs), s);
}

XlaOp Fft(XlaOp operand, FftType fft_type, absl::Span<const int64_t> fft_length) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  static constexpr const char* kNames[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
  return b->AddInstruction("Fft", Opcode::kFft, {operand},
                           {{"fft_type", std::string(kNames[static_cast<int>(fft_type)])},
                            {"fft_length", IntList(fft_length)}});
}

XlaOp Cholesky(XlaOp a, bool lower) {
  XlaBuilder* b = a.builder();
  if (b == nullptr) return XlaOp();
  return b->AddInstruction("Cholesky", Opcode::kCholesky, {a}, {{"lower", lower}});
}

XlaOp TriangularSolve(XlaOp a, XlaOp b_op, bool left_side, bool lower, bool unit_diagonal,
                      TriangularSolveOptions::Transpose transpose_a) {
  XlaBuilder* b = BuilderOf({a, b_op});
  if (b == nullptr) return XlaOp();
  static constexpr const char* kNames[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
  return b->AddInstruction("TriangularSolve", Opcode::kTriangularSolve, {a, b_op},
                           {{"left_side", left_side},
                            {"lower", lower},
                            {"unit_diagonal", unit_diagonal},
                            {"transpose_a", std::string(kNames[transpose_a])}});
}

namespace {
XlaOp BatchNorm(absl::string_view op_name, Opcode opcode, absl::Span<const XlaOp> operands, float epsilon,
                int64_t feature_index) {
  XlaBuilder* b = BuilderOf(operands);
  if (b == nullptr) return XlaOp();
  return b->AddInstruction(op_name, opcode, operands,
                           {{"epsilon", static_cast<double>(epsilon)}, {"feature_index", feature_index}});
}
}  // namespace

XlaOp BatchNormTraining(XlaOp operand, XlaOp scale, XlaOp offset, float epsilon, int64_t feature_index) {
  return BatchNorm("BatchNormTraining", Opcode::kBatchNormTraining, {operand, scale, offset}, epsilon,
                   feature_index);
}

XlaOp BatchNormInference(XlaOp operand, XlaOp scale, XlaOp offset, XlaOp mean, XlaOp variance, float epsilon,
                         int64_t feature_index) {
  return BatchNorm("BatchNormInference", Opcode::kBatchNormInference, {operand, scale, offset, mean, variance},
                   epsilon, feature_index);
}

XlaOp BatchNormGrad(XlaOp operand, XlaOp scale, XlaOp batch_mean, XlaOp batch_var, XlaOp grad_output,
                    float epsilon, int64_t feature_index) {
  return BatchNorm("BatchNormGrad", Opcode::kBatchNormGrad, {operand, scale, batch_mean, batch_var, grad_output},
                   epsilon, feature_index);
}

XlaOp TopK(XlaOp operand, int64_t k, bool largest) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->AddInstruction("TopK", Opcode::kTopK, {operand}, {{"k", k}, {"largest", largest}});
}

XlaOp GetDimensionSize(XlaOp operand, int64_t dimension) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->AddInstruction("GetDimensionSize", Opcode::kGetDimensionSize, {operand},
                           {{"dimensions", IntList({dimension})}});
}

XlaOp SetDimensionSize(XlaOp operand, XlaOp val, int64_t dimension) {
  XlaBuilder* b = BuilderOf({operand, val});
  if (b == nullptr) return XlaOp();
  return b->AddInstruction("SetDimensionSize", Opcode::kSetDimensionSize, {operand, val},
                           {{"dimensions", IntList({dimension})}});
}

XlaOp RngBitGenerator(RandomAlgorithm algorithm, XlaOp initial_state, const Shape& shape) {
  XlaBuilder* b = initial_state.builder();
  if (b == nullptr || !b->CheckOperands("RngBitGenerator", {initial_state})) return XlaOp();
  static constexpr const char* kNames[] = {"rng_default", "rng_three_fry", "rng_philox"};
  if (!internal::IsArrayShape(shape))
    return Fail(b, "RngBitGenerator", absl::StrCat("the output must be an array, got ", ShapeToMessageString(shape)));
  Shape data = shape;
  data.FillDefaultLayoutIfMissing();
  return b->AddInstruction("RngBitGenerator", Opcode::kRngBitGenerator, {initial_state},
                           {{"algorithm", std::string(kNames[static_cast<int>(algorithm)])}},
                           Shape::Tuple({ShapeOf(initial_state), data}));
}

}  // namespace hlo::client
