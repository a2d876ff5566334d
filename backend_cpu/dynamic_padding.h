// Gives set-dimension-size its meaning on a backend that
// runs static shapes (XLA's DynamicPadder does the same job). An array
// keeps its bound's storage; a dimension whose runtime size was set below
// the bound holds padding past that size, which later ops must ignore:
//   - reduce: every input is masked along its dynamic reduced dimensions
//     with the reduction's init value, select(iota < size, x, init);
//   - dot: a dynamic contracting dimension is masked with zeros;
//   - sort along a dynamic dimension: an extra in-bounds operand and a
//     comparator that orders the elements inside the size first;
//   - get-dimension-size of a dynamic dimension becomes the size itself.
// Sizes travel with the values through elementwise ops, broadcast,
// transpose, copy, tuples and get-tuple-element, and reshapes that keep the
// dimension whole. When every
// use of a dynamic dimension was handled, set-dimension-size is replaced
// by its operand and the dynamic flags of the shapes it reached are
// cleared (the module is static again). When some use is not handled (an
// op this pass does not know, a call boundary, the computation's result),
// the set-dimension-size instructions stay and the executor says that
// those uses read the whole bound (docs/ops-data-movement.md).
// Executable applies it to a copy of any module holding set-dimension-size;
// the `dynamic-padder` pass (passes/dynamic_padder.cc, first in -O) shows
// the rewrite.
#pragma once

#include "ir/module.h"

namespace hlo::cpu {

bool HasSetDimensionSize(const Module& module);
// Rewrites `module` as above; true if anything changed.
bool PadDynamicDimensions(Module& module);

}  // namespace hlo::cpu
