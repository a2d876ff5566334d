// Registry of custom-call targets the CPU backend can run. A custom-call
// whose target is not registered is a clear error naming the target (never
// a silent wrong answer). docs/semantics.md (Custom calls) lists what each
// computes.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "backend_cpu/op_eval.h"

namespace hlo::cpu {

struct CustomCallTarget {
  const char* name;
  const char* description;
  OpEvalFn fn;
};

// nullptr when `name` is not registered.
const CustomCallTarget* FindCustomCallTarget(absl::string_view name);
// Every registered target, sorted by name.
std::vector<const CustomCallTarget*> AllCustomCallTargets();

// True when `instr` returns its single operand's value unchanged in the same
// shape and layout: identity custom-call targets (transfer and placement
// markers), `copy`, and `bitcast` to the identical shape. The executor
// passes such values on instead of copying them.
bool ForwardsOperand(const Instruction& instr);

// A custom call whose target returns its operand unchanged (markers such as
// AwsNeuronTransferWithStaticRing, Sharding), whatever the layouts.
bool IsIdentityCustomCall(const Instruction& instr);

}  // namespace hlo::cpu
