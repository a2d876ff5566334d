// `dot-canonicalize` (like XLA's DotDecomposer): rewrites every dot into
// the canonical form [batch..., M, K] x [batch..., K, N] -> [batch..., M, N]
// (batch dims first and in order, one contracting dim, one free dim per
// side) with transposes/reshapes of the operands and a reshape of the
// result back to the original shape. Canonical dots are left alone.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace hlo {

std::unique_ptr<Pass> CreateDotCanonicalizePass();  // dot-canonicalize

}  // namespace hlo
