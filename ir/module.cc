#include "ir/module.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace hlo {

Computation* Module::AddComputation(std::unique_ptr<Computation> comp) {
  comp->parent_ = this;
  computations_.push_back(std::move(comp));
  InvalidateCallGraph();
  return computations_.back().get();
}

absl::Status Module::RemoveComputation(Computation* comp) {
  if (comp == entry_) return absl::FailedPreconditionError("cannot remove the entry computation");
  for (const auto& c : computations_) {
    for (Instruction* inst : c->instructions()) {
      for (Computation* called : inst->called_computations()) {
        if (called == comp)
          return absl::FailedPreconditionError(
              absl::StrCat("computation ", comp->name(), " is still called by ", inst->name()));
      }
    }
  }
  auto it = std::find_if(computations_.begin(), computations_.end(),
                         [&](const auto& p) { return p.get() == comp; });
  if (it == computations_.end()) return absl::NotFoundError(comp->name());
  computations_.erase(it);
  InvalidateCallGraph();
  return absl::OkStatus();
}

absl::Status Module::RemoveComputations(const absl::flat_hash_set<const Computation*>& comps) {
  if (comps.contains(entry_)) return absl::FailedPreconditionError("cannot remove the entry computation");
  for (const auto& c : computations_) {
    if (comps.contains(c.get())) continue;
    for (Instruction* inst : c->instructions())
      for (Computation* called : inst->called_computations())
        if (comps.contains(called))
          return absl::FailedPreconditionError(absl::StrCat(
              "computation ", called->name(), " is still called by ", inst->name()));
  }
  computations_.erase(std::remove_if(computations_.begin(), computations_.end(),
                                     [&](const auto& p) { return comps.contains(p.get()); }),
                      computations_.end());
  InvalidateCallGraph();
  return absl::OkStatus();
}

std::vector<Computation*> Module::computations() const {
  std::vector<Computation*> out;
  for (const auto& c : computations_) out.push_back(c.get());
  return out;
}

Computation* Module::FindComputation(absl::string_view name) const {
  for (const auto& c : computations_)
    if (c->name() == name) return c.get();
  return nullptr;
}

std::vector<Computation*> Module::MakeComputationPostOrder() const {
  std::lock_guard<std::mutex> lock(order_mu_);
  if (order_generation_ != call_graph_generation_) {
    order_cache_ = ComputeComputationPostOrder();
    order_generation_ = call_graph_generation_;
  }
  return order_cache_;
}

std::vector<Computation*> Module::ComputeComputationPostOrder() const {
  std::vector<Computation*> order;
  absl::flat_hash_set<Computation*> visited;
  std::vector<std::pair<Computation*, std::vector<Computation*>>> stack;
  auto callees = [](Computation* c) {
    std::vector<Computation*> out;
    for (Instruction* inst : c->instructions())
      for (Computation* callee : inst->called_computations()) out.push_back(callee);
    return out;
  };
  auto visit = [&](Computation* start) {
    if (!visited.insert(start).second) return;
    stack.push_back({start, callees(start)});
    std::vector<size_t> next{0};
    while (!stack.empty()) {
      auto& [comp, cs] = stack.back();
      size_t& i = next.back();
      if (i < cs.size()) {
        Computation* callee = cs[i++];
        if (visited.insert(callee).second) {
          stack.push_back({callee, callees(callee)});
          next.push_back(0);
        }
      } else {
        order.push_back(comp);
        stack.pop_back();
        next.pop_back();
      }
    }
  };
  for (const auto& c : computations_)
    if (c.get() != entry_) visit(c.get());
  if (entry_) visit(entry_);
  return order;
}

}  // namespace hlo
