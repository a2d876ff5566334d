// `constant_folding` (XLA's HloConstantFolding): replaces side-effect-free
// instructions whose operands are all constants by a constant holding
// their value, computed by the CPU backend itself (so folded and run-time
// values are bit-identical). See docs/passes-algsimp.md for what is skipped.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace hlo {

std::unique_ptr<Pass> CreateConstantFoldingPass();  // constant_folding

}  // namespace hlo
