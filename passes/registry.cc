#include "passes/registry.h"

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "passes/passes.h"

// Passes with their own headers (algebraic simplification and friends).
#include "passes/algsimp.h"
#include "passes/constant_folding.h"
#include "passes/dot_canonicalize.h"

namespace hlo {
namespace {

// The one table. Keep each description to one line.
const PassInfo kPasses[] = {
    {"algsimp", "algebraic simplification: exact local rewrite rules (docs/passes-algsimp.md)",
     &CreateAlgebraicSimplifierPass},
    {"batchnorm_expander",
     "rewrites batch-norm-training/inference/grad into elementwise, reduce and broadcast ops",
     &CreateBatchNormExpanderPass},
    {"call-inliner", "inlines every (non-composite) call instruction", &CreateCallInlinerPass},
    {"computation-deduplicator", "merges structurally identical non-entry computations",
     &CreateComputationDeduplicatorPass},
    {"constant_folding", "replaces instructions whose operands are all constants by their value",
     &CreateConstantFoldingPass},
    {"cse", "merges identical side-effect-free instructions (common subexpression elimination)",
     &CreateCsePass},
    {"dce", "removes dead side-effect-free instructions and unreachable computations",
     &CreateDcePass},
    {"dot-canonicalize", "rewrites dots into [batch..., M, K] x [batch..., K, N] canonical form",
     &CreateDotCanonicalizePass},
    {"dynamic-padder",
     "set-dimension-size: reductions and dots ignore the padding past a runtime size; static shapes again",
     &CreateDynamicPadderPass},
    {"flatten-call-graph", "clones computations called from several call/while/conditional sites",
     &CreateFlattenCallGraphPass},
    {"fusion",
     "groups elementwise producers, reductions and dot epilogues into kLoop/kInput/kOutput fusions",
     &CreateFusionPass},
    {"layout-sink",
     "a dot or fft whose only user relays or transposes it writes that layout itself; an fft reads "
     "through a transpose of its operand",
     &CreateLayoutSinkPass},
    {"materialize-elided-constants",
     "writes out the values hlo-run gives elided {...} constants, so other runners see them",
     &CreateMaterializeElidedConstantsPass},
    {"reshape-mover", "sinks reshapes/transposes below elementwise ops whose operands agree",
     &CreateReshapeMoverPass},
    {"simplify-conditional", "inlines conditionals with a constant predicate/index or one branch",
     &CreateConditionalSimplifierPass},
    {"simplify-sorts", "removes sort operands whose results are unused and not compared",
     &CreateSortSimplifierPass},
    {"simplify-while-loops",
     "removes dead while state elements, loops that never run and inlines loops that run once",
     &CreateWhileLoopSimplifierPass},
    {"transpose-folding", "dots read transposed operands directly (dimension numbers remapped)",
     &CreateTransposeFoldingPass},
    {"tuple-simplifier", "folds get-tuple-element(tuple) and tuple(get-tuple-element...)",
     &CreateTupleSimplifierPass},
    {"while-loop-invariant-code-motion", "hoists loop-invariant instructions out of while bodies",
     &CreateWhileLoopInvariantCodeMotionPass},
    {"zero_sized_hlo_elimination", "replaces side-effect-free zero-element arrays by constants",
     &CreateZeroSizedHloEliminationPass},
};

}  // namespace

const PassInfo* FindPass(absl::string_view name) {
  for (const PassInfo& p : kPasses)
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<const PassInfo*> AllPasses() {
  std::vector<const PassInfo*> out;
  for (const PassInfo& p : kPasses) out.push_back(&p);
  std::sort(out.begin(), out.end(), [](const PassInfo* a, const PassInfo* b) { return a->name < b->name; });
  return out;
}

absl::StatusOr<std::unique_ptr<Pass>> CreatePass(absl::string_view name) {
  const PassInfo* info = FindPass(name);
  if (info == nullptr)
    return absl::NotFoundError(absl::StrCat("unknown pass '", name, "' (see --list-passes)"));
  return info->factory();
}

}  // namespace hlo
