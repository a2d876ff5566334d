#include "ir/call_graph_copy.h"

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"

namespace hlo {

Computation* CopyCallGraph(const Computation* comp, Module& dst, ComputationMap& map,
                           const std::string& suffix) {
  auto it = map.find(comp);
  if (it != map.end()) return it->second;
  const std::string name = suffix.empty() ? comp->name() : absl::StrCat(comp->name(), suffix, map.size());
  std::unique_ptr<Computation> copy = comp->Clone(name);
  // Placeholder entry: a (invalid, cyclic) self-call stops here instead of
  // recursing; the real pointer replaces it below.
  map[comp] = nullptr;
  for (Instruction* i : copy->instructions())
    for (Computation* called : i->called_computations()) {
      Computation* callee = CopyCallGraph(called, dst, map, suffix);
      if (callee != nullptr) i->ReplaceCalledComputation(called, callee);
    }
  Computation* raw = dst.AddComputation(std::move(copy));
  map[comp] = raw;
  return raw;
}

std::unique_ptr<Module> CloneModule(const Module& module) {
  auto copy = std::make_unique<Module>(module.name());
  copy->header() = module.header();
  ComputationMap map;
  for (const Computation* comp : module.computations()) CopyCallGraph(comp, *copy, map);
  if (module.entry() != nullptr) copy->set_entry(map[module.entry()]);
  return copy;
}

}  // namespace hlo
