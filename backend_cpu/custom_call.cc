#include "backend_cpu/custom_call.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "backend_cpu/custom_call_lapack.h"
#include "backend_cpu/ew_gelu.h"
#include "backend_cpu/thread_pool.h"

namespace hlo::cpu {

// ops_sort.cc.
absl::StatusOr<Literal> EvalTopKCustomCall(const Instruction&, absl::Span<const Literal* const>, OpContext&);

namespace {

// AWS Neuron's marker for moving a tensor into device memory with a static
// ring: numerically the identity on its single operand.
absl::StatusOr<Literal> Identity(const Instruction& instr, absl::Span<const Literal* const> ops,
                                 OpContext&) {
  if (ops.size() != 1) return OpError(instr, "expects exactly one operand");
  if (!ops[0]->shape().Compatible(instr.shape()))
    return OpError(instr, "result shape differs from the operand's");
  if (!instr.shape().IsArray()) return *ops[0];
  return ToLayout(*ops[0], instr.shape().layout());
}

// Shardy's xla.sdy.ShardingGroup: ties its operand's sharding to others of
// the same group id; computes nothing and returns an empty tuple.
absl::StatusOr<Literal> NoResult(const Instruction& instr, absl::Span<const Literal* const>, OpContext&) {
  if (!instr.shape().IsTuple() || instr.shape().tuple_size() != 0)
    return OpError(instr, "result must be the empty tuple ()");
  return Literal::MakeTuple({});
}

// The boundaries of a manual (per-device) region: Shardy's
// xla.sdy.GlobalToLocalShape / LocalToGlobalShape around a shard_map body,
// GSPMD's SPMDFullToShardShape / SPMDShardToFullShape. A module holding them
// is the program before SPMD partitioning, run here as one global program;
// the body is per-device code (its collectives, axis indices), so only a
// region whose shards are the whole arrays (a mesh of one device along the
// manual axes) runs, as the identity. Anything else needs the partitioner
// hlo-run does not have: a clear error, not a wrong answer.
absl::StatusOr<Literal> ManualRegionBoundary(const Instruction& instr,
                                             absl::Span<const Literal* const> ops, OpContext&) {
  const Shape& shape = instr.shape();
  const bool tuple = shape.IsTuple();
  const int64_t results = tuple ? shape.tuple_size() : 1;
  bool same = static_cast<int64_t>(ops.size()) == results;
  for (int64_t i = 0; same && i < results; ++i)
    same = ops[i]->shape().IsArray() && ops[i]->shape().Compatible(tuple ? shape.tuple_shape(i) : shape);
  if (!same)
    return OpUnimplemented(instr, absl::StrCat(
        "SPMD partitioning: ", *instr.GetAttr<std::string>("custom_call_target"),
        " changes array shapes between the global program and a per-device region (a shard_map "
        "body); run the per-device module XLA writes after partitioning (e.g. its "
        "--xla_dump_hlo_pass_re=spmd-partitioning dump)"));
  if (!tuple) return ToLayout(*ops[0], shape.layout());
  std::vector<Literal> parts;
  for (int64_t i = 0; i < results; ++i) parts.push_back(ToLayout(*ops[i], shape.tuple_shape(i).layout()));
  return Literal::MakeTuple(std::move(parts));
}

// gelu with the tanh approximation (PyTorch's approximate='tanh'):
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). f32 runs the vectorised
// kernel (ew_gelu.h: f32 arithmetic, as PyTorch and XLA compute f32, in a
// form without cancellation); other float types are computed in double and
// rounded to the element type.
absl::StatusOr<Literal> GeluApproxTanh(const Instruction& instr,
                                       absl::Span<const Literal* const> ops, OpContext&) {
  if (ops.empty()) return OpError(instr, "expects an operand");
  const Literal& x = *ops[0];
  if (!x.shape().IsArray() || !IsFloat(x.shape().element_type()))
    return OpError(instr, "expects a floating-point array operand");
  if (!instr.shape().IsArray() || !x.shape().Compatible(instr.shape()))
    return OpError(instr, "result shape differs from the operand's");
  if (x.shape().element_type() == PrimitiveType::F32) {
    Literal out = Literal::Uninitialized(x.shape());
    const float* in = reinterpret_cast<const float*>(x.data());
    float* res = reinterpret_cast<float*>(out.data());
    ParallelFor(x.physical_count(), int64_t{1} << 14,
                [in, res](int64_t i0, int64_t i1) { ew::GeluTanhF32(in + i0, res + i0, i1 - i0); });
    return ToLayout(std::move(out), instr.shape().layout());
  }
  Literal out = x;
  const double k = std::sqrt(2.0 / M_PI);
  for (int64_t i = 0, n = out.physical_count(); i < n; ++i) {
    double v = x.GetDouble(i);
    out.SetDouble(i, 0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v))));
  }
  return ToLayout(std::move(out), instr.shape().layout());
}

// PadToStatic: a dynamic array to (its static buffer, one s32 size per
// dimension). The backend runs bounded dims at their bound (see
// docs/ops-data-movement.md, get-dimension-size), so the sizes are the bounds.
absl::StatusOr<Literal> PadToStatic(const Instruction& instr, absl::Span<const Literal* const> ops,
                                    OpContext&) {
  if (ops.size() != 1 || !ops[0]->shape().IsArray()) return OpError(instr, "expects one array operand");
  const Shape& in = ops[0]->shape();
  const Shape& out = instr.shape();
  if (!out.IsTuple() || out.tuple_size() != in.rank() + 1 || !out.tuple_shape(0).IsArray() ||
      out.tuple_shape(0).element_type() != in.element_type() ||
      !SameInts(out.tuple_shape(0).dims(), in.dims()))
    return OpError(instr, "result must be (the operand's static array, one s32[] per dimension)");
  std::vector<Literal> parts;
  parts.push_back(ToLayout(*ops[0], out.tuple_shape(0).layout()));
  for (int64_t d = 0; d < in.rank(); ++d) {
    const Shape& s = out.tuple_shape(d + 1);
    if (s.IsTuple() || s.rank() != 0 || !IsInteger(s.element_type()))
      return OpError(instr, "dimension sizes must be integer scalars");
    Literal size(s);
    size.SetInt(0, in.dim(d) == Shape::kUnboundedSize ? 0 : in.dim(d));
    parts.push_back(std::move(size));
  }
  return Literal::MakeTuple(std::move(parts));
}

// SliceToDynamic: (static buffer, one size per dimension) to a dynamic
// array. Bounded dims run at their bound, so the data passes unchanged; a
// size below the bound would need real dynamic shapes and is an error
// rather than a silently different result.
absl::StatusOr<Literal> SliceToDynamic(const Instruction& instr, absl::Span<const Literal* const> ops,
                                       OpContext&) {
  if (ops.empty() || !ops[0]->shape().IsArray()) return OpError(instr, "expects an array operand first");
  const Shape& in = ops[0]->shape();
  if (static_cast<int64_t>(ops.size()) != in.rank() + 1)
    return OpError(instr, "expects the array and one size operand per dimension");
  for (size_t i = 1; i < ops.size(); ++i) {
    if (ops[i]->shape().IsTuple() || ops[i]->shape().rank() != 0 || !IsInteger(ops[i]->shape().element_type()))
      return OpError(instr, "dimension sizes must be integer scalars");
    const int64_t size = ops[i]->GetInt(0);
    if (size != in.dim(i - 1))
      return OpUnimplemented(instr, absl::StrCat("dynamic size ", size, " for dimension ", i - 1, " of size ",
                                                 in.dim(i - 1), " (bounded dims run at their bound)"));
  }
  const Shape& out = instr.shape();
  if (!out.IsArray() || out.element_type() != in.element_type() || !SameInts(out.dims(), in.dims()))
    return OpError(instr, "result must be the operand's array with bounded dimensions");
  return ToLayout(*ops[0], out.layout());
}

const CustomCallTarget kTargets[] = {
    {"AwsNeuronGeluApprxTanh", "gelu, tanh approximation, elementwise on operand 0",
     &GeluApproxTanh},
    {"AwsNeuronTransferWithStaticRing", "identity (a device-memory transfer marker)", &Identity},
    {"MoveToDevice", "identity (host offloading marker)", &Identity},
    {"MoveToHost", "identity (host offloading marker)", &Identity},
    {"PadToStatic", "dynamic array to (static array, s32 size per dimension)", &PadToStatic},
    {"Sharding", "identity (a sharding annotation)", &Identity},
    {"SPMDFullToShardShape", "GSPMD manual region entry: identity when the shard is the whole array",
     &ManualRegionBoundary},
    {"SPMDShardToFullShape", "GSPMD manual region exit: identity when the shard is the whole array",
     &ManualRegionBoundary},
    {"TopK", "XLA:CPU's top-k: (values, s32 indices) of the k largest along the last dimension",
     &EvalTopKCustomCall},
    {"SliceToDynamic", "(static array, sizes) to a dynamic array: the data unchanged", &SliceToDynamic},
    {"annotate_device_placement", "identity (a placement annotation)", &Identity},
    // Shardy's round-trip targets in JAX's lowered HLO of sharded programs.
    {"xla.sdy.FuncResultSharding", "identity (Shardy: a result's sharding)", &Identity},
    {"xla.sdy.PropagationBarrier", "identity (Shardy: a propagation barrier)", &Identity},
    {"xla.sdy.ShardingGroup", "nothing, returns () (Shardy: a sharding group)", &NoResult},
    {"xla.sdy.GlobalToLocalShape", "shard_map entry: identity when the shard is the whole array",
     &ManualRegionBoundary},
    {"xla.sdy.LocalToGlobalShape", "shard_map exit: identity when the shard is the whole array",
     &ManualRegionBoundary},
    // JAX's LAPACK targets (custom_call_lapack*.cc): a batch of column-major
    // matrices, the results LAPACK's routine of the same name returns.
    {"lapack_sgetrf_ffi", "LU with partial pivoting: (lu, pivots, info)", &LapackGetrf},
    {"lapack_dgetrf_ffi", "LU with partial pivoting: (lu, pivots, info)", &LapackGetrf},
    {"lapack_cgetrf_ffi", "LU with partial pivoting: (lu, pivots, info)", &LapackGetrf},
    {"lapack_zgetrf_ffi", "LU with partial pivoting: (lu, pivots, info)", &LapackGetrf},
    {"lapack_spotrf_ffi", "Cholesky, triangle `uplo`: (factor, info)", &LapackPotrf},
    {"lapack_dpotrf_ffi", "Cholesky, triangle `uplo`: (factor, info)", &LapackPotrf},
    {"lapack_cpotrf_ffi", "Cholesky, triangle `uplo`: (factor, info)", &LapackPotrf},
    {"lapack_zpotrf_ffi", "Cholesky, triangle `uplo`: (factor, info)", &LapackPotrf},
    {"lapack_sgeqrf_ffi", "Householder QR: (reflectors and R, tau)", &LapackGeqrf},
    {"lapack_dgeqrf_ffi", "Householder QR: (reflectors and R, tau)", &LapackGeqrf},
    {"lapack_cgeqrf_ffi", "Householder QR: (reflectors and R, tau)", &LapackGeqrf},
    {"lapack_zgeqrf_ffi", "Householder QR: (reflectors and R, tau)", &LapackGeqrf},
    {"lapack_sgeqp3_ffi", "QR with column pivoting: (reflectors and R, jpvt, tau)", &LapackGeqp3},
    {"lapack_dgeqp3_ffi", "QR with column pivoting: (reflectors and R, jpvt, tau)", &LapackGeqp3},
    {"lapack_cgeqp3_ffi", "QR with column pivoting: (reflectors and R, jpvt, tau)", &LapackGeqp3},
    {"lapack_zgeqp3_ffi", "QR with column pivoting: (reflectors and R, jpvt, tau)", &LapackGeqp3},
    {"lapack_sorgqr_ffi", "Q from geqrf's (reflectors, tau)", &LapackOrgqr},
    {"lapack_dorgqr_ffi", "Q from geqrf's (reflectors, tau)", &LapackOrgqr},
    {"lapack_cungqr_ffi", "Q from geqrf's (reflectors, tau)", &LapackOrgqr},
    {"lapack_zungqr_ffi", "Q from geqrf's (reflectors, tau)", &LapackOrgqr},
    {"lapack_strsm_ffi", "triangular solve op(a) x = alpha b or x op(a) = alpha b", &LapackTrsm},
    {"lapack_dtrsm_ffi", "triangular solve op(a) x = alpha b or x op(a) = alpha b", &LapackTrsm},
    {"lapack_ctrsm_ffi", "triangular solve op(a) x = alpha b or x op(a) = alpha b", &LapackTrsm},
    {"lapack_ztrsm_ffi", "triangular solve op(a) x = alpha b or x op(a) = alpha b", &LapackTrsm},
    {"lapack_sgtsv_ffi", "tridiagonal solve: (dl, d, du, x, info)", &LapackGtsv},
    {"lapack_dgtsv_ffi", "tridiagonal solve: (dl, d, du, x, info)", &LapackGtsv},
    {"lapack_cgtsv_ffi", "tridiagonal solve: (dl, d, du, x, info)", &LapackGtsv},
    {"lapack_zgtsv_ffi", "tridiagonal solve: (dl, d, du, x, info)", &LapackGtsv},
    {"lapack_sgehrd_ffi", "Hessenberg reduction: (H and reflectors, tau, info)", &LapackGehrd},
    {"lapack_dgehrd_ffi", "Hessenberg reduction: (H and reflectors, tau, info)", &LapackGehrd},
    {"lapack_cgehrd_ffi", "Hessenberg reduction: (H and reflectors, tau, info)", &LapackGehrd},
    {"lapack_zgehrd_ffi", "Hessenberg reduction: (H and reflectors, tau, info)", &LapackGehrd},
    {"lapack_ssytrd_ffi", "tridiagonal reduction: (reflectors, d, e, tau, info)", &LapackSytrd},
    {"lapack_dsytrd_ffi", "tridiagonal reduction: (reflectors, d, e, tau, info)", &LapackSytrd},
    {"lapack_chetrd_ffi", "tridiagonal reduction: (reflectors, d, e, tau, info)", &LapackSytrd},
    {"lapack_zhetrd_ffi", "tridiagonal reduction: (reflectors, d, e, tau, info)", &LapackSytrd},
    {"lapack_sgees_ffi", "Schur form: (T, vs, wr, wi, selected, info)", &LapackGees},
    {"lapack_dgees_ffi", "Schur form: (T, vs, wr, wi, selected, info)", &LapackGees},
    {"lapack_cgees_ffi", "Schur form: (T, vs, w, selected, info)", &LapackGees},
    {"lapack_zgees_ffi", "Schur form: (T, vs, w, selected, info)", &LapackGees},
    // jaxlib's earlier names of the same trsm kernels.
    {"blas_strsm_ffi", "triangular solve (as lapack_strsm_ffi)", &LapackTrsm},
    {"blas_dtrsm_ffi", "triangular solve (as lapack_dtrsm_ffi)", &LapackTrsm},
    {"blas_ctrsm_ffi", "triangular solve (as lapack_ctrsm_ffi)", &LapackTrsm},
    {"blas_ztrsm_ffi", "triangular solve (as lapack_ztrsm_ffi)", &LapackTrsm},
    {"lapack_ssyevd_ffi", "symmetric eigendecomposition: (vectors, values, info)", &LapackSyevd},
    {"lapack_dsyevd_ffi", "symmetric eigendecomposition: (vectors, values, info)", &LapackSyevd},
    {"lapack_cheevd_ffi", "Hermitian eigendecomposition: (vectors, values, info)", &LapackSyevd},
    {"lapack_zheevd_ffi", "Hermitian eigendecomposition: (vectors, values, info)", &LapackSyevd},
    {"lapack_sgesdd_ffi", "SVD, divide and conquer: (a, s, u, vt, info)", &LapackGesdd},
    {"lapack_dgesdd_ffi", "SVD, divide and conquer: (a, s, u, vt, info)", &LapackGesdd},
    {"lapack_cgesdd_ffi", "SVD, divide and conquer: (a, s, u, vt, info)", &LapackGesdd},
    {"lapack_zgesdd_ffi", "SVD, divide and conquer: (a, s, u, vt, info)", &LapackGesdd},
    {"lapack_sgesvd_ffi", "SVD, QR iteration: (a, s, u, vt, info)", &LapackGesvd},
    {"lapack_dgesvd_ffi", "SVD, QR iteration: (a, s, u, vt, info)", &LapackGesvd},
    {"lapack_cgesvd_ffi", "SVD, QR iteration: (a, s, u, vt, info)", &LapackGesvd},
    {"lapack_zgesvd_ffi", "SVD, QR iteration: (a, s, u, vt, info)", &LapackGesvd},
    {"lapack_sgeev_ffi", "general eigendecomposition: (wr, wi, vl, vr, info)", &LapackGeev},
    {"lapack_dgeev_ffi", "general eigendecomposition: (wr, wi, vl, vr, info)", &LapackGeev},
    {"lapack_cgeev_ffi", "general eigendecomposition: (w, vl, vr, info)", &LapackGeev},
    {"lapack_zgeev_ffi", "general eigendecomposition: (w, vl, vr, info)", &LapackGeev},
};

}  // namespace

const CustomCallTarget* FindCustomCallTarget(absl::string_view name) {
  for (const CustomCallTarget& t : kTargets)
    if (name == t.name) return &t;
  return nullptr;
}

std::vector<const CustomCallTarget*> AllCustomCallTargets() {
  std::vector<const CustomCallTarget*> out;
  for (const CustomCallTarget& t : kTargets) out.push_back(&t);
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return absl::string_view(a->name) < b->name; });
  return out;
}

bool IsIdentityCustomCall(const Instruction& instr) {
  if (instr.opcode() != Opcode::kCustomCall) return false;
  const std::string* target = instr.GetAttr<std::string>("custom_call_target");
  const CustomCallTarget* t = target ? FindCustomCallTarget(*target) : nullptr;
  return t != nullptr && t->fn == &Identity;
}

bool ForwardsOperand(const Instruction& instr) {
  if (instr.operands().size() != 1 || !(instr.operand(0)->shape() == instr.shape())) return false;
  switch (instr.opcode()) {
    case Opcode::kCopy:
    case Opcode::kBitcast:
      return true;
    case Opcode::kCustomCall:
      return IsIdentityCustomCall(instr);
    default:
      return false;
  }
}

}  // namespace hlo::cpu
