// What the LAPACK custom-call kernels (custom_call_lapack*.cc) share: the
// element type a target's name promises, operands and results relaid to
// LAPACK's layout, the typed-FFI character attributes, the batch geometry.
//
// JAX's CPU lowering asks XLA for every matrix operand and result in the
// layout {rank-2, rank-1, rank-3, ..., 0}: each matrix column-major, the
// leading (batch) dimensions major. The kernels here work in that layout
// whatever the literals' layouts are, and hand results back in the layouts
// the instruction declares.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "backend_cpu/ffi_attributes.h"
#include "backend_cpu/op_eval.h"

namespace hlo::cpu {

// minor_to_major {rank-2, rank-1, rank-3, ..., 0}; row-major below rank 2.
Layout LapackLayout(int64_t rank);

// A batch of matrices: the product of the leading dimensions, then rows and
// columns (each fits LAPACK's 32-bit int).
struct MatrixBatch {
  int64_t batch = 0;
  int rows = 0;
  int cols = 0;
  std::vector<int64_t> batch_dims;
  int64_t size() const { return static_cast<int64_t>(rows) * cols; }
};

class LapackCall {
 public:
  // Checks `instr`'s target (lapack_<s|d|c|z>..._ffi, blas_<s|d|c|z>trsm_ffi)
  // against operand 0's
  // element type, that there are `min_operands`..`max_operands` array
  // operands, and that the result is a tuple of at least `results` arrays
  // (or one array when `results` is 1). Results after the first `results`
  // (the workspace buffers of older jaxlib versions) are left zero.
  // Operand 0 must be of that type, and when bit 0 of `matrix_operands` is
  // set a batch of matrices (a()).
  // Bit i of `matrix_operands` / `matrix_results` marks operand / result i
  // as a batch of matrices (column-major); the others (pivots, tau,
  // eigenvalues, info) are row-major like their JAX layouts.
  static absl::StatusOr<LapackCall> Begin(const Instruction& instr,
                                          absl::Span<const Literal* const> ops, int min_operands,
                                          int max_operands, int results, uint32_t matrix_operands,
                                          uint32_t matrix_results);

  const Instruction& instr() const { return *instr_; }
  const std::string& target() const { return target_; }
  PrimitiveType type() const { return type_; }
  // F32 for f32/c64, F64 for f64/c128.
  PrimitiveType real_type() const;
  int operand_count() const { return static_cast<int>(operands_.size()); }
  // Operand 0's matrices.
  const MatrixBatch& a() const { return a_; }
  // Operand i in LapackLayout if a matrix, else row-major.
  const Literal& operand(int i) const { return operands_[i]; }
  // Result i: zero-filled, the declared shape in LapackLayout if a matrix,
  // else row-major.
  Literal& result(int i) { return results_[i]; }

  // Errors naming the instruction and the target.
  absl::Status Error(absl::string_view message) const;
  absl::Status Unimplemented(absl::string_view what) const;

  // Operand i's matrices (rank >= 2, element type type()).
  absl::StatusOr<MatrixBatch> OperandMatrices(int i, absl::string_view what) const;
  // Checks result i is `t[batch_dims..., tail...]`.
  absl::Status CheckResult(int i, absl::string_view what, PrimitiveType t,
                           absl::Span<const int64_t> batch_dims,
                           absl::Span<const int64_t> tail) const;
  // Result `r` as a copy of operand `i` (LAPACK overwrites that input in
  // place; JAX aliases the two), after checking their shapes agree.
  absl::Status CopyOperandToResult(int i, int r);

  // A LAPACK CHARACTER option passed as a ui8 attribute: must be one of
  // `allowed`. When backend_config holds no attributes at all (dumps printed
  // without it), `fallback` is used: the value JAX's lowering always passes
  // (docs/semantics.md); fallback 0 makes the attribute required.
  absl::StatusOr<char> CharAttr(absl::string_view name, absl::string_view allowed, char fallback);

  // An integer attribute (`name = 1 : i32`), `fallback` when backend_config
  // holds no attributes at all; without a fallback it is required.
  absl::StatusOr<int64_t> IntAttr(absl::string_view name, std::optional<int64_t> fallback);

  // The results in the instruction's layouts.
  Literal Finish() &&;

 private:
  const Instruction* instr_ = nullptr;
  std::string target_;
  PrimitiveType type_ = PrimitiveType::kInvalid;
  std::vector<Literal> operands_;
  std::vector<Literal> results_;
  MatrixBatch a_;
  bool tuple_ = true;
  FfiAttributes attrs_;
  bool attrs_missing_ = false;
};

// Whether operand 0 is complex (c64/c128): the result lists of geev and
// gees depend on it (one complex eigenvalue array or real and imaginary
// parts).
inline bool ComplexOperand0(absl::Span<const Literal* const> ops) {
  const PrimitiveType t = ops.empty() ? PrimitiveType::kInvalid : ops[0]->shape().element_type();
  return t == PrimitiveType::C64 || t == PrimitiveType::C128;
}

template <typename T>
T* DataOf(Literal& lit) {
  return reinterpret_cast<T*>(lit.data());
}
template <typename T>
const T* DataOf(const Literal& lit) {
  return reinterpret_cast<const T*>(lit.data());
}

// The real type of T (float for std::complex<float>).
template <typename T>
using RealOf = decltype(std::real(std::declval<T>()));

// Calls f(T{}) with T the C++ type of f32/f64/c64/c128.
template <typename F>
auto DispatchLapackType(PrimitiveType t, F&& f) {
  switch (t) {
    case PrimitiveType::F64: return f(double{});
    case PrimitiveType::C64: return f(std::complex<float>{});
    case PrimitiveType::C128: return f(std::complex<double>{});
    default: return f(float{});
  }
}

// Returns from the enclosing function when `expr` (an absl::Status) fails.
#define HLO_LAPACK_RETURN_IF_ERROR(expr)      \
  do {                                        \
    if (absl::Status st_ = (expr); !st_.ok()) \
      return st_;                             \
  } while (0)

// LAPACK's optimal workspace size from a query's work[0].
template <typename T>
int WorkspaceSize(T queried) {
  return std::max(1, static_cast<int>(std::real(queried)));
}

}  // namespace hlo::cpu
