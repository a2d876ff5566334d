// `algsimp`: algebraic simplification (XLA's AlgebraicSimplifier). A set of
// local rewrite rules, each exact for every input value (signed zeros and
// integer wrap-around included; NaN payloads/signs are not preserved, as in
// XLA), applied to a fixed point. docs/passes-algsimp.md lists every rule.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace hlo {

std::unique_ptr<Pass> CreateAlgebraicSimplifierPass();  // algsimp

}  // namespace hlo
