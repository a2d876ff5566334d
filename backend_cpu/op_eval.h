// The interface between the executor (backend_cpu/executor.h) and the op
// families. Every opcode is evaluated by one family function:
//
//   absl::StatusOr<Literal> EvalXxx(const Instruction& instr,
//                                   absl::Span<const Literal* const> operands,
//                                   OpContext& ctx);
//
// `operands[i]` is the value of instr.operand(i), a Literal whose shape is
// that operand's shape (with its layout, possibly tiled). The returned
// literal must have exactly instr.shape() (layout included): compute in
// whatever order is convenient and finish with ToLayout(result, shape).
// Errors are absl::Status (never abort): InvalidArgument for bad input,
// Unimplemented naming the op/type/attribute that has no implementation.
//
// Which family evaluates which opcode is decided by FamilyOf() in
// op_dispatch.cc, from the opcode table's attribute family.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backend_cpu/elementwise_kernels.h"
#include "ir/computation.h"
#include "ir/instruction.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace hlo::cpu {

class CollectiveHub;  // collectives.h: rendezvous of the replicas of one run
class ChannelHub;     // send/recv, infeed/outfeed queues of one run
class FusionPlans;    // fusion_exec.h: fusions that run by blocks of rows
class DecodedConstants;  // decoded_constants.h: narrow dot constants packed as f32

// Per-run, per-replica state handed to every op.
struct OpContext {
  // Runs a computation on argument values (map, reduce, sort, while, call,
  // conditional, custom-call to_apply, ...). Re-entrant.
  std::function<absl::StatusOr<Literal>(const Computation& computation,
                                        absl::Span<const Literal* const> args)>
      call;
  // The same, handing the arguments over: the computation may move from
  // them (a while loop's state, updated in place trip after trip).
  std::function<absl::StatusOr<Literal>(const Computation& computation,
                                        absl::Span<Literal> args)>
      call_owned;
  int64_t replica_id = 0;
  int64_t partition_id = 0;
  int64_t replica_count = 1;
  int64_t partition_count = 1;
  CollectiveHub* collectives = nullptr;
  ChannelHub* channels = nullptr;
  // State of `rng` / `rng-get-and-update-state` (deterministic per run).
  uint64_t* rng_state = nullptr;
  // Non-empty notes a run wants shown on stderr once (e.g. elided constants).
  std::vector<std::string>* notes = nullptr;
  // Compiled fusions of the module; null: every fusion runs op by op.
  const FusionPlans* fusion_plans = nullptr;
  // Narrow constants of dots packed as f32 once; null: none.
  const DecodedConstants* decoded_constants = nullptr;
  // While-loop trips this device may still run (RunOptions::max_while_trips);
  // null: unbounded. Atomic: a kernel may call a computation holding a loop
  // from several pool threads.
  std::atomic<int64_t>* while_trips_left = nullptr;
};

using OpEvalFn = absl::StatusOr<Literal> (*)(const Instruction& instr,
                                             absl::Span<const Literal* const> operands,
                                             OpContext& ctx);

// ---- the families (one or more files each) ----
// elementwise (ops_elementwise.cc): every IsElementwise opcode but map.
absl::StatusOr<Literal> EvalElementwise(const Instruction&, absl::Span<const Literal* const>, OpContext&);
// data movement (ops_data_movement*.cc): broadcast, reshape, dynamic-reshape,
// transpose, slice, dynamic-slice, dynamic-update-slice, concatenate, pad,
// reverse, iota, gather, scatter, get-dimension-size, set-dimension-size.
absl::StatusOr<Literal> EvalDataMovement(const Instruction&, absl::Span<const Literal* const>, OpContext&);
// reductions (ops_reduction.cc, ops_reduce.cc, ops_sort.cc, ops_scan.cc):
// reduce, reduce-window, select-and-scatter, map, sort, topk, scan.
absl::StatusOr<Literal> EvalReduction(const Instruction&, absl::Span<const Literal* const>, OpContext&);
// linear algebra (ops_dot.cc, ops_scaled_dot.cc, ops_fft.cc, ops_linalg.cc,
// ops_batchnorm.cc):
// dot, ragged-dot, scaled-dot, convolution, fft, cholesky,
// triangular-solve, batch-norm-*.
absl::StatusOr<Literal> EvalLinalg(const Instruction&, absl::Span<const Literal* const>, OpContext&);
// structural and control (ops_control.cc): constant, parameter-less values,
// tuple, get-tuple-element, call, fusion, while, conditional, after-all,
// add-dependency, opt-barrier, domain, copy-start/done, async-*, bitcast,
// rng, rng-bit-generator, rng-get-and-update-state, replica-id,
// partition-id, custom-call.
absl::StatusOr<Literal> EvalControl(const Instruction&, absl::Span<const Literal* const>, OpContext&);
// bitcast-convert (ops_bitcast_convert.cc), dispatched by the control family.
absl::StatusOr<Literal> EvalBitcastConvert(const Instruction&, absl::Span<const Literal* const>, OpContext&);
// collectives and channels (ops_collective.cc): all-reduce, all-gather,
// all-to-all, reduce-scatter, collective-permute, collective-broadcast,
// their -start/-done forms, send/recv(-done), infeed, outfeed.
absl::StatusOr<Literal> EvalCollective(const Instruction&, absl::Span<const Literal* const>, OpContext&);
// ragged-all-to-all (ops_ragged_all_to_all.cc), dispatched by the collective family.
absl::StatusOr<Literal> EvalRaggedAllToAll(const Instruction&, absl::Span<const Literal* const>, OpContext&);

// The family function of an opcode.
OpEvalFn FamilyOf(Opcode op);

// The members of the linear-algebra family that EvalLinalg (ops_linalg.cc)
// dispatches to: dot, ragged-dot and convolution (ops_dot.cc), scaled-dot
// (ops_scaled_dot.cc), fft (ops_fft.cc), batch-norm-* (ops_batchnorm.cc).
// A rank-1 literal of type `t` holding `indices` converted as iota converts
// them (pred: index != 0; integers wrap; floats round to nearest even;
// complex: (index, 0)). Shared by iota and the fused kernels' iota rows.
absl::StatusOr<Literal> IotaValues(PrimitiveType t, absl::Span<const int64_t> indices);

// f32_packed: per operand, PackDotOperandAsF32 of it made beforehand, or null.
absl::StatusOr<Literal> LinalgEvalDot(const Instruction&, absl::Span<const Literal* const>,
                                      absl::Span<const Literal* const> f32_packed = {});
// The f32 matrix a dot packs its narrow float operand `side` into each run
// ([batch][rows][cols] row-major), made once (DecodedConstants).
absl::StatusOr<Literal> PackDotOperandAsF32(const Instruction& dot, int side, const Literal& operand);
absl::StatusOr<Literal> LinalgEvalRaggedDot(const Instruction&, absl::Span<const Literal* const>);
absl::StatusOr<Literal> LinalgEvalScaledDot(const Instruction&, absl::Span<const Literal* const>);
absl::StatusOr<Literal> LinalgEvalConvolution(const Instruction&, absl::Span<const Literal* const>);
absl::StatusOr<Literal> LinalgEvalFft(const Instruction&, absl::Span<const Literal* const>);
absl::StatusOr<Literal> LinalgEvalBatchNorm(const Instruction&, absl::Span<const Literal* const>);

// ---- helpers shared by the families (op_util.cc) ----

// The kernel-selecting attributes of an elementwise instruction (compare's
// direction and type, reduce-precision's bits); ops_elementwise.cc.
absl::StatusOr<ElementwiseAttrs> ElementwiseAttrsOf(const Instruction& instr);

// `lit` with its array storage in `layout` order (a cheap move when it
// already is). Tuples are returned unchanged.
Literal ToLayout(Literal lit, const Layout& layout);
// lit.Relayout(layout) with the copy split over the thread pool.
Literal RelayoutOnPool(const Literal& lit, const Layout& layout);
// `lit` converted to `shape`'s layouts, recursing into tuples (values whose
// structure does not match `shape` are returned unchanged).
Literal ConformLayouts(Literal lit, const Shape& shape);
// The default (row-major, untiled) layout of `shape`'s rank.
Layout RowMajorLayout(int64_t rank);
// A row-major view of an operand: returns `lit` itself when its layout is
// already row-major and untiled, else a relaid copy kept in `*storage`.
// True for an untiled layout with dimensions from major to minor (or rank 0).
bool IsRowMajor(const Shape& shape);
const Literal& RowMajor(const Literal& lit, Literal* storage);
// A zero-filled literal of `shape` but with a row-major layout (compute into
// it, then ToLayout(result, shape.layout())).
Literal RowMajorLiteral(const Shape& shape);
// The same with unspecified contents, for kernels that write every element.
Literal RowMajorUninitialized(const Shape& shape);
// memcpy of `bytes` bytes in 1 MiB blocks over the thread pool (bitcast
// and collective copies: no zero fill, no per-element work).
void CopyBytesOnPool(uint8_t* dst, const uint8_t* src, size_t bytes);
// Row-major strides (in elements) of `dims`.
std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims);
// Puts OpenBLAS (BLAS and its LAPACK) in single-threaded mode, once per
// process, before a kernel's first call into it: OpenBLAS's own threading
// would make results depend on its thread count.
void UseSingleThreadedBlas();
// "op-name: message" error helpers naming the instruction.
absl::Status OpError(const Instruction& instr, absl::string_view message);
absl::Status OpUnimplemented(const Instruction& instr, absl::string_view what);

// A called computation (reducer, combiner, comparator) of two scalar
// parameters whose root is `op(p0, p1)` or `op(p1, p0)` of them, every
// value a scalar of one element type: `add(x, y)` and its kin. Kernels that
// recognise it run a typed loop instead of calling the computation per
// element.
struct BinaryOfParameters {
  Opcode op = Opcode::kAdd;
  bool swapped = false;  // root is op(p1, p0)
  PrimitiveType type = PrimitiveType::kInvalid;
  // Whether `op` is one of `ops` (those a kernel handles).
  bool OpIsOneOf(std::initializer_list<Opcode> ops) const {
    return std::find(ops.begin(), ops.end(), op) != ops.end();
  }
};
// Matches `c` against that form; `type` restricts the element type
// (kInvalid: any). Empty when `c` is null or has another form.
std::optional<BinaryOfParameters> MatchBinaryOfParameters(const Computation* c,
                                                           PrimitiveType type = PrimitiveType::kInvalid);

}  // namespace hlo::cpu
