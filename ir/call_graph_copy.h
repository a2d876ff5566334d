// Deep copies of a computation and everything it calls into another
// module: how a pass evaluates an instruction in a scratch module
// (constant folding) and how hlo-opt --extract builds a standalone one.
#pragma once

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "ir/module.h"

namespace hlo {

using ComputationMap = absl::flat_hash_map<const Computation*, Computation*>;

// Copies `comp` and, first, every computation it calls into `dst`, each
// once (`map` remembers the copies), so callees precede callers in `dst`'s
// text order. A copy is named `comp->name() + suffix + N` (N = how many
// were copied before) if `suffix` is not empty, else keeps its name.
Computation* CopyCallGraph(const Computation* comp, Module& dst, ComputationMap& map,
                           const std::string& suffix = "");

// A deep copy of `module`: header, every computation (names kept, callees
// before callers) and the entry; not the source text kept for diagnostics.
std::unique_ptr<Module> CloneModule(const Module& module);

}  // namespace hlo
