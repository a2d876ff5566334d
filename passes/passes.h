// Factories of the structural passes (one .cc each, XLA's names). See
// docs/passes.md for what each rewrites.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace hlo {

std::unique_ptr<Pass> CreateDcePass();                          // dce
std::unique_ptr<Pass> CreateCsePass();                          // cse
std::unique_ptr<Pass> CreateTupleSimplifierPass();              // tuple-simplifier
std::unique_ptr<Pass> CreateCallInlinerPass();                  // call-inliner
std::unique_ptr<Pass> CreateFlattenCallGraphPass();             // flatten-call-graph
std::unique_ptr<Pass> CreateComputationDeduplicatorPass();      // computation-deduplicator
std::unique_ptr<Pass> CreateDynamicPadderPass();                // dynamic-padder
std::unique_ptr<Pass> CreateZeroSizedHloEliminationPass();      // zero_sized_hlo_elimination
std::unique_ptr<Pass> CreateConditionalSimplifierPass();        // simplify-conditional
std::unique_ptr<Pass> CreateSortSimplifierPass();               // simplify-sorts
std::unique_ptr<Pass> CreateWhileLoopSimplifierPass();          // simplify-while-loops
std::unique_ptr<Pass> CreateWhileLoopInvariantCodeMotionPass(); // while-loop-invariant-code-motion
std::unique_ptr<Pass> CreateReshapeMoverPass();                 // reshape-mover
std::unique_ptr<Pass> CreateBatchNormExpanderPass();            // batchnorm_expander
std::unique_ptr<Pass> CreateMaterializeElidedConstantsPass();  // materialize-elided-constants
std::unique_ptr<Pass> CreateTransposeFoldingPass();             // transpose-folding
std::unique_ptr<Pass> CreateLayoutSinkPass();                   // layout-sink
std::unique_ptr<Pass> CreateFusionPass();                       // fusion

}  // namespace hlo
