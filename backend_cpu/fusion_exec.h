// Fused execution: a fusion instruction whose computation splits into rows
// (fusion_rows.h) runs as one kernel. Whole values (parameters, constants,
// spread scalars and vectors, a dot under its epilogue) are taken or
// computed once; then every block of rows is computed from start to end --
// each row op on the block in a per-thread scratch buffer that stays in
// cache, the root written straight into the result -- so every operand is
// read once and the result written once. Blocks are fixed by the row count
// (never by the thread count) and each row op uses the same kernel and
// association order as the unfused op, so results are bit-identical to the
// op-by-op run at any number of threads.
//
// Fusions that do not split run op by op through their computation, as
// before (same values, no fusion speed-up).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backend_cpu/op_eval.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace hlo::cpu {

class FusionPlan;  // fusion_plan.h

// The plans of every fusion of a module, built once before a run and then
// read-only (shared by the device threads).
class FusionPlans {
 public:
  explicit FusionPlans(const Module& module);
  ~FusionPlans();
  // The plan of a fusion's called computation; null when it runs op by op.
  const FusionPlan* Find(const Computation* fused) const;
  // Why `fused` runs op by op (empty when it has a plan or is unknown).
  std::string WhyNotFused(const Computation* fused) const;
  // "fused computation %NAME runs op by op: REASON" for each fusion
  // without a plan, sorted (hlo-run --profile shows them).
  std::vector<std::string> OpByOpNotes() const;
  // The instruction of the module that `instr`, an instruction of a
  // rewritten (widened) fused computation, was copied from; else `instr`.
  // Per-instruction data made for the module (a dot's decoded constants)
  // is found by it.
  const Instruction* OriginalOf(const Instruction* instr) const;

 private:
  absl::flat_hash_map<const Computation*, std::unique_ptr<FusionPlan>> plans_;
  absl::flat_hash_map<const Computation*, std::string> reasons_;
  // The bf16 fusions rewritten to compute in f32 (fusion_widen_bf16.h):
  // their plans point into these.
  std::vector<std::unique_ptr<Computation>> widened_;
  absl::flat_hash_map<const Instruction*, const Instruction*> origins_;
};

// Compiles `fused` into a plan, or says why it cannot run by rows.
absl::StatusOr<std::unique_ptr<FusionPlan>> MakeFusionPlan(const Computation& fused);

// OK when `fused` runs by rows, else why it runs op by op.
absl::Status CanRunByRows(const Computation& fused);

// The plan's row ops in order, one word each ("elementwise", "copy",
// "splat", "reduce", "alias", "invariant-row", "row-scalar", "iota-outer";
// "elementwise-scalar": one operand is a spread scalar read as one
// element), space separated: for tests and diagnostics.
std::string DescribeFusionPlan(const FusionPlan& plan);

// How the plan runs its blocks, for tests and diagnostics: whether it is
// lean (every step an elementwise kernel over whole blocks, a splat or an
// alias: small blocks with pointers resolved once), the rows of a block and
// the rows a thread takes at a time; the runs of elementwise steps computed
// chunk by chunk, those of them a row reduce ends, and the values that live
// in one chunk-sized slot.
struct FusionPlanBlocks {
  bool lean = false;
  int64_t block_rows = 0;
  int64_t parallel_rows = 0;
  int64_t chunk_runs = 0;
  int64_t chunk_runs_ending_in_reduce = 0;
  int64_t chunk_local_values = 0;
};
FusionPlanBlocks DescribeFusionBlocks(const FusionPlan& plan);

// Runs `fusion` (whose computation `plan` was made from) on its operands.
absl::StatusOr<Literal> RunFusionPlan(const FusionPlan& plan, const Instruction& fusion,
                                      absl::Span<const Literal* const> operands, OpContext& ctx);

}  // namespace hlo::cpu
