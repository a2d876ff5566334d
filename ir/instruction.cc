#include "ir/instruction.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/computation.h"
#include "ir/module.h"

namespace hlo {
namespace {

void EraseOne(std::vector<Instruction*>& v, Instruction* x) {
  auto it = std::find(v.begin(), v.end(), x);
  if (it != v.end()) v.erase(it);
}

void AddUnique(std::vector<Instruction*>& v, Instruction* x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

}  // namespace

const std::vector<Instruction*>& Instruction::NoInstructions() {
  static const std::vector<Instruction*>* const kNone = new std::vector<Instruction*>();
  return *kNone;
}

Instruction::Instruction(Opcode opcode, std::string name, Shape shape)
    : opcode_(opcode), name_(std::move(name)), shape_(std::move(shape)) {}

// `this` is in op->users_ exactly when op is among this->operands_; checking
// our own (short) operand list keeps edge insertion O(operands), not
// O(users), which matters for values with thousands of users.
// Edge edits change the parent's post order.
static void Invalidate(Instruction* inst) {
  if (inst != nullptr && inst->parent() != nullptr) inst->parent()->InvalidateOrder();
}

void Instruction::AppendOperand(Instruction* op) {
  Invalidate(this);
  Invalidate(op);
  bool already_user = std::find(operands_.begin(), operands_.end(), op) != operands_.end();
  operands_.push_back(op);
  if (!already_user) op->users_.push_back(this);
}

void Instruction::ReplaceOperand(int64_t i, Instruction* new_op) {
  Instruction* old = operands_[i];
  if (old == new_op) return;
  Invalidate(this);
  Invalidate(old);
  Invalidate(new_op);
  bool already_user = std::find(operands_.begin(), operands_.end(), new_op) != operands_.end();
  operands_[i] = new_op;
  if (std::find(operands_.begin(), operands_.end(), old) == operands_.end()) EraseOne(old->users_, this);
  if (!already_user) new_op->users_.push_back(this);
}

absl::Status Instruction::ReplaceAllUsesWith(Instruction* other) {
  if (other == this) return absl::OkStatus();
  if (!shape_.Compatible(other->shape_)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot replace uses of ", name_, " by ", other->name_, ": shapes differ"));
  }
  std::vector<Instruction*> users = users_;
  Invalidate(this);
  Invalidate(other);
  for (Instruction* user : users) {
    Invalidate(user);
    bool already_user =
        std::find(user->operands_.begin(), user->operands_.end(), other) != user->operands_.end();
    for (int64_t i = 0; i < user->operand_count(); ++i)
      if (user->operands_[i] == this) user->operands_[i] = other;
    if (!already_user) other->users_.push_back(user);
  }
  users_.clear();
  if (parent_ && parent_->root() == this) parent_->set_root(other);
  return absl::OkStatus();
}

void Instruction::RemoveAllOperands() {
  Invalidate(this);
  for (Instruction* op : operands_) Invalidate(op);
  for (Instruction* op : operands_) EraseOne(op->users_, this);
  operands_.clear();
}

void Instruction::AddControlDependencyTo(Instruction* successor) {
  Invalidate(this);
  Invalidate(successor);
  AddUnique(MutableControl().successors, successor);
  AddUnique(successor->MutableControl().predecessors, this);
}

void Instruction::RemoveControlDependencyTo(Instruction* successor) {
  Invalidate(this);
  Invalidate(successor);
  if (control_ == nullptr || successor->control_ == nullptr) return;
  EraseOne(control_->successors, successor);
  EraseOne(successor->control_->predecessors, this);
}

void Instruction::DropAllControlDeps() {
  Invalidate(this);
  if (control_ == nullptr) return;
  for (Instruction* p : control_->predecessors) Invalidate(p);
  for (Instruction* s : control_->successors) Invalidate(s);
  for (Instruction* p : control_->predecessors) EraseOne(p->control_->successors, this);
  for (Instruction* s : control_->successors) EraseOne(s->control_->predecessors, this);
  control_.reset();
}

const AttrValue* Instruction::FindAttr(absl::string_view name) const {
  for (const auto& [n, v] : attrs_)
    if (n == name) return &v;
  return nullptr;
}

void Instruction::SetAttr(absl::string_view name, AttrValue value) {
  for (auto& [n, v] : attrs_) {
    if (n == name) {
      v = std::move(value);
      UpdateCallsFlag();
      return;
    }
  }
  attrs_.emplace_back(std::string(name), std::move(value));
  UpdateCallsFlag();
}

void Instruction::RemoveAttr(absl::string_view name) {
  attrs_.erase(std::remove_if(attrs_.begin(), attrs_.end(),
                              [&](const auto& p) { return p.first == name; }),
               attrs_.end());
  UpdateCallsFlag();
}

void Instruction::UpdateCallsFlag() {
  // Called after every attribute edit: the module's call graph may change.
  if (parent_ != nullptr && parent_->parent() != nullptr) parent_->parent()->InvalidateCallGraph();
  may_call_ = false;
  for (const auto& [n, v] : attrs_)
    if (std::holds_alternative<Computation*>(v) || std::holds_alternative<std::vector<Computation*>>(v))
      may_call_ = true;
}

std::vector<Computation*> Instruction::called_computations() const {
  std::vector<Computation*> out;
  if (!may_call_) return out;
  for (const auto& [n, v] : attrs_) {
    if (auto* c = std::get_if<Computation*>(&v)) {
      if (*c) out.push_back(*c);
    } else if (auto* cs = std::get_if<std::vector<Computation*>>(&v)) {
      for (Computation* c2 : *cs) out.push_back(c2);
    }
  }
  return out;
}

void Instruction::ReplaceCalledComputation(Computation* from, Computation* to) {
  if (parent_ != nullptr && parent_->parent() != nullptr) parent_->parent()->InvalidateCallGraph();
  for (auto& [n, v] : attrs_) {
    if (auto* c = std::get_if<Computation*>(&v)) {
      if (*c == from) *c = to;
    } else if (auto* cs = std::get_if<std::vector<Computation*>>(&v)) {
      for (Computation*& c2 : *cs)
        if (c2 == from) c2 = to;
    }
  }
}

bool Instruction::IsRoot() const { return parent_ && parent_->root() == this; }

bool Instruction::HasSideEffect() const {
  if (hlo::HasSideEffect(opcode_)) return true;
  if (opcode_ == Opcode::kCustomCall) return AttrOr<bool>("custom_call_has_side_effect", false);
  return false;
}

}  // namespace hlo
