#include "backend_cpu/custom_call.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace hlo::cpu {
namespace {

// AWS Neuron's marker for moving a tensor into device memory with a static
// ring: numerically the identity on its single operand.
absl::StatusOr<Literal> Identity(const Instruction& instr, absl::Span<const Literal* const> ops,
                                 OpContext&) {
  if (ops.size() != 1) return OpError(instr, "expects exactly one operand");
  if (!ops[0]->shape().Compatible(instr.shape()))
    return OpError(instr, "result shape differs from the operand's");
  if (!instr.shape().IsArray()) return *ops[0];
  return ToLayout(*ops[0], instr.shape().layout());
}

// gelu with the tanh approximation (PyTorch's approximate='tanh'):
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), computed in double and
// rounded to the element type.
absl::StatusOr<Literal> GeluApproxTanh(const Instruction& instr,
                                       absl::Span<const Literal* const> ops, OpContext&) {
  if (ops.empty()) return OpError(instr, "expects an operand");
  const Literal& x = *ops[0];
  if (!x.shape().IsArray() || !IsFloat(x.shape().element_type()))
    return OpError(instr, "expects a floating-point array operand");
  if (!instr.shape().IsArray() || !x.shape().Compatible(instr.shape()))
    return OpError(instr, "result shape differs from the operand's");
  Literal out = x;
  const double k = std::sqrt(2.0 / M_PI);
  for (int64_t i = 0, n = out.physical_count(); i < n; ++i) {
    double v = x.GetDouble(i);
    out.SetDouble(i, 0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v))));
  }
  return ToLayout(std::move(out), instr.shape().layout());
}

const CustomCallTarget kTargets[] = {
    {"AwsNeuronGeluApprxTanh", "gelu, tanh approximation, elementwise on operand 0",
     &GeluApproxTanh},
    {"AwsNeuronTransferWithStaticRing", "identity (a device-memory transfer marker)", &Identity},
};

}  // namespace

const CustomCallTarget* FindCustomCallTarget(absl::string_view name) {
  for (const CustomCallTarget& t : kTargets)
    if (name == t.name) return &t;
  return nullptr;
}

std::vector<const CustomCallTarget*> AllCustomCallTargets() {
  std::vector<const CustomCallTarget*> out;
  for (const CustomCallTarget& t : kTargets) out.push_back(&t);
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return absl::string_view(a->name) < b->name; });
  return out;
}

}  // namespace hlo::cpu
