// JAX's LAPACK custom calls, factorizations and the triangular and
// tridiagonal solves:
// lapack_?getrf_ffi, ?potrf, ?geqrf, ?geqp3, ?orgqr / ?ungqr, ?trsm, ?gtsv. Each runs the
// LAPACK routine of the same name on every matrix of the batch, exactly as
// jaxlib's CPU kernels do (same arguments, same workspace choice), so that
// results match a JAX run. The outputs are LAPACK's raw ones: JAX's lowering
// itself turns a failed `info` into NaNs with a select after the call.
// Contracts (operands, results, attributes): docs/semantics.md.
#include <algorithm>
#include <vector>

#include "backend_cpu/custom_call_lapack.h"
#include "backend_cpu/lapack_call.h"
#include "backend_cpu/lapack_fortran.h"

namespace hlo::cpu {

// (a) -> (lu, pivots s32[..., min(m,n)], info s32[...]): P A = L U with
// LAPACK's 1-based row interchanges.
absl::StatusOr<Literal> LapackGetrf(const Instruction& instr, absl::Span<const Literal* const> ops,
                                    OpContext&) {
  absl::StatusOr<LapackCall> call = LapackCall::Begin(instr, ops, 1, 1, 3, 0b1, 0b001);
  if (!call.ok()) return call.status();
  const MatrixBatch* a = &call->a();
  const int k = std::min(a->rows, a->cols);
  HLO_LAPACK_RETURN_IF_ERROR(call->CopyOperandToResult(0, 0));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(1, "pivots", PrimitiveType::S32, a->batch_dims, {k}));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(2, "info", PrimitiveType::S32, a->batch_dims, {}));
  DispatchLapackType(call->type(), [&](auto zero) {
    using T = decltype(zero);
    T* lu = DataOf<T>(call->result(0));
    int* ipiv = DataOf<int>(call->result(1));
    int* info = DataOf<int>(call->result(2));
    if (k == 0) return 0;
    for (int64_t b = 0; b < a->batch; ++b)
      lapack::getrf(a->rows, a->cols, lu + b * a->size(), a->rows, ipiv + b * k, info + b);
    return 0;
  });
  return std::move(*call).Finish();
}

// (a) -> (factor, info s32[...]), attribute uplo: the triangle of a read
// and written ('L': a = L L^H, 'U': a = U^H U); the other triangle keeps
// the input's values.
absl::StatusOr<Literal> LapackPotrf(const Instruction& instr, absl::Span<const Literal* const> ops,
                                    OpContext&) {
  absl::StatusOr<LapackCall> call = LapackCall::Begin(instr, ops, 1, 1, 2, 0b1, 0b01);
  if (!call.ok()) return call.status();
  const MatrixBatch* a = &call->a();
  if (a->rows != a->cols) return call->Error("a must be a batch of square matrices");
  absl::StatusOr<char> uplo = call->CharAttr("uplo", "LU", 'L');
  if (!uplo.ok()) return uplo.status();
  HLO_LAPACK_RETURN_IF_ERROR(call->CopyOperandToResult(0, 0));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(1, "info", PrimitiveType::S32, a->batch_dims, {}));
  const int n = a->rows;
  DispatchLapackType(call->type(), [&](auto zero) {
    using T = decltype(zero);
    T* m = DataOf<T>(call->result(0));
    int* info = DataOf<int>(call->result(1));
    if (n == 0) return 0;
    for (int64_t b = 0; b < a->batch; ++b) lapack::potrf(*uplo, n, m + b * a->size(), n, info + b);
    return 0;
  });
  return std::move(*call).Finish();
}

// (a) -> (householder vectors below the diagonal with R on and above it,
// tau [..., min(m,n)]).
absl::StatusOr<Literal> LapackGeqrf(const Instruction& instr, absl::Span<const Literal* const> ops,
                                    OpContext&) {
  absl::StatusOr<LapackCall> call = LapackCall::Begin(instr, ops, 1, 1, 2, 0b1, 0b01);
  if (!call.ok()) return call.status();
  const MatrixBatch* a = &call->a();
  const int k = std::min(a->rows, a->cols);
  HLO_LAPACK_RETURN_IF_ERROR(call->CopyOperandToResult(0, 0));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(1, "tau", call->type(), a->batch_dims, {k}));
  DispatchLapackType(call->type(), [&](auto zero) {
    using T = decltype(zero);
    T* qr = DataOf<T>(call->result(0));
    T* tau = DataOf<T>(call->result(1));
    if (k == 0) return 0;
    const int m = a->rows, n = a->cols;
    int info = 0;
    T query{};
    lapack::geqrf(m, n, nullptr, m, nullptr, &query, -1, &info);
    std::vector<T> work(WorkspaceSize(query));
    for (int64_t b = 0; b < a->batch; ++b)
      lapack::geqrf(m, n, qr + b * a->size(), m, tau + b * k, work.data(),
                    static_cast<int>(work.size()), &info);
    return 0;
  });
  return std::move(*call).Finish();
}

// (a [..., m, n], jpvt s32[..., n]) -> (householder vectors and R as for
// geqrf, jpvt, tau [..., min(m,n)]) with a[:, jpvt - 1] = Q R: QR with
// column pivoting. On input a nonzero jpvt[j] moves column j to the front
// (JAX passes zeros: every column free); on output jpvt[j] is the 1-based
// column of a that became column j.
absl::StatusOr<Literal> LapackGeqp3(const Instruction& instr, absl::Span<const Literal* const> ops,
                                    OpContext&) {
  absl::StatusOr<LapackCall> call = LapackCall::Begin(instr, ops, 2, 2, 3, 0b01, 0b001);
  if (!call.ok()) return call.status();
  const MatrixBatch* a = &call->a();
  const int k = std::min(a->rows, a->cols);
  const Shape& js = call->operand(1).shape();
  std::vector<int64_t> jdims = a->batch_dims;
  jdims.push_back(a->cols);
  if (js.element_type() != PrimitiveType::S32 || !SameInts(js.dims(), jdims))
    return call->Error("jpvt must be s32 of a's batch dimensions, then a's columns");
  HLO_LAPACK_RETURN_IF_ERROR(call->CopyOperandToResult(0, 0));
  HLO_LAPACK_RETURN_IF_ERROR(call->CopyOperandToResult(1, 1));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(2, "tau", call->type(), a->batch_dims, {k}));
  DispatchLapackType(call->type(), [&](auto zero) {
    using T = decltype(zero);
    T* qr = DataOf<T>(call->result(0));
    int* jpvt = DataOf<int>(call->result(1));
    T* tau = DataOf<T>(call->result(2));
    const int m = a->rows, n = a->cols;
    if (k == 0) return 0;
    int info = 0;
    T query{};
    std::vector<RealOf<T>> rwork(2 * static_cast<size_t>(n));
    lapack::geqp3(m, n, nullptr, m, nullptr, nullptr, &query, -1, rwork.data(), &info);
    std::vector<T> work(WorkspaceSize(query));
    for (int64_t b = 0; b < a->batch; ++b)
      lapack::geqp3(m, n, qr + b * a->size(), m, jpvt + b * n, tau + b * k, work.data(),
                    static_cast<int>(work.size()), rwork.data(), &info);
    return 0;
  });
  return std::move(*call).Finish();
}

// (a [..., m, n], tau [..., k]) -> q [..., m, n]: the first n columns of
// the product of the k reflectors that geqrf left in a and tau (m >= n >= k).
absl::StatusOr<Literal> LapackOrgqr(const Instruction& instr, absl::Span<const Literal* const> ops,
                                    OpContext&) {
  absl::StatusOr<LapackCall> call = LapackCall::Begin(instr, ops, 2, 2, 1, 0b01, 0b1);
  if (!call.ok()) return call.status();
  const MatrixBatch* a = &call->a();
  const Shape& ts = call->operand(1).shape();
  if (ts.element_type() != call->type() || ts.rank() != static_cast<int64_t>(a->batch_dims.size()) + 1 ||
      !SameInts(absl::MakeConstSpan(ts.dims()).first(ts.rank() - 1), a->batch_dims))
    return call->Error("tau must have a's element type and batch dimensions, then one more");
  const int64_t k = ts.dim(ts.rank() - 1);
  if (a->rows < a->cols || k > a->cols)
    return call->Error("needs rows >= columns >= number of reflectors (tau's last dimension)");
  HLO_LAPACK_RETURN_IF_ERROR(call->CopyOperandToResult(0, 0));
  DispatchLapackType(call->type(), [&](auto zero) {
    using T = decltype(zero);
    T* q = DataOf<T>(call->result(0));
    const T* tau = DataOf<T>(call->operand(1));
    const int m = a->rows, n = a->cols, kk = static_cast<int>(k);
    if (n == 0) return 0;
    int info = 0;
    T query{};
    lapack::orgqr(m, n, kk, nullptr, m, nullptr, &query, -1, &info);
    std::vector<T> work(WorkspaceSize(query));
    for (int64_t b = 0; b < a->batch; ++b)
      lapack::orgqr(m, n, kk, q + b * a->size(), m, tau + b * k, work.data(),
                    static_cast<int>(work.size()), &info);
    return 0;
  });
  return std::move(*call).Finish();
}

// (a [..., k, k], b [..., m, n], optional alpha scalar) -> x [..., m, n]
// solving op(a) x = alpha b (side 'L', k = m) or x op(a) = alpha b (side
// 'R', k = n); attributes side, uplo, trans_x ('N', 'T', 'C'), diag ('N',
// 'U' = unit diagonal, not read).
absl::StatusOr<Literal> LapackTrsm(const Instruction& instr, absl::Span<const Literal* const> ops,
                                   OpContext&) {
  absl::StatusOr<LapackCall> call = LapackCall::Begin(instr, ops, 2, 3, 1, 0b011, 0b1);
  if (!call.ok()) return call.status();
  const MatrixBatch* a = &call->a();
  absl::StatusOr<MatrixBatch> b = call->OperandMatrices(1, "b");
  if (!b.ok()) return b.status();
  absl::StatusOr<char> side = call->CharAttr("side", "LR", 0);
  if (!side.ok()) return side.status();
  absl::StatusOr<char> uplo = call->CharAttr("uplo", "LU", 0);
  if (!uplo.ok()) return uplo.status();
  absl::StatusOr<char> trans = call->CharAttr("trans_x", "NTC", 0);
  if (!trans.ok()) return trans.status();
  absl::StatusOr<char> diag = call->CharAttr("diag", "NU", 0);
  if (!diag.ok()) return diag.status();
  const int k = *side == 'L' ? b->rows : b->cols;
  if (a->rows != k || a->cols != k || !SameInts(a->batch_dims, b->batch_dims))
    return call->Error("a must be square, of b's batch dimensions, and match b's solved dimension");
  if (call->operand_count() == 3 && (call->operand(2).shape().rank() != 0 ||
                                     call->operand(2).shape().element_type() != call->type()))
    return call->Error("alpha must be a scalar of a's element type");
  HLO_LAPACK_RETURN_IF_ERROR(call->CopyOperandToResult(1, 0));
  DispatchLapackType(call->type(), [&](auto zero) {
    using T = decltype(zero);
    const T alpha = call->operand_count() == 3 ? *DataOf<T>(call->operand(2)) : T(1);
    const T* am = DataOf<T>(call->operand(0));
    T* x = DataOf<T>(call->result(0));
    if (b->size() == 0) return 0;
    for (int64_t i = 0; i < b->batch; ++i)
      lapack::trsm(*side, *uplo, *trans, *diag, b->rows, b->cols, alpha, am + i * a->size(),
                   std::max(k, 1), x + i * b->size(), b->rows);
    return 0;
  });
  return std::move(*call).Finish();
}

// (dl, d, du [..., m], b [..., m, n]) -> (dl, d, du as gtsv leaves them, x
// with T x = b, info): T is tridiagonal with sub-diagonal dl[1..m),
// diagonal d and super-diagonal du[0..m-1) (dl[0] and du[m-1] are not
// read). info i > 0: U(i,i) is exactly zero.
absl::StatusOr<Literal> LapackGtsv(const Instruction& instr, absl::Span<const Literal* const> ops,
                                   OpContext&) {
  absl::StatusOr<LapackCall> call = LapackCall::Begin(instr, ops, 4, 4, 5, 0b1000, 0b01000);
  if (!call.ok()) return call.status();
  absl::StatusOr<MatrixBatch> b = call->OperandMatrices(3, "b");
  if (!b.ok()) return b.status();
  std::vector<int64_t> ddims = b->batch_dims;
  ddims.push_back(b->rows);
  for (int i = 0; i < 3; ++i) {
    const Shape& s = call->operand(i).shape();
    if (s.element_type() != call->type() || !SameInts(s.dims(), ddims))
      return call->Error("dl, d and du must be b's type and dimensions without its last");
  }
  for (int i = 0; i < 4; ++i) HLO_LAPACK_RETURN_IF_ERROR(call->CopyOperandToResult(i, i));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(4, "info", PrimitiveType::S32, b->batch_dims, {}));
  DispatchLapackType(call->type(), [&](auto zero) {
    using T = decltype(zero);
    T* dl = DataOf<T>(call->result(0));
    T* d = DataOf<T>(call->result(1));
    T* du = DataOf<T>(call->result(2));
    T* x = DataOf<T>(call->result(3));
    int* info = DataOf<int>(call->result(4));
    const int m = b->rows;
    if (m == 0) return 0;
    for (int64_t i = 0; i < b->batch; ++i)
      lapack::gtsv(m, b->cols, dl + i * m + 1, d + i * m, du + i * m, x + i * b->size(), m, info + i);
    return 0;
  });
  return std::move(*call).Finish();
}

}  // namespace hlo::cpu
