// JAX's LAPACK custom calls for eigen- and singular value decompositions:
// lapack_?syevd_ffi / ?heevd, ?gesdd, ?gesvd, ?geev. As in custom_call_lapack.cc,
// each runs the LAPACK routine on every matrix of the batch with the
// arguments and workspace sizes jaxlib's kernels use, and returns LAPACK's
// raw outputs (JAX's lowering masks failures with NaN after the call).
// Contracts: docs/semantics.md.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/custom_call_lapack.h"
#include "backend_cpu/lapack_call.h"
#include "backend_cpu/lapack_fortran.h"

namespace hlo::cpu {
namespace {

template <typename T>
constexpr bool kComplex = !std::is_same_v<T, RealOf<T>>;

// A workspace size as LAPACK's int, or an error when it does not fit.
absl::StatusOr<int> WorkspaceInt(const LapackCall& call, int64_t size) {
  if (size > std::numeric_limits<int>::max())
    return call.Unimplemented("a workspace above LAPACK's 32-bit sizes");
  return static_cast<int>(std::max<int64_t>(size, 1));
}

// Real geev returns a complex-conjugate pair of eigenvectors as two real
// columns (real part, imaginary part) next to each other, marked by a
// nonzero imaginary eigenvalue part; this spreads them into complex columns
// (v_j = re + i im, v_j+1 = re - i im). Column-major n x n.
template <typename R>
void UnpackRealEigenvectors(int n, const R* wi, const R* packed, std::complex<R>* out) {
  for (int j = 0; j < n;) {
    const R* col = packed + static_cast<int64_t>(j) * n;
    std::complex<R>* dst = out + static_cast<int64_t>(j) * n;
    if (wi[j] == R(0) || std::isnan(wi[j]) || j + 1 == n) {
      for (int i = 0; i < n; ++i) dst[i] = std::complex<R>(col[i], 0);
      ++j;
      continue;
    }
    for (int i = 0; i < n; ++i) {
      dst[i] = std::complex<R>(col[i], col[n + i]);
      dst[n + i] = std::complex<R>(col[i], -col[n + i]);
    }
    j += 2;
  }
}

template <typename T>
bool AllFinite(const T* v, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    if (!std::isfinite(std::real(v[i])) || !std::isfinite(std::imag(v[i]))) return false;
  return true;
}

}  // namespace

// (a) -> (eigenvectors in the columns of a, eigenvalues ascending [..., n]
// of the real type, info s32[...]); attributes mode ('V' vectors too, 'N'
// values only: a is then destroyed) and uplo (the triangle read).
absl::StatusOr<Literal> LapackSyevd(const Instruction& instr, absl::Span<const Literal* const> ops,
                                    OpContext&) {
  absl::StatusOr<LapackCall> call = LapackCall::Begin(instr, ops, 1, 1, 3, 0b1, 0b001);
  if (!call.ok()) return call.status();
  const MatrixBatch* a = &call->a();
  if (a->rows != a->cols) return call->Error("a must be a batch of square matrices");
  absl::StatusOr<char> mode = call->CharAttr("mode", "NV", 'V');
  if (!mode.ok()) return mode.status();
  absl::StatusOr<char> uplo = call->CharAttr("uplo", "LU", 'L');
  if (!uplo.ok()) return uplo.status();
  const int n = a->rows;
  HLO_LAPACK_RETURN_IF_ERROR(call->CopyOperandToResult(0, 0));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(1, "eigenvalues", call->real_type(), a->batch_dims, {n}));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(2, "info", PrimitiveType::S32, a->batch_dims, {}));
  // The minimum workspaces LAPACK documents for these routines (jaxlib
  // passes exactly these, not the queried optimum).
  const bool vectors = *mode == 'V';
  const int64_t nn = static_cast<int64_t>(n) * n;
  const bool complex = call->type() == PrimitiveType::C64 || call->type() == PrimitiveType::C128;
  absl::StatusOr<int> lwork = WorkspaceInt(
      *call, complex ? (vectors ? 2 * n + nn : n + 1) : (vectors ? 1 + 6 * n + 2 * nn : 2 * n + 1));
  absl::StatusOr<int> lrwork = WorkspaceInt(*call, vectors ? 1 + 5 * n + 2 * nn : n);
  absl::StatusOr<int> liwork = WorkspaceInt(*call, vectors ? 3 + 5 * n : 1);
  for (const auto* s : {&lwork, &lrwork, &liwork})
    if (!s->ok()) return s->status();
  DispatchLapackType(call->type(), [&](auto zero) {
    using T = decltype(zero);
    using R = RealOf<T>;
    T* v = DataOf<T>(call->result(0));
    R* w = DataOf<R>(call->result(1));
    int* info = DataOf<int>(call->result(2));
    if (n == 0) return 0;
    std::vector<T> work(*lwork);
    std::vector<int> iwork(*liwork);
    std::vector<R> rwork(kComplex<T> ? *lrwork : 0);
    for (int64_t b = 0; b < a->batch; ++b) {
      if constexpr (kComplex<T>) {
        lapack::heevd(*mode, *uplo, n, v + b * nn, n, w + b * n, work.data(), *lwork, rwork.data(),
                      *lrwork, iwork.data(), *liwork, info + b);
      } else {
        lapack::syevd(*mode, *uplo, n, v + b * nn, n, w + b * n, work.data(), *lwork, iwork.data(),
                      *liwork, info + b);
      }
    }
    return 0;
  });
  return std::move(*call).Finish();
}

namespace {

// (a [..., m, n]) -> (a destroyed, s [..., min(m,n)] descending of the real
// type, u, vt, info s32[...]) with a = u diag(s) vt; attribute mode: 'A'
// u [m,m] and vt [n,n], 'S' u [m,k] and vt [k,n], 'N' singular values
// only (u and vt stay zero). 'O' is refused, as jaxlib does.
// The shared contract of gesdd (divide and conquer) and gesvd (QR
// iteration, `divide_and_conquer` false).
absl::StatusOr<Literal> Svd(const Instruction& instr, absl::Span<const Literal* const> ops,
                            bool divide_and_conquer) {
  absl::StatusOr<LapackCall> call = LapackCall::Begin(instr, ops, 1, 1, 5, 0b1, 0b01101);
  if (!call.ok()) return call.status();
  const MatrixBatch* a = &call->a();
  const int m = a->rows, n = a->cols, k = std::min(m, n);
  const auto& u_dims = call->result(2).shape().dims();
  const auto& vt_dims = call->result(3).shape().dims();
  const size_t r = a->batch_dims.size() + 2;
  if (u_dims.size() != r || vt_dims.size() != r)
    return call->Error("u and vt must be batches of matrices like a");
  const int64_t u_cols = u_dims[r - 1], vt_rows = vt_dims[r - 2];
  // Without attributes the shapes say which of 'A' and 'S' was meant.
  absl::StatusOr<char> mode =
      call->CharAttr("mode", "ASON", u_cols == m && vt_rows == n ? 'A' : 'S');
  if (!mode.ok()) return mode.status();
  if (*mode == 'O') return call->Unimplemented("mode 'O' (jaxlib does not support it either)");
  HLO_LAPACK_RETURN_IF_ERROR(call->CopyOperandToResult(0, 0));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(1, "singular values", call->real_type(), a->batch_dims, {k}));
  // 'N' leaves u and vt alone: JAX sizes them as for 'A' or 'S'.
  const bool full = *mode == 'A' || (*mode == 'N' && u_cols == m && vt_rows == n);
  const int64_t uc = full ? m : k, vr = full ? n : k;
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(2, "u", call->type(), a->batch_dims, {m, uc}));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(3, "vt", call->type(), a->batch_dims, {vr, n}));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(4, "info", PrimitiveType::S32, a->batch_dims, {}));
  const int64_t mx = std::max(m, n);
  // complex rwork: gesdd's documented size, 5 min(m,n) for gesvd.
  absl::StatusOr<int> lrwork = WorkspaceInt(
      *call, !divide_and_conquer ? 5 * int64_t{k}
             : *mode == 'N'      ? 7 * int64_t{k}
                                 : std::max(5 * int64_t{k} * k + 5 * k, 2 * mx * k + 2 * int64_t{k} * k + k));
  if (!lrwork.ok()) return lrwork.status();
  DispatchLapackType(call->type(), [&](auto zero) {
    using T = decltype(zero);
    using R = RealOf<T>;
    T* am = DataOf<T>(call->result(0));
    R* s = DataOf<R>(call->result(1));
    T* u = DataOf<T>(call->result(2));
    T* vt = DataOf<T>(call->result(3));
    int* info = DataOf<int>(call->result(4));
    if (k == 0) return 0;
    const int ldvt = static_cast<int>(vr);
    std::vector<int> iwork(8 * static_cast<size_t>(k));
    std::vector<R> rwork(kComplex<T> ? *lrwork : 1);
    T query{};
    int qinfo = 0;
    if (divide_and_conquer) {
      lapack::gesdd(*mode, m, n, nullptr, m, nullptr, nullptr, m, nullptr, ldvt, &query, -1, nullptr,
                    nullptr, &qinfo);
    } else {
      lapack::gesvd(*mode, m, n, nullptr, m, nullptr, nullptr, m, nullptr, ldvt, &query, -1, nullptr,
                    &qinfo);
    }
    std::vector<T> work(WorkspaceSize(query));
    const int lwork = static_cast<int>(work.size());
    for (int64_t b = 0; b < a->batch; ++b) {
      T* ab = am + b * a->size();
      if (divide_and_conquer) {
        lapack::gesdd(*mode, m, n, ab, m, s + b * k, u + b * m * uc, m, vt + b * vr * n, ldvt,
                      work.data(), lwork, rwork.data(), iwork.data(), info + b);
      } else {
        lapack::gesvd(*mode, m, n, ab, m, s + b * k, u + b * m * uc, m, vt + b * vr * n, ldvt,
                      work.data(), lwork, rwork.data(), info + b);
      }
    }
    return 0;
  });
  return std::move(*call).Finish();
}

}  // namespace

absl::StatusOr<Literal> LapackGesdd(const Instruction& instr, absl::Span<const Literal* const> ops,
                                    OpContext&) {
  return Svd(instr, ops, true);
}

absl::StatusOr<Literal> LapackGesvd(const Instruction& instr, absl::Span<const Literal* const> ops,
                                    OpContext&) {
  return Svd(instr, ops, false);
}

// (a [..., n, n]) -> real types: (wr, wi [..., n], vl, vr complex [..., n, n],
// info); complex types: (w [..., n], vl, vr, info). Attributes compute_left
// and compute_right ('V' or 'N'; vectors not computed stay zero). A matrix
// with a NaN or infinity is not passed to LAPACK: info = -4, as in jaxlib.
absl::StatusOr<Literal> LapackGeev(const Instruction& instr, absl::Span<const Literal* const> ops,
                                   OpContext&) {
  const bool complex = ComplexOperand0(ops);
  const int nres = complex ? 4 : 5;
  absl::StatusOr<LapackCall> call = LapackCall::Begin(instr, ops, 1, 1, nres, 0b1, complex ? 0b0110 : 0b01100);
  if (!call.ok()) return call.status();
  const MatrixBatch* a = &call->a();
  if (a->rows != a->cols) return call->Error("a must be a batch of square matrices");
  absl::StatusOr<char> left = call->CharAttr("compute_left", "NV", 'V');
  if (!left.ok()) return left.status();
  absl::StatusOr<char> right = call->CharAttr("compute_right", "NV", 'V');
  if (!right.ok()) return right.status();
  const int n = a->rows;
  const PrimitiveType ct = call->real_type() == PrimitiveType::F64 ? PrimitiveType::C128 : PrimitiveType::C64;
  const int nw = complex ? 1 : 2;  // eigenvalue results
  for (int i = 0; i < nw; ++i)
    HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(i, "eigenvalues", call->type(), a->batch_dims, {n}));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(nw, "left eigenvectors", ct, a->batch_dims, {n, n}));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(nw + 1, "right eigenvectors", ct, a->batch_dims, {n, n}));
  HLO_LAPACK_RETURN_IF_ERROR(call->CheckResult(nw + 2, "info", PrimitiveType::S32, a->batch_dims, {}));
  DispatchLapackType(call->type(), [&](auto zero) {
    using T = decltype(zero);
    using R = RealOf<T>;
    using C = std::complex<R>;
    if (n == 0) return 0;
    const int64_t nn = a->size();
    const T* in = DataOf<T>(call->operand(0));
    C* vl = DataOf<C>(call->result(nw));
    C* vr = DataOf<C>(call->result(nw + 1));
    int* info = DataOf<int>(call->result(nw + 2));
    std::vector<T> x(nn);
    std::vector<R> rwork(2 * static_cast<size_t>(n));
    T query{};
    int qinfo = 0;
    std::vector<T> vl_real, vr_real;  // real types: packed vectors before unpacking
    if constexpr (kComplex<T>) {
      lapack::geev(*left, *right, n, x.data(), n, nullptr, nullptr, n, nullptr, n, &query, -1,
                   rwork.data(), &qinfo);
    } else {
      lapack::geev(*left, *right, n, x.data(), n, nullptr, nullptr, nullptr, n, nullptr, n, &query,
                   -1, &qinfo);
      vl_real.assign(nn, T(0));
      vr_real.assign(nn, T(0));
    }
    std::vector<T> work(WorkspaceSize(query));
    const int lwork = static_cast<int>(work.size());
    for (int64_t b = 0; b < a->batch; ++b) {
      std::copy(in + b * nn, in + (b + 1) * nn, x.begin());
      if (!AllFinite(x.data(), nn)) {
        info[b] = -4;
        continue;
      }
      if constexpr (kComplex<T>) {
        T* w = DataOf<T>(call->result(0)) + b * n;
        lapack::geev(*left, *right, n, x.data(), n, w, vl + b * nn, n, vr + b * nn, n, work.data(),
                     lwork, rwork.data(), info + b);
      } else {
        T* wr = DataOf<T>(call->result(0)) + b * n;
        T* wi = DataOf<T>(call->result(1)) + b * n;
        lapack::geev(*left, *right, n, x.data(), n, wr, wi, vl_real.data(), n, vr_real.data(), n,
                     work.data(), lwork, info + b);
        if (info[b] != 0) continue;
        if (*left == 'V') UnpackRealEigenvectors(n, wi, vl_real.data(), vl + b * nn);
        if (*right == 'V') UnpackRealEigenvectors(n, wi, vr_real.data(), vr + b * nn);
      }
    }
    return 0;
  });
  return std::move(*call).Finish();
}

}  // namespace hlo::cpu
