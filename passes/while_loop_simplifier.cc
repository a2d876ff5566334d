// simplify-while-loops (a subset of XLA's WhileLoopSimplifier):
//  * a loop whose condition is a constant false, or whose trip count is 0,
//    is replaced by its init value;
//  * a loop that runs exactly once (trip count 1 by the simple induction
//    pattern below) is replaced by its body inlined on the init value;
//  * dead tuple elements of the loop state are removed: element j goes
//    when no user of the loop reads it (every user is a
//    get-tuple-element), the condition does not read it, and in the body
//    the values computed from it (side-effect free) only flow into element
//    j of the root tuple.
// Trip count pattern: init is a tuple whose element i is an integer
// constant c0; the body root is a tuple whose element i is
// add(gte(param, i), constant step) (either operand order); the condition
// root is compare(gte(param, i), constant limit) (either order) and the
// condition has no side effects. s32/s64/u32/u64 counters only.
// Loops containing send/recv are left alone (as XLA).
#include <optional>

#include "absl/strings/str_cat.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

Computation* Attr(const Instruction& w, absl::string_view name) {
  Computation* const* c = w.GetAttr<Computation*>(name);
  return c ? *c : nullptr;
}

std::optional<int64_t> ScalarIntConstant(const Instruction* i) {
  if (i->opcode() != Opcode::kConstant || !i->has_literal() || !i->shape().IsScalar()) return std::nullopt;
  switch (i->shape().element_type()) {
    case PrimitiveType::S32:
    case PrimitiveType::S64:
    case PrimitiveType::U32:
    case PrimitiveType::U64:
      break;
    default:
      return std::nullopt;
  }
  if (i->literal().elided()) return std::nullopt;
  return i->literal().GetInt(0);
}

bool FitsType(PrimitiveType t, int64_t v) {
  switch (t) {
    case PrimitiveType::S32: return v >= INT32_MIN && v <= INT32_MAX;
    case PrimitiveType::U32: return v >= 0 && v <= static_cast<int64_t>(UINT32_MAX);
    case PrimitiveType::U64: return v >= 0;
    default: return true;
  }
}

bool IsGteOf(const Instruction* i, const Instruction* tuple, int64_t index) {
  return i->opcode() == Opcode::kGetTupleElement && i->operand(0) == tuple &&
         i->AttrOr<int64_t>("index", -1) == index;
}

// 0 or 1 when known; nullopt otherwise (including "2 or more").
std::optional<int64_t> SmallTripCount(const Instruction& w) {
  Computation* cond = Attr(w, "condition");
  Computation* body = Attr(w, "body");
  if (cond == nullptr || body == nullptr || passes::ComputationHasSideEffect(*cond)) return std::nullopt;
  const Instruction* croot = cond->root();
  if (croot->opcode() == Opcode::kConstant && croot->has_literal() && croot->shape().IsScalar() &&
      !croot->literal().elided() && croot->literal().GetInt(0) == 0)
    return 0;
  const Instruction* init = w.operand(0);
  const Instruction* broot = body->root();
  if (init->opcode() != Opcode::kTuple || broot->opcode() != Opcode::kTuple) return std::nullopt;
  if (croot->opcode() != Opcode::kCompare || cond->num_parameters() != 1 || body->num_parameters() != 1)
    return std::nullopt;
  const Instruction* cparam = cond->parameter(0);
  const Instruction* bparam = body->parameter(0);
  for (int64_t i = 0; i < init->operand_count() && i < broot->operand_count(); ++i) {
    std::optional<int64_t> c0 = ScalarIntConstant(init->operand(i));
    if (!c0) continue;
    const PrimitiveType type = init->operand(i)->shape().element_type();
    const Instruction* next = broot->operand(i);
    if (next->opcode() != Opcode::kAdd) continue;
    std::optional<int64_t> step;
    if (IsGteOf(next->operand(0), bparam, i)) step = ScalarIntConstant(next->operand(1));
    else if (IsGteOf(next->operand(1), bparam, i)) step = ScalarIntConstant(next->operand(0));
    if (!step) continue;
    std::optional<int64_t> limit;
    bool counter_left = true;
    if (IsGteOf(croot->operand(0), cparam, i)) {
      limit = ScalarIntConstant(croot->operand(1));
    } else if (IsGteOf(croot->operand(1), cparam, i)) {
      limit = ScalarIntConstant(croot->operand(0));
      counter_left = false;
    }
    if (!limit) continue;
    const std::string dir = croot->AttrOr<std::string>("direction", "");
    const bool is_unsigned = type == PrimitiveType::U32 || type == PrimitiveType::U64;
    auto holds = [&](int64_t v) -> std::optional<bool> {
      int64_t a = counter_left ? v : *limit, b = counter_left ? *limit : v;
      if (is_unsigned && (a < 0 || b < 0)) return std::nullopt;
      if (dir == "LT") return a < b;
      if (dir == "LE") return a <= b;
      if (dir == "GT") return a > b;
      if (dir == "GE") return a >= b;
      if (dir == "EQ") return a == b;
      if (dir == "NE") return a != b;
      return std::nullopt;
    };
    std::optional<bool> first = holds(*c0);
    if (!first) continue;
    if (!*first) return 0;
    if (*step > (int64_t{1} << 40) || *step < -(int64_t{1} << 40)) continue;
    const int64_t v1 = *c0 + *step;
    if (!FitsType(type, v1)) continue;
    std::optional<bool> second = holds(v1);
    if (!second) continue;
    if (!*second) return 1;
    return std::nullopt;
  }
  return std::nullopt;
}

// Send/recv pairs are matched across loop iterations by channel; as XLA,
// loops containing them are left alone.
bool ContainsSendRecv(const Computation& c, absl::flat_hash_set<const Computation*>& seen) {
  if (!seen.insert(&c).second) return false;
  for (const Instruction* inst : c.instructions()) {
    switch (inst->opcode()) {
      case Opcode::kSend:
      case Opcode::kSendDone:
      case Opcode::kRecv:
      case Opcode::kRecvDone:
        return true;
      default:
        break;
    }
    for (const Computation* callee : inst->called_computations())
      if (ContainsSendRecv(*callee, seen)) return true;
  }
  return false;
}

class WhileLoopSimplifier : public Pass {
 public:
  absl::string_view name() const override { return "simplify-while-loops"; }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    passes::NameUniquer comp_names(module);
    for (Computation* comp : module.MakeComputationPostOrder()) {
      for (Instruction* w : comp->MakePostOrder()) {
        if (w->opcode() != Opcode::kWhile) continue;
        if (!w->control_predecessors().empty() || !w->control_successors().empty()) continue;
        Computation* body = Attr(*w, "body");
        if (body == nullptr || Attr(*w, "condition") == nullptr) continue;
        absl::flat_hash_set<const Computation*> seen;
        if (ContainsSendRecv(*body, seen) || ContainsSendRecv(*Attr(*w, "condition"), seen)) continue;
        std::optional<int64_t> trips = SmallTripCount(*w);
        if (trips && *trips == 0) {
          absl::Status st = w->ReplaceAllUsesWith(w->operand(0));
          if (!st.ok()) return st;
          st = comp->RemoveInstruction(w);
          if (!st.ok()) return st;
          changed = true;
          continue;
        }
        if (trips && *trips == 1 && body->execution_thread() == comp->execution_thread()) {
          absl::StatusOr<bool> done = passes::InlineCallSite(w, *body, {w->operand(0)});
          if (!done.ok()) return done.status();
          changed |= *done;
          if (*done) continue;
        }
        Instruction* cur = w;
        for (;;) {
          absl::StatusOr<Instruction*> next = RemoveOneDeadElement(module, comp_names, cur);
          if (!next.ok()) return next.status();
          if (*next == nullptr) break;
          cur = *next;
          changed = true;
        }
      }
    }
    if (changed) passes::RemoveUnreachableComputations(module);
    if (changed) passes::UnshareAsyncComputations(module);
    return changed;
  }

 private:
  // Removes one dead state element; returns the new while or nullptr.
  absl::StatusOr<Instruction*> RemoveOneDeadElement(Module& module, passes::NameUniquer& comp_names,
                                                    Instruction* w) {
    Computation* comp = w->parent();
    Computation* cond = Attr(*w, "condition");
    Computation* body = Attr(*w, "body");
    const Shape& shape = w->shape();
    if (!shape.IsTuple() || w == comp->root()) return nullptr;
    const int64_t n = shape.tuple_size();
    if (body->num_parameters() != 1 || cond->num_parameters() != 1) return nullptr;
    const Instruction* broot = body->root();
    if (broot->opcode() != Opcode::kTuple || broot->operand_count() != n) return nullptr;
    std::vector<bool> used(n, false);
    for (const Instruction* u : w->users()) {
      if (u->opcode() != Opcode::kGetTupleElement) return nullptr;
      int64_t idx = u->AttrOr<int64_t>("index", -1);
      if (idx < 0 || idx >= n) return nullptr;
      used[idx] = true;
    }
    for (const Instruction* u : cond->parameter(0)->users()) {
      if (u->opcode() != Opcode::kGetTupleElement) return nullptr;
      int64_t idx = u->AttrOr<int64_t>("index", -1);
      if (idx < 0 || idx >= n) return nullptr;
      used[idx] = true;
    }
    if (cond->parameter(0) == cond->root()) return nullptr;
    const Instruction* bparam = body->parameter(0);
    if (bparam == broot) return nullptr;
    for (const Instruction* u : bparam->users())
      if (u->opcode() != Opcode::kGetTupleElement) return nullptr;
    for (int64_t j = 0; j < n; ++j) {
      if (used[j] || !ElementIsDeadInBody(*body, j)) continue;
      return RemoveElement(module, comp_names, w, j);
    }
    return nullptr;
  }

  static bool ElementIsDeadInBody(const Computation& body, int64_t j) {
    const Instruction* bparam = body.parameter(0);
    const Instruction* root = body.root();
    absl::flat_hash_set<const Instruction*> s;
    std::vector<const Instruction*> work;
    for (const Instruction* u : bparam->users())
      if (u->AttrOr<int64_t>("index", -1) == j) {
        s.insert(u);
        work.push_back(u);
      }
    while (!work.empty()) {
      const Instruction* x = work.back();
      work.pop_back();
      if (passes::HasSideEffectDeep(*x) || !x->control_successors().empty() ||
          !x->control_predecessors().empty())
        return false;
      for (const Instruction* u : x->users()) {
        if (u == root) {
          for (int64_t k = 0; k < root->operand_count(); ++k)
            if (root->operand(k) == x && k != j) return false;
          continue;
        }
        if (s.insert(u).second) work.push_back(u);
      }
    }
    return true;
  }

  absl::StatusOr<Instruction*> RemoveElement(Module& module, passes::NameUniquer& comp_names,
                                             Instruction* w, int64_t j) {
    Computation* comp = w->parent();
    Computation* cond = Attr(*w, "condition");
    Computation* body = Attr(*w, "body");
    std::vector<Shape> elems = w->shape().tuple_shapes();
    elems.erase(elems.begin() + j);
    const Shape new_shape = Shape::Tuple(elems);
    auto reindex_param = [&](Computation* c) {
      Instruction* p = c->parameter(0);
      p->set_shape(new_shape);
      for (Instruction* g : p->users()) {
        int64_t idx = g->AttrOr<int64_t>("index", -1);
        if (idx > j) g->SetAttr("index", int64_t{idx - 1});
      }
    };
    // New body.
    Computation* nb = module.AddComputation(body->Clone(comp_names.Get(body->name())));
    {
      std::vector<std::string> gtes_j;
      for (Instruction* g : nb->parameter(0)->users())
        if (g->AttrOr<int64_t>("index", -1) == j) gtes_j.push_back(g->name());
      Instruction* old_root = nb->root();
      std::vector<Instruction*> ops = old_root->operands();
      ops.erase(ops.begin() + j);
      passes::NameUniquer names(*nb);
      Instruction* new_root = passes::AddTuple(nb, names, ops);
      nb->set_root(new_root);
      passes::RemoveIfDead(old_root);
      // What is left of the element's chain (instructions whose results
      // nothing reads, e.g. an unused negate of it): ElementIsDeadInBody
      // found every user of the chain inside it, so it goes, users first.
      absl::flat_hash_set<const Instruction*> chain;
      std::vector<Instruction*> work;
      for (const std::string& g : gtes_j)
        if (Instruction* gte = nb->FindInstruction(g); gte != nullptr && chain.insert(gte).second)
          work.push_back(gte);
      while (!work.empty()) {
        Instruction* x = work.back();
        work.pop_back();
        for (Instruction* u : x->users())
          if (chain.insert(u).second) work.push_back(u);
      }
      std::vector<Instruction*> order = nb->MakePostOrder();
      for (auto it = order.rbegin(); it != order.rend(); ++it)
        if (chain.contains(*it) && (*it)->user_count() == 0 && *it != nb->root())
          (void)nb->RemoveInstruction(*it);
      for (const std::string& g : gtes_j)
        if (nb->FindInstruction(g) != nullptr)
          return absl::InternalError(absl::StrCat("simplify-while-loops: element ", j, " of ", w->name(),
                                                  " still used in the body"));
      reindex_param(nb);
    }
    Computation* nc = module.AddComputation(cond->Clone(comp_names.Get(cond->name())));
    reindex_param(nc);
    // New init.
    passes::NameUniquer names(*comp);
    Instruction* init = w->operand(0);
    std::vector<Instruction*> init_elems;
    if (init->opcode() == Opcode::kTuple) {
      init_elems = init->operands();
      init_elems.erase(init_elems.begin() + j);
    } else {
      for (int64_t k = 0; k < w->shape().tuple_size(); ++k)
        if (k != j) init_elems.push_back(passes::AddGte(comp, names, init, k));
    }
    Instruction* new_init = passes::AddTuple(comp, names, init_elems);
    Instruction* nw = passes::CopyInstruction(*w, comp, names, {new_init});
    nw->set_shape(new_shape);
    nw->SetAttr("condition", nc);
    nw->SetAttr("body", nb);
    std::vector<Instruction*> users = w->users();
    for (Instruction* g : users) {
      int64_t idx = g->AttrOr<int64_t>("index", -1);
      if (idx > j) g->SetAttr("index", int64_t{idx - 1});
      g->ReplaceOperand(0, nw);
    }
    absl::Status st = comp->RemoveInstruction(w);
    if (!st.ok()) return st;
    passes::RemoveIfDead(init);
    return nw;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateWhileLoopSimplifierPass() { return std::make_unique<WhileLoopSimplifier>(); }

}  // namespace hlo
