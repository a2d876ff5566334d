#include "ir/computation.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/module.h"

namespace hlo {

Instruction* Computation::AddInstruction(std::unique_ptr<Instruction> inst) {
  Instruction* raw = inst.get();
  raw->parent_ = this;
  raw->unique_id_ = next_id_++;
  raw->slot_ = static_cast<int64_t>(slots_.size());
  slots_.push_back(std::move(inst));
  ++live_;
  InvalidateOrder();
  if (parent_ != nullptr && !raw->called_computations().empty()) parent_->InvalidateCallGraph();
  if (raw->opcode() == Opcode::kParameter && raw->parameter_number() >= 0) {
    int64_t n = raw->parameter_number();
    if (static_cast<int64_t>(parameters_.size()) <= n) parameters_.resize(n + 1, nullptr);
    parameters_[n] = raw;
  }
  return raw;
}

absl::Status Computation::RemoveInstruction(Instruction* inst) {
  if (inst->user_count() != 0)
    return absl::FailedPreconditionError(absl::StrCat("cannot remove ", inst->name(), ": it has users"));
  if (inst == root_)
    return absl::FailedPreconditionError(absl::StrCat("cannot remove root ", inst->name()));
  if (inst->parent_ != this || inst->slot_ < 0 || inst->slot_ >= static_cast<int64_t>(slots_.size()) ||
      slots_[inst->slot_].get() != inst)
    return absl::NotFoundError(absl::StrCat(inst->name(), " is not in computation ", name_));
  inst->RemoveAllOperands();
  inst->DropAllControlDeps();
  if (inst->opcode() == Opcode::kParameter) {
    for (auto& p : parameters_)
      if (p == inst) p = nullptr;
  }
  if (parent_ != nullptr && !inst->called_computations().empty()) parent_->InvalidateCallGraph();
  slots_[inst->slot_].reset();
  --live_;
  InvalidateOrder();
  if (slots_.size() > 64 && static_cast<size_t>(live_) * 2 < slots_.size()) Compact();
  return absl::OkStatus();
}

absl::Status Computation::MoveAfter(Instruction* inst, const Instruction* anchor) {
  auto owned = [this](const Instruction* i) {
    return i != nullptr && i->parent_ == this && i->slot_ >= 0 &&
           i->slot_ < static_cast<int64_t>(slots_.size()) && slots_[i->slot_].get() == i;
  };
  if (!owned(inst) || !owned(anchor) || inst == anchor)
    return absl::InvalidArgumentError("MoveAfter: both instructions must be distinct members of " + name_);
  std::unique_ptr<Instruction> moving = std::move(slots_[inst->slot_]);
  slots_.erase(slots_.begin() + inst->slot_);
  slots_.insert(slots_.begin() + anchor->slot_ + (anchor->slot_ < inst->slot_ ? 1 : 0), std::move(moving));
  for (size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i]) slots_[i]->slot_ = static_cast<int64_t>(i);
  InvalidateOrder();
  return absl::OkStatus();
}

void Computation::Compact() {
  size_t out = 0;
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (!slots_[i]) continue;
    slots_[i]->slot_ = static_cast<int64_t>(out);
    if (out != i) slots_[out] = std::move(slots_[i]);
    ++out;
  }
  slots_.resize(out);
}

int64_t Computation::RemoveDeadInstructions() {
  int64_t removed = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    for (Instruction* inst : instructions()) {
      if (inst == root_ || inst->user_count() != 0 || inst->HasSideEffect() ||
          inst->opcode() == Opcode::kParameter || !inst->control_successors().empty())
        continue;
      if (RemoveInstruction(inst).ok()) {
        ++removed;
        changed = true;
      }
    }
  }
  return removed;
}

std::vector<Instruction*> Computation::instructions() const {
  std::vector<Instruction*> out;
  out.reserve(static_cast<size_t>(live_));
  for (const auto& p : slots_)
    if (p) out.push_back(p.get());
  return out;
}

std::vector<Instruction*> Computation::MakePostOrder() const {
  std::lock_guard<std::mutex> lock(order_mu_);
  if (order_generation_ != generation_) {
    order_cache_ = ComputePostOrder();
    order_generation_ = generation_;
  }
  return order_cache_;
}

std::vector<Instruction*> Computation::ComputePostOrder() const {
  std::vector<Instruction*> order;
  order.reserve(static_cast<size_t>(live_));
  // unique ids are dense per computation: a flag array, not a hash set.
  std::vector<char> visited(static_cast<size_t>(next_id_), 0);
  absl::flat_hash_set<const Instruction*> foreign;  // edges into other computations (invalid graphs)
  auto mark = [&](const Instruction* inst) {
    if (inst->parent() != this || inst->unique_id() < 0 || inst->unique_id() >= next_id_)
      return foreign.insert(inst).second;
    char& v = visited[static_cast<size_t>(inst->unique_id())];
    if (v) return false;
    v = 1;
    return true;
  };
  // Iterative DFS: (instruction, next edge index); edges = operands then control preds.
  std::vector<std::pair<Instruction*, size_t>> stack;
  auto visit = [&](Instruction* start) {
    if (!mark(start)) return;
    stack.push_back({start, 0});
    while (!stack.empty()) {
      auto& [inst, next] = stack.back();
      size_t n_ops = inst->operands().size();
      size_t n_all = n_ops + inst->control_predecessors().size();
      if (next < n_all) {
        Instruction* dep = next < n_ops ? inst->operands()[next] : inst->control_predecessors()[next - n_ops];
        ++next;
        if (mark(dep)) stack.push_back({dep, 0});
      } else {
        order.push_back(inst);
        stack.pop_back();
      }
    }
  };
  // Every instruction nobody depends on (and the root) starts a DFS, in
  // creation order, as XLA prints it.
  for (const auto& p : slots_) {
    if (!p) continue;
    Instruction* inst = p.get();
    if ((inst->users().empty() && inst->control_successors().empty()) || inst == root_) visit(inst);
  }
  // Anything unreachable from a user-less instruction (cycles) still gets printed.
  for (const auto& p : slots_)
    if (p) visit(p.get());
  return order;
}

Instruction* Computation::FindInstruction(absl::string_view name) const {
  for (const auto& p : slots_)
    if (p && p->name() == name) return p.get();
  return nullptr;
}

std::unique_ptr<Computation> Computation::Clone(const std::string& new_name) const {
  auto out = std::make_unique<Computation>(new_name);
  out->execution_thread_ = execution_thread_;
  out->loc_ = loc_;
  absl::flat_hash_map<const Instruction*, Instruction*> map;
  for (Instruction* inst : MakePostOrder()) {
    auto copy = std::make_unique<Instruction>(inst->opcode(), inst->name(), inst->shape());
    copy->set_loc(inst->loc());
    copy->set_parameter_number(inst->parameter_number());
    if (inst->has_literal()) copy->set_literal(inst->literal());
    for (const auto& [n, v] : inst->attrs()) copy->SetAttr(n, v);
    for (Instruction* op : inst->operands()) copy->AppendOperand(map.at(op));
    Instruction* raw = out->AddInstruction(std::move(copy));
    for (Instruction* pred : inst->control_predecessors()) map.at(pred)->AddControlDependencyTo(raw);
    map[inst] = raw;
  }
  if (root_) out->root_ = map.at(root_);
  return out;
}

}  // namespace hlo
