// JAX's LAPACK custom calls that reduce a square matrix to a condensed
// form by unitary similarity: lapack_?gehrd_ffi (Hessenberg), ?sytrd /
// ?hetrd (tridiagonal), ?gees (Schur). As in custom_call_lapack.cc, each
// runs the LAPACK routine on every matrix of the batch with jaxlib's
// arguments and workspace choice and returns LAPACK's raw outputs.
// Contracts: docs/semantics.md.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/custom_call_lapack.h"
#include "backend_cpu/lapack_call.h"
#include "backend_cpu/lapack_fortran.h"

namespace hlo::cpu {
namespace {

// The order n >= 1 of operand 0's square matrices.
absl::StatusOr<int> SquareOrder(const LapackCall& call) {
  const MatrixBatch& a = call.a();
  if (a.rows != a.cols || a.rows == 0)
    return call.Error("a must be a batch of non-empty square matrices");
  return a.rows;
}

}  // namespace

// (a) -> (H on and above the first sub-diagonal with the reflectors below
// it, tau [..., n-1], info); attributes low and high (i32, LAPACK's ilo and
// ihi: rows and columns outside low..high are already reduced; JAX passes
// 1 and n).
absl::StatusOr<Literal> LapackGehrd(const Instruction& instr, absl::Span<const Literal* const> ops,
                                    OpContext&) {
  absl::StatusOr<LapackCall> call = LapackCall::Begin(instr, ops, 1, 1, 3, 0b1, 0b001);
  if (!call.ok()) return call.status();
  absl::StatusOr<int> n = SquareOrder(*call);
  if (!n.ok()) return n.status();
  absl::StatusOr<int64_t> low = call->IntAttr("low", 1);
  if (!low.ok()) return low.status();
  absl::StatusOr<int64_t> high = call->IntAttr("high", *n);
  if (!high.ok()) return high.status();
  if (*low < 1 || *low > *high || *high > *n)
    return call->Error(absl::StrCat("needs 1 <= low <= high <= n, got low ", *low, ", high ", *high));
  const MatrixBatch& a = call->a();
  HLO_LAPACK_RETURN_IF_ERROR(call->CopyOperandToResult(0, 0));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(1, "tau", call->type(), a.batch_dims, {*n - 1}));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(2, "info", PrimitiveType::S32, a.batch_dims, {}));
  DispatchLapackType(call->type(), [&](auto zero) {
    using T = decltype(zero);
    T* h = DataOf<T>(call->result(0));
    T* tau = DataOf<T>(call->result(1));
    int* info = DataOf<int>(call->result(2));
    const int lo = static_cast<int>(*low), hi = static_cast<int>(*high);
    int qinfo = 0;
    T query{};
    lapack::gehrd(*n, lo, hi, nullptr, *n, nullptr, &query, -1, &qinfo);
    std::vector<T> work(WorkspaceSize(query));
    for (int64_t b = 0; b < a.batch; ++b)
      lapack::gehrd(*n, lo, hi, h + b * a.size(), *n, tau + b * (*n - 1), work.data(),
                    static_cast<int>(work.size()), info + b);
    return 0;
  });
  return std::move(*call).Finish();
}

// (a) -> (the reflectors in the triangle `uplo` names, diagonal d [..., n]
// and off-diagonal e [..., n-1] of the real type, tau [..., n-1], info):
// Q^H a Q = T tridiagonal; attribute uplo.
absl::StatusOr<Literal> LapackSytrd(const Instruction& instr, absl::Span<const Literal* const> ops,
                                    OpContext&) {
  absl::StatusOr<LapackCall> call = LapackCall::Begin(instr, ops, 1, 1, 5, 0b1, 0b00001);
  if (!call.ok()) return call.status();
  absl::StatusOr<int> n = SquareOrder(*call);
  if (!n.ok()) return n.status();
  absl::StatusOr<char> uplo = call->CharAttr("uplo", "LU", 'L');
  if (!uplo.ok()) return uplo.status();
  const MatrixBatch& a = call->a();
  HLO_LAPACK_RETURN_IF_ERROR(call->CopyOperandToResult(0, 0));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(1, "diagonal", call->real_type(), a.batch_dims, {*n}));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(2, "off-diagonal", call->real_type(), a.batch_dims, {*n - 1}));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(3, "tau", call->type(), a.batch_dims, {*n - 1}));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(4, "info", PrimitiveType::S32, a.batch_dims, {}));
  DispatchLapackType(call->type(), [&](auto zero) {
    using T = decltype(zero);
    using R = RealOf<T>;
    T* q = DataOf<T>(call->result(0));
    R* d = DataOf<R>(call->result(1));
    R* e = DataOf<R>(call->result(2));
    T* tau = DataOf<T>(call->result(3));
    int* info = DataOf<int>(call->result(4));
    int qinfo = 0;
    T query{};
    // jaxlib sizes the workspace by a query for the lower triangle.
    lapack::sytrd('L', *n, nullptr, *n, nullptr, nullptr, nullptr, &query, -1, &qinfo);
    std::vector<T> work(WorkspaceSize(query));
    for (int64_t b = 0; b < a.batch; ++b)
      lapack::sytrd(*uplo, *n, q + b * a.size(), *n, d + b * *n, e + b * (*n - 1), tau + b * (*n - 1),
                    work.data(), static_cast<int>(work.size()), info + b);
    return 0;
  });
  return std::move(*call).Finish();
}

// (a) -> real types: (T quasi-upper-triangular, Schur vectors vs, wr, wi
// [..., n], selected s32[...], info); complex: (T, vs, w, selected, info).
// a = vs T vs^H. Attributes mode ('V' vectors, 'N' none: vs stays zero) and
// sort ('N'; 'S' is refused, as jaxlib does: no selection function).
absl::StatusOr<Literal> LapackGees(const Instruction& instr, absl::Span<const Literal* const> ops,
                                   OpContext&) {
  const bool complex = ComplexOperand0(ops);
  absl::StatusOr<LapackCall> call = LapackCall::Begin(instr, ops, 1, 1, complex ? 5 : 6, 0b1, 0b11);
  if (!call.ok()) return call.status();
  const int n = call->a().rows;
  if (call->a().cols != n) return call->Error("a must be a batch of square matrices");
  absl::StatusOr<char> mode = call->CharAttr("mode", "NV", 'V');
  if (!mode.ok()) return mode.status();
  absl::StatusOr<char> sort = call->CharAttr("sort", "NS", 'N');
  if (!sort.ok()) return sort.status();
  if (*sort == 'S') return call->Unimplemented("sort 'S' (jaxlib does not support it either)");
  const MatrixBatch& a = call->a();
  const int nw = complex ? 1 : 2;  // eigenvalue results
  HLO_LAPACK_RETURN_IF_ERROR(call->CopyOperandToResult(0, 0));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(1, "Schur vectors", call->type(), a.batch_dims, {n, n}));
  for (int i = 0; i < nw; ++i)
    HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(2 + i, "eigenvalues", call->type(), a.batch_dims, {n}));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(2 + nw, "selected", PrimitiveType::S32, a.batch_dims, {}));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(3 + nw, "info", PrimitiveType::S32, a.batch_dims, {}));
  DispatchLapackType(call->type(), [&](auto zero) {
    using T = decltype(zero);
    using R = RealOf<T>;
    T* s = DataOf<T>(call->result(0));
    T* vs = DataOf<T>(call->result(1));
    T* w = DataOf<T>(call->result(2));
    int* sdim = DataOf<int>(call->result(2 + nw));
    int* info = DataOf<int>(call->result(3 + nw));
    const int64_t nn = a.size();
    if (nn == 0) return 0;
    std::vector<R> rwork(n);
    int qinfo = 0, qsdim = 0;
    T query{};
    if constexpr (std::is_same_v<T, R>) {
      T* wi = DataOf<T>(call->result(3));
      lapack::gees(*mode, n, s, n, &qsdim, w, wi, vs, n, &query, -1, &qinfo);
      std::vector<T> work(WorkspaceSize(query));
      for (int64_t b = 0; b < a.batch; ++b)
        lapack::gees(*mode, n, s + b * nn, n, sdim + b, w + b * n, wi + b * n, vs + b * nn, n,
                     work.data(), static_cast<int>(work.size()), info + b);
    } else {
      lapack::gees(*mode, n, s, n, &qsdim, w, vs, n, &query, -1, rwork.data(), &qinfo);
      std::vector<T> work(WorkspaceSize(query));
      for (int64_t b = 0; b < a.batch; ++b)
        lapack::gees(*mode, n, s + b * nn, n, sdim + b, w + b * n, vs + b * nn, n, work.data(),
                     static_cast<int>(work.size()), rwork.data(), info + b);
    }
    return 0;
  });
  return std::move(*call).Finish();
}

}  // namespace hlo::cpu
