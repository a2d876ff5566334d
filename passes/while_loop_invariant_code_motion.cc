// while-loop-invariant-code-motion: instructions of a while body that
// depend only on loop-invariant state elements (element j whose body
// root value is get-tuple-element(param, j)) and constants, have no side
// effects and no control edges, are computed once before the loop. Their
// values enter the loop as new state elements appended to the tuple (the
// loop's users keep seeing the old elements). As XLA, instructions that
// are not worth hoisting on their own (bitcast, broadcast, reshape,
// transpose, reverse, slice, tuple, get-tuple-element, iota) move only
// when a user of theirs moves too, and instructions that depend on
// constants alone stay.
#include <algorithm>
#include <functional>

#include "passes/pass_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

Computation* Attr(const Instruction& w, absl::string_view name) {
  Computation* const* c = w.GetAttr<Computation*>(name);
  return c ? *c : nullptr;
}

bool NotWorthHoistingAlone(Opcode op) {
  switch (op) {
    case Opcode::kBitcast:
    case Opcode::kBroadcast:
    case Opcode::kReshape:
    case Opcode::kTranspose:
    case Opcode::kReverse:
    case Opcode::kSlice:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kIota:
    case Opcode::kConstant:
      return true;
    default:
      return false;
  }
}

bool OnlyGteUsers(const Instruction& p) {
  if (p.parent() && p.parent()->root() == &p) return false;
  for (const Instruction* u : p.users())
    if (u->opcode() != Opcode::kGetTupleElement) return false;
  return true;
}

class WhileLicm : public Pass {
 public:
  absl::string_view name() const override { return "while-loop-invariant-code-motion"; }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    passes::NameUniquer comp_names(module);
    for (Computation* comp : module.MakeComputationPostOrder()) {
      for (Instruction* w : comp->MakePostOrder()) {
        absl::StatusOr<bool> c = Hoist(module, comp_names, w);
        if (!c.ok()) return c.status();
        changed |= *c;
      }
    }
    if (changed) passes::RemoveUnreachableComputations(module);
    if (changed) passes::UnshareAsyncComputations(module);
    return changed;
  }

 private:
  absl::StatusOr<bool> Hoist(Module& module, passes::NameUniquer& comp_names, Instruction* w) {
    if (w->opcode() != Opcode::kWhile || !w->shape().IsTuple()) return false;
    if (!w->control_predecessors().empty() || !w->control_successors().empty()) return false;
    Computation* body = Attr(*w, "body");
    Computation* cond = Attr(*w, "condition");
    if (body == nullptr || cond == nullptr || body->num_parameters() != 1 || cond->num_parameters() != 1)
      return false;
    if (body->execution_thread() != w->parent()->execution_thread()) return false;
    if (!OnlyGteUsers(*body->parameter(0)) || !OnlyGteUsers(*cond->parameter(0))) return false;
    const Instruction* broot = body->root();
    const int64_t n = w->shape().tuple_size();
    if (broot->opcode() != Opcode::kTuple || broot->operand_count() != n) return false;

    // Analysis on the original body (names identify instructions in the clone).
    const Instruction* bparam = body->parameter(0);
    absl::flat_hash_set<const Instruction*> invariant, hoist, param_dependent;
    for (int64_t j = 0; j < n; ++j) {
      const Instruction* r = broot->operand(j);
      if (r->opcode() == Opcode::kGetTupleElement && r->operand(0) == bparam &&
          r->AttrOr<int64_t>("index", -1) == j) {
        for (const Instruction* g : bparam->users())
          if (g->AttrOr<int64_t>("index", -1) == j && g->control_predecessors().empty()) {
            invariant.insert(g);
            param_dependent.insert(g);
          }
      }
    }
    if (invariant.empty()) return false;
    std::vector<Instruction*> order = body->MakePostOrder();
    for (const Instruction* inst : order) {
      if (inst->opcode() == Opcode::kConstant && inst->control_predecessors().empty() &&
          inst->control_successors().empty()) {
        invariant.insert(inst);
        continue;
      }
      if (invariant.contains(inst) || inst->opcode() == Opcode::kParameter || inst == broot) continue;
      if (inst->operand_count() == 0 || inst->shape().IsToken()) continue;
      if (!inst->control_predecessors().empty() || !inst->control_successors().empty()) continue;
      if (passes::HasSideEffectDeep(*inst)) continue;
      bool ok = true, dep = false;
      for (const Instruction* o : inst->operands()) {
        if (!invariant.contains(o)) ok = false;
        if (param_dependent.contains(o)) dep = true;
      }
      if (!ok) continue;
      invariant.insert(inst);
      if (dep) {
        param_dependent.insert(inst);
        hoist.insert(inst);
      }
    }
    // Drop cheap instructions none of whose users move (users first).
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const Instruction* inst = *it;
      if (!hoist.contains(inst) || !NotWorthHoistingAlone(inst->opcode())) continue;
      bool user_moves = false;
      for (const Instruction* u : inst->users()) user_moves |= hoist.contains(u);
      if (!user_moves) hoist.erase(inst);
    }
    if (hoist.empty()) return false;

    // Hoisted values used by instructions that stay become state elements.
    std::vector<const Instruction*> outputs;
    for (const Instruction* inst : order) {
      if (!hoist.contains(inst)) continue;
      bool outside = inst == broot;
      for (const Instruction* u : inst->users()) outside |= !hoist.contains(u);
      if (outside) outputs.push_back(inst);
    }

    // Clone the hoisted instructions before the loop.
    Computation* comp = w->parent();
    passes::NameUniquer names(*comp);
    Instruction* init = w->operand(0);
    absl::flat_hash_map<const Instruction*, Instruction*> outer;
    std::function<Instruction*(const Instruction*)> outer_value = [&](const Instruction* v) -> Instruction* {
      auto it = outer.find(v);
      if (it != outer.end()) return it->second;
      Instruction* made;
      if (v->opcode() == Opcode::kGetTupleElement && v->operand(0) == bparam) {
        int64_t j = v->AttrOr<int64_t>("index", 0);
        made = init->opcode() == Opcode::kTuple ? init->operand(j) : passes::AddGte(comp, names, init, j);
      } else {
        // Depends on constants alone (a constant, or e.g. a broadcast of
        // one, which stays in the body): copied together with its operands.
        std::vector<Instruction*> ops;
        for (const Instruction* o : v->operands()) ops.push_back(outer_value(o));
        made = passes::CopyInstruction(*v, comp, names, ops);
      }
      outer[v] = made;
      return made;
    };
    for (const Instruction* inst : order) {
      if (!hoist.contains(inst)) continue;
      std::vector<Instruction*> ops;
      for (const Instruction* o : inst->operands()) ops.push_back(outer_value(o));
      outer[inst] = passes::CopyInstruction(*inst, comp, names, ops);
    }

    // New state shape and init.
    std::vector<Shape> elems = w->shape().tuple_shapes();
    for (const Instruction* o : outputs) elems.push_back(o->shape());
    const Shape new_shape = Shape::Tuple(elems);
    std::vector<Instruction*> init_elems;
    for (int64_t k = 0; k < n; ++k)
      init_elems.push_back(init->opcode() == Opcode::kTuple ? init->operand(k)
                                                            : passes::AddGte(comp, names, init, k));
    for (const Instruction* o : outputs) init_elems.push_back(outer.at(o));
    Instruction* new_init = passes::AddTuple(comp, names, init_elems);

    // New body: the hoisted outputs are read from the new elements.
    Computation* nb = module.AddComputation(body->Clone(comp_names.Get(body->name())));
    {
      passes::NameUniquer bnames(*nb);
      Instruction* p = nb->parameter(0);
      p->set_shape(new_shape);
      std::vector<Instruction*> extra;
      for (size_t k = 0; k < outputs.size(); ++k) {
        Instruction* inside = nb->FindInstruction(outputs[k]->name());
        Instruction* g = passes::AddGte(nb, bnames, p, n + static_cast<int64_t>(k));
        absl::Status st = inside->ReplaceAllUsesWith(g);
        if (!st.ok()) return st;
        extra.push_back(g);
      }
      Instruction* old_root = nb->root();
      std::vector<Instruction*> ops = old_root->operands();
      ops.insert(ops.end(), extra.begin(), extra.end());
      nb->set_root(passes::AddTuple(nb, bnames, ops));
      passes::RemoveIfDead(old_root);
      for (auto it = order.rbegin(); it != order.rend(); ++it)
        if (hoist.contains(*it))
          if (Instruction* inside = nb->FindInstruction((*it)->name())) passes::RemoveIfDead(inside);
    }
    Computation* nc = module.AddComputation(cond->Clone(comp_names.Get(cond->name())));
    nc->parameter(0)->set_shape(new_shape);

    Instruction* nw = passes::CopyInstruction(*w, comp, names, {new_init});
    nw->set_shape(new_shape);
    nw->SetAttr("condition", nc);
    nw->SetAttr("body", nb);
    if (OnlyGteUsers(*w)) {
      std::vector<Instruction*> users = w->users();
      for (Instruction* g : users) g->ReplaceOperand(0, nw);
    } else {
      std::vector<Instruction*> gtes;
      for (int64_t k = 0; k < n; ++k) gtes.push_back(passes::AddGte(comp, names, nw, k));
      absl::Status st = w->ReplaceAllUsesWith(passes::AddTuple(comp, names, gtes));
      if (!st.ok()) return st;
    }
    absl::Status st = comp->RemoveInstruction(w);
    if (!st.ok()) return st;
    if (init->opcode() == Opcode::kTuple) passes::RemoveIfDead(init);
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateWhileLoopInvariantCodeMotionPass() { return std::make_unique<WhileLicm>(); }

}  // namespace hlo
