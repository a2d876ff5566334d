// hlo-opt --emit=dot: a module as a Graphviz graph. Every computation is a
// cluster (the entry, fusion computations and other callees styled apart);
// an edge per operand (numbered when an instruction has several), dashed
// red control edges, dotted edges from a calling instruction to the root
// of each computation it calls. With a focus, only the instructions
// within `radius` operand/user/control hops of one instruction are drawn;
// cut-off neighbours are marked (docs/hlo-opt-graph.md).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "ir/module.h"

namespace hlo {

struct DotOptions {
  bool show_layouts = false;  // shapes with their {minor-to-major} layout
  std::string focus;          // an instruction name; empty = whole module
  int radius = 2;             // hops around `focus`
};

// NotFound if `focus` names no instruction.
absl::StatusOr<std::string> EmitDot(const Module& module, const DotOptions& options);

}  // namespace hlo
