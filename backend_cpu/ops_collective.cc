// Placeholder: the collective family is being written; every op of it reports a
// clear "not implemented" error until then.
#include "backend_cpu/op_eval.h"

namespace hlo::cpu {

absl::StatusOr<Literal> EvalCollective(const Instruction& instr, absl::Span<const Literal* const>,
                                        OpContext&) {
  return OpUnimplemented(instr, "op");
}

}  // namespace hlo::cpu
