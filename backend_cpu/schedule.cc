#include "backend_cpu/schedule.h"

#include <cstddef>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace hlo::cpu {
namespace {

// Updates operand 0 in place when it dies there (ops_data_movement.cc).
bool UpdatesInPlace(const Instruction& x) {
  return x.opcode() == Opcode::kDynamicUpdateSlice || x.opcode() == Opcode::kScatter;
}

// Bound on the in-place ops considered: each costs one walk over the graph.
constexpr int kMaxInPlaceOps = 512;

using Edges = absl::flat_hash_map<const Instruction*, std::vector<const Instruction*>>;

// Everything reachable from `from` along users, control successors and
// the extra edges added so far (extra_successors[x]: runs after x).
absl::flat_hash_set<const Instruction*> Descendants(const Instruction* from, const Edges& extra_successors) {
  absl::flat_hash_set<const Instruction*> seen = {from};
  std::vector<const Instruction*> stack = {from};
  auto push = [&](const Instruction* y) {
    if (seen.insert(y).second) stack.push_back(y);
  };
  while (!stack.empty()) {
    const Instruction* x = stack.back();
    stack.pop_back();
    for (const Instruction* u : x->users()) push(u);
    for (const Instruction* s : x->control_successors()) push(s);
    if (auto it = extra_successors.find(x); it != extra_successors.end())
      for (const Instruction* s : it->second) push(s);
  }
  return seen;
}

}  // namespace

std::vector<const Instruction*> ScheduleForInPlaceUpdates(const Computation& computation) {
  const std::vector<Instruction*> base = computation.MakePostOrder();
  // extra_preds[x]: readers of x's updated operand that must run before x.
  Edges extra_preds, extra_successors;
  int considered = 0;
  for (const Instruction* x : base) {
    if (!UpdatesInPlace(*x) || x->operand_count() == 0) continue;
    const Instruction* updated = x->operand(0);
    if (updated->users().size() < 2) continue;
    if (++considered > kMaxInPlaceOps) break;
    // An edge reader -> x is safe when x does not already reach reader
    // (through real or earlier extra edges): no cycle can form. The edges
    // added below end at x, so they leave x's descendants unchanged.
    const absl::flat_hash_set<const Instruction*> after_x = Descendants(x, extra_successors);
    for (const Instruction* reader : updated->users()) {
      if (reader == x || reader->parent() != &computation || after_x.contains(reader)) continue;
      extra_preds[x].push_back(reader);
      extra_successors[reader].push_back(x);
    }
  }
  if (extra_preds.empty()) return {base.begin(), base.end()};

  // DFS in the base order, each instruction after its operands, control
  // predecessors and extra predecessors.
  std::vector<const Instruction*> order;
  order.reserve(base.size());
  absl::flat_hash_set<const Instruction*> done;
  std::vector<std::pair<const Instruction*, size_t>> stack;
  auto deps_of = [&](const Instruction* x, size_t k) -> const Instruction* {
    const size_t n_ops = x->operands().size();
    const size_t n_ctl = x->control_predecessors().size();
    if (k < n_ops) return x->operands()[k];
    if (k < n_ops + n_ctl) return x->control_predecessors()[k - n_ops];
    auto it = extra_preds.find(x);
    if (it == extra_preds.end() || k - n_ops - n_ctl >= it->second.size()) return nullptr;
    return it->second[k - n_ops - n_ctl];
  };
  for (const Instruction* start : base) {
    if (!done.insert(start).second) continue;
    stack.push_back({start, 0});
    while (!stack.empty()) {
      auto& [x, next] = stack.back();
      const Instruction* dep = deps_of(x, next);
      if (dep != nullptr) {
        ++next;
        if (done.insert(dep).second) stack.push_back({dep, 0});
      } else {
        order.push_back(x);
        stack.pop_back();
      }
    }
  }
  return order;
}

}  // namespace hlo::cpu
