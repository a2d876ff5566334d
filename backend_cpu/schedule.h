// The order in which the executor runs a computation's instructions.
#pragma once

#include <vector>

#include "ir/computation.h"

namespace hlo::cpu {

// A post order (operands and control predecessors first) that runs the
// other readers of an array that a dynamic-update-slice or scatter
// updates before that op whenever they do not depend on it, so that the op
// reads the array last and may update it in place instead of copying it
// (a decode step's KV cache: the attention reads the old cache, the
// scatter writes the new token; XLA's scheduler and copy insertion aim at
// the same). Otherwise the computation's own post order, unchanged.
std::vector<const Instruction*> ScheduleForInPlaceUpdates(const Computation& computation);

}  // namespace hlo::cpu
