#include "gen/shrink.h"

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "ir/printer.h"
#include "parser/parser.h"

namespace hlo::gen {
namespace {

// The module printed again after `edit` changed its entry computation; the
// entry layout is derived anew (the parameters changed).
template <typename Edit>
absl::StatusOr<std::string> Rewrite(const std::string& text, Edit edit) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  if (!m.ok()) return m.status();
  Computation* entry = (*m)->entry();
  if (!edit(entry)) return absl::NotFoundError("nothing to change");
  entry->RemoveDeadInstructions();
  (*m)->header().entry_computation_layout.reset();
  return PrintModule(**m);
}

absl::StatusOr<std::string> ReplaceWithParameter(const std::string& text, const std::string& name) {
  return Rewrite(text, [&](Computation* entry) {
    Instruction* inst = entry->FindInstruction(name);
    if (inst == nullptr || inst->opcode() == Opcode::kParameter || !inst->control_predecessors().empty())
      return false;
    auto p = std::make_unique<Instruction>(Opcode::kParameter, absl::StrCat(name, "_arg"), inst->shape());
    p->set_parameter_number(entry->num_parameters());
    Instruction* param = entry->AddInstruction(std::move(p));
    if (!inst->ReplaceAllUsesWith(param).ok()) return false;
    if (entry->root() == inst) entry->set_root(param);
    return true;
  });
}

absl::StatusOr<std::string> RootToOperand(const std::string& text, int64_t i) {
  return Rewrite(text, [&](Computation* entry) {
    Instruction* root = entry->root();
    if (i >= root->operand_count()) return false;
    entry->set_root(root->operand(i));
    return true;
  });
}

}  // namespace

std::string ShrinkModule(const std::string& text, const std::function<bool(const std::string&)>& still_fails) {
  std::string cur = text;
  for (bool changed = true; changed;) {
    changed = false;
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(cur);
    if (!m.ok()) break;
    std::vector<std::string> names;
    std::vector<Instruction*> order = (*m)->entry()->MakePostOrder();
    for (auto it = order.rbegin(); it != order.rend(); ++it) names.push_back((*it)->name());
    const int64_t root_operands = (*m)->entry()->root()->operand_count();
    std::vector<absl::StatusOr<std::string>> candidates;
    for (int64_t i = 0; i < root_operands; ++i) candidates.push_back(RootToOperand(cur, i));
    for (const std::string& name : names) candidates.push_back(ReplaceWithParameter(cur, name));
    for (absl::StatusOr<std::string>& c : candidates) {
      // Each edit removes a non-parameter instruction, so this ends.
      if (!c.ok() || *c == cur) continue;
      if (still_fails(*c)) {
        cur = *std::move(c);
        changed = true;
        break;
      }
    }
  }
  return cur;
}

}  // namespace hlo::gen
