// flatten-call-graph: gives every sequential call site (call, while,
// conditional) its own computation. A computation called from more than one
// site is cloned (`name.clone`, `name.clone.1`, ...) for each sequential
// site but the first; when it is also called from embedded sites (to_apply
// of reduce, map, sort, ...), every sequential site gets a clone. Clones
// are processed too, so the result is a tree for sequential calls.
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

bool IsSequential(Opcode op) {
  return op == Opcode::kCall || op == Opcode::kWhile || op == Opcode::kConditional;
}

struct Site {
  Instruction* inst;
  size_t attr;  // attribute position
  int64_t elem; // element within a computation list (-1 for a single computation)
};

std::vector<Site> SitesOf(const Module& module, const Computation* target) {
  std::vector<Site> out;
  for (Computation* c : module.MakeComputationPostOrder()) {
    for (Instruction* inst : c->MakePostOrder()) {
      const auto& attrs = inst->attrs();
      for (size_t a = 0; a < attrs.size(); ++a) {
        if (auto* cp = std::get_if<Computation*>(&attrs[a].second)) {
          if (*cp == target) out.push_back({inst, a, -1});
        } else if (auto* cs = std::get_if<std::vector<Computation*>>(&attrs[a].second)) {
          for (size_t k = 0; k < cs->size(); ++k)
            if ((*cs)[k] == target) out.push_back({inst, a, static_cast<int64_t>(k)});
        }
      }
    }
  }
  return out;
}

void Retarget(const Site& s, Computation* to) {
  auto attrs = s.inst->attrs();
  if (s.elem < 0) {
    attrs[s.attr].second = to;
  } else {
    std::get<std::vector<Computation*>>(attrs[s.attr].second)[s.elem] = to;
  }
  s.inst->set_attrs(std::move(attrs));
}

class FlattenCallGraph : public Pass {
 public:
  absl::string_view name() const override { return "flatten-call-graph"; }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    passes::NameUniquer comp_names(module);
    // Callers before callees, so a clone's own callees are seen afterwards.
    std::vector<Computation*> order = module.MakeComputationPostOrder();
    for (size_t i = order.size(); i-- > 0;) {
      Computation* c = order[i];
      if (c == module.entry()) continue;
      std::vector<Site> sites = SitesOf(module, c);
      if (sites.size() < 2) continue;
      bool embedded = false;
      for (const Site& s : sites) embedded |= !IsSequential(s.inst->opcode());
      bool keep_first = !embedded;
      bool cloned_here = false;
      for (const Site& s : sites) {
        if (!IsSequential(s.inst->opcode())) continue;
        if (keep_first) {
          keep_first = false;
          continue;
        }
        std::unique_ptr<Computation> clone = c->Clone(comp_names.Get(c->name() + ".clone"));
        Computation* added = module.AddComputation(std::move(clone));
        Retarget(s, added);
        cloned_here = true;
      }
      if (cloned_here) {
        changed = true;
        // New clones call the same callees: recompute the order and restart
        // below the current position (clones are callers of c's callees).
        order = module.MakeComputationPostOrder();
        i = order.size();
        // Restarting is safe: processed computations now have one site.
      }
    }
    if (changed) passes::UnshareAsyncComputations(module);
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateFlattenCallGraphPass() { return std::make_unique<FlattenCallGraph>(); }

}  // namespace hlo
