#include "analysis/dot_graph.h"

#include <deque>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "ir/computation.h"
#include "ir/printer.h"

namespace hlo {
namespace {

// A Graphviz double-quoted string: quotes and backslashes escaped. Label
// line breaks are written by the caller as "\n" escapes.
std::string Q(absl::string_view s) {
  return absl::StrCat("\"", absl::StrReplaceAll(s, {{"\\", "\\\\"}, {"\"", "\\\""}, {"\n", "\\n"}}),
                      "\"");
}

const char* FillColor(const Instruction& i) {
  switch (i.opcode()) {
    case Opcode::kParameter: return "#d9ead3";
    case Opcode::kConstant: return "#eeeeee";
    case Opcode::kTuple:
    case Opcode::kGetTupleElement: return "#fff2cc";
    case Opcode::kDot:
    case Opcode::kConvolution: return "#f4cccc";
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCall:
    case Opcode::kFusion: return "#cfe2f3";
    default: return "#ffffff";
  }
}

class DotWriter {
 public:
  DotWriter(const Module& m, const DotOptions& o) : module_(m), opts_(o) {}

  absl::StatusOr<std::string> Run() {
    std::vector<Computation*> comps = module_.computations();
    for (Computation* c : comps)
      for (Instruction* i : c->instructions()) ids_[i] = absl::StrCat("n", ids_.size());
    if (!opts_.focus.empty()) {
      const Instruction* center = nullptr;
      for (Computation* c : comps)
        if (center == nullptr) center = c->FindInstruction(opts_.focus);
      if (center == nullptr)
        return absl::NotFoundError(absl::StrCat("--focus: no instruction named '", opts_.focus, "'"));
      SelectNeighbourhood(center);
    }
    absl::StrAppend(&out_, "digraph ", Q(module_.name()), " {\n",
                    "  compound=true;\n  newrank=true;\n",
                    "  node [shape=box, style=\"rounded,filled\", fontname=\"monospace\", fontsize=10];\n",
                    "  edge [fontname=\"monospace\", fontsize=8];\n");
    for (const Computation* c : comps) WriteCluster(*c);
    for (const Computation* c : comps) WriteEdges(*c);
    out_ += "}\n";
    return out_;
  }

 private:
  bool Shown(const Instruction* i) const { return opts_.focus.empty() || shown_.contains(i); }

  // Breadth-first over operands, users and control edges, within the
  // focused instruction's computation.
  void SelectNeighbourhood(const Instruction* center) {
    std::deque<std::pair<const Instruction*, int>> queue{{center, 0}};
    shown_.insert(center);
    while (!queue.empty()) {
      auto [i, d] = queue.front();
      queue.pop_front();
      if (d == opts_.radius) continue;
      auto visit = [&](const std::vector<Instruction*>& list) {
        for (const Instruction* n : list)
          if (shown_.insert(n).second) queue.push_back({n, d + 1});
      };
      visit(i->operands());
      visit(i->users());
      visit(i->control_predecessors());
      visit(i->control_successors());
    }
  }

  // Whether a shown instruction has a neighbour that is not shown.
  bool CutOff(const Instruction* i) const {
    if (opts_.focus.empty()) return false;
    for (const auto* list : {&i->operands(), &i->users()})
      for (const Instruction* n : *list)
        if (!shown_.contains(n)) return true;
    return false;
  }

  std::string Label(const Instruction& i) const {
    std::string head = absl::StrCat(i.name(), "\n", OpcodeName(i.opcode()));
    if (i.opcode() == Opcode::kParameter) absl::StrAppend(&head, "(", i.parameter_number(), ")");
    if (i.opcode() == Opcode::kGetTupleElement) absl::StrAppend(&head, " [", i.AttrOr<int64_t>("index", 0), "]");
    if (i.opcode() == Opcode::kConstant && i.has_literal() && i.shape().IsArray() &&
        i.shape().ElementCount() == 1)
      absl::StrAppend(&head, " ", LiteralValueToString(i.literal()));
    return absl::StrCat(head, "\n", ShapeToString(i.shape(), opts_.show_layouts));
  }

  void WriteCluster(const Computation& c) {
    std::vector<Instruction*> instrs;
    for (Instruction* i : c.instructions())
      if (Shown(i)) instrs.push_back(i);
    if (instrs.empty()) return;
    const bool entry = &c == module_.entry();
    const bool fused = IsFusionComputation(c);
    const std::string title = absl::StrCat(entry ? "ENTRY " : fused ? "fusion " : "", "computation ", c.name());
    absl::StrAppend(&out_, "  subgraph ", Q(absl::StrCat("cluster_", c.name())), " {\n    label=", Q(title),
                    ";\n    style=\"rounded,filled\";\n    fillcolor=", Q(entry ? "#fafafa" : fused ? "#eef5fb" : "#f5f5f5"),
                    ";\n");
    for (const Instruction* i : instrs) {
      std::string attrs = absl::StrCat("label=", Q(Label(*i)), ", tooltip=", Q(PrintInstruction(*i)),
                                       ", fillcolor=", Q(FillColor(*i)));
      if (i == c.root()) absl::StrAppend(&attrs, ", penwidth=2");
      if (CutOff(i)) absl::StrAppend(&attrs, ", style=\"rounded,filled,dashed\"");
      if (!opts_.focus.empty() && i->name() == opts_.focus) absl::StrAppend(&attrs, ", color=\"#cc0000\"");
      absl::StrAppend(&out_, "    ", ids_.at(i), " [", attrs, "];\n");
    }
    out_ += "  }\n";
  }

  bool IsFusionComputation(const Computation& c) {
    if (fusion_callees_.empty()) {
      fusion_callees_.insert(nullptr);  // computed once
      for (const Computation* comp : module_.computations())
        for (const Instruction* i : comp->instructions())
          if (i->opcode() == Opcode::kFusion)
            for (const Computation* callee : i->called_computations()) fusion_callees_.insert(callee);
    }
    return fusion_callees_.contains(&c);
  }

  void WriteEdges(const Computation& c) {
    for (const Instruction* i : c.instructions()) {
      if (!Shown(i)) continue;
      const bool numbered = i->operand_count() > 1;
      for (int64_t k = 0; k < i->operand_count(); ++k) {
        const Instruction* op = i->operand(k);
        if (!Shown(op)) continue;
        absl::StrAppend(&out_, "  ", ids_.at(op), " -> ", ids_.at(i));
        if (numbered) absl::StrAppend(&out_, " [label=\"", k, "\"]");
        out_ += ";\n";
      }
      for (const Instruction* s : i->control_successors())
        if (Shown(s))
          absl::StrAppend(&out_, "  ", ids_.at(i), " -> ", ids_.at(s),
                          " [style=dashed, color=\"#cc0000\", label=\"control\"];\n");
      for (const Computation* callee : i->called_computations()) {
        const Instruction* root = callee->root();
        if (root == nullptr || !Shown(root)) continue;
        absl::StrAppend(&out_, "  ", ids_.at(i), " -> ", ids_.at(root), " [style=dotted, lhead=",
                        Q(absl::StrCat("cluster_", callee->name())), ", label=", Q(callee->name()),
                        ", constraint=false];\n");
      }
    }
  }

  const Module& module_;
  const DotOptions& opts_;
  std::string out_;
  absl::flat_hash_map<const Instruction*, std::string> ids_;
  absl::flat_hash_set<const Instruction*> shown_;
  absl::flat_hash_set<const Computation*> fusion_callees_;
};

}  // namespace

absl::StatusOr<std::string> EmitDot(const Module& module, const DotOptions& options) {
  return DotWriter(module, options).Run();
}

}  // namespace hlo
