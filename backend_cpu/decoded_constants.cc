#include "backend_cpu/decoded_constants.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"

#include "backend_cpu/ew_narrow_blocks.h"
#include "backend_cpu/op_eval.h"

namespace hlo::cpu {
namespace {

// A dot whose other side has at most this many free elements (rows of a
// decode step, a batch-1 layer) decodes about as much as it multiplies.
constexpr int64_t kSkinnyOtherSide = 256;
// Operands below this many elements cost less to decode than to look up.
constexpr int64_t kMinElements = 1024;
// Bound on the bytes all packed matrices of one module take.
constexpr int64_t kMaxBytes = int64_t{256} << 20;

// Elements of `shape` outside the dims listed in `batch` and `contracting`.
int64_t FreeElements(const Shape& shape, const std::vector<int64_t>& batch,
                     const std::vector<int64_t>& contracting) {
  int64_t n = 1;
  for (int64_t d = 0; d < shape.rank(); ++d)
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) == contracting.end())
      n *= shape.dim(d);
  return n;
}

using Callers = absl::flat_hash_map<const Computation*, std::vector<const Instruction*>>;

// The constant a dot operand always holds: the operand itself, or, for a
// parameter of a fused computation that only fusions call, the constant
// every one of them passes in that place (a dot under its epilogue whose
// weight is a constant outside the fusion). Null otherwise.
const Instruction* ConstantBehind(const Instruction* operand, const Computation* computation,
                                  const Callers& callers) {
  if (operand->opcode() == Opcode::kConstant) return operand->has_literal() ? operand : nullptr;
  if (operand->opcode() != Opcode::kParameter) return nullptr;
  auto it = callers.find(computation);
  if (it == callers.end()) return nullptr;
  const int64_t number = operand->parameter_number();
  const Instruction* found = nullptr;
  for (const Instruction* caller : it->second) {
    if (caller->opcode() != Opcode::kFusion || number < 0 || number >= caller->operand_count()) return nullptr;
    const Instruction* passed = caller->operand(number);
    if (passed->opcode() != Opcode::kConstant || !passed->has_literal() ||
        (found != nullptr && found != passed))
      return nullptr;
    found = passed;
  }
  return found;
}

}  // namespace

DecodedConstants::DecodedConstants(const Module& module) {
  Callers callers;
  for (const Computation* c : module.computations())
    for (const Instruction* instr : c->instructions())
      for (const Computation* callee : instr->called_computations()) callers[callee].push_back(instr);
  for (const Computation* c : module.computations())
    for (const Instruction* dot : c->instructions()) {
      if (dot->opcode() != Opcode::kDot || dot->operand_count() != 2 || !dot->shape().IsArray()) continue;
      const std::vector<int64_t> side_batch[2] = {dot->AttrOr<std::vector<int64_t>>("lhs_batch_dims", {}),
                                                  dot->AttrOr<std::vector<int64_t>>("rhs_batch_dims", {})};
      const std::vector<int64_t> side_contracting[2] = {
          dot->AttrOr<std::vector<int64_t>>("lhs_contracting_dims", {}),
          dot->AttrOr<std::vector<int64_t>>("rhs_contracting_dims", {})};
      for (int side = 0; side < 2; ++side) {
        const Instruction* constant = ConstantBehind(dot->operand(side), c, callers);
        const Instruction* other = dot->operand(1 - side);
        if (constant == nullptr || !(constant->shape().dims() == dot->operand(side)->shape().dims())) continue;
        const Literal& value = constant->literal();
        const Shape& shape = value.shape();
        if (!shape.IsArray() || !shape.layout().tiles.empty() || !other->shape().IsArray() ||
            !IsBlockConvertible(shape.element_type()) ||
            value.physical_count() < kMinElements ||
            FreeElements(other->shape(), side_batch[1 - side], side_contracting[1 - side]) > kSkinnyOtherSide)
          continue;
        const int64_t bytes = value.physical_count() * 4;  // the packed matrix holds every element
        if (bytes_ + bytes > kMaxBytes) continue;
        absl::StatusOr<Literal> packed = PackDotOperandAsF32(*dot, side, value);
        if (!packed.ok()) continue;  // the dot reports its own errors when it runs
        bytes_ += bytes;
        packed_.emplace(std::make_pair(dot, side), std::move(*packed));
      }
    }
}

const Literal* DecodedConstants::Find(const Instruction* dot, int side) const {
  auto it = packed_.find(std::make_pair(dot, side));
  return it == packed_.end() ? nullptr : &it->second;
}

}  // namespace hlo::cpu
