#include "passes/pass_util.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace hlo {
namespace passes {

Instruction* AddInst(Computation* comp, NameUniquer& names, Opcode op, Shape shape,
                     const std::vector<Instruction*>& operands, absl::string_view base,
                     std::vector<std::pair<std::string, AttrValue>> attrs) {
  auto inst = std::make_unique<Instruction>(op, names.Get(base), std::move(shape));
  for (Instruction* o : operands) inst->AppendOperand(o);
  inst->set_attrs(std::move(attrs));
  return comp->AddInstruction(std::move(inst));
}

Instruction* AddConstant(Computation* comp, NameUniquer& names, Literal literal,
                         absl::string_view base) {
  Shape shape = literal.shape();
  auto inst = std::make_unique<Instruction>(Opcode::kConstant, names.Get(base), std::move(shape));
  inst->set_literal(std::move(literal));
  return comp->AddInstruction(std::move(inst));
}

Instruction* AddScalarConstant(Computation* comp, NameUniquer& names, PrimitiveType type,
                               double value) {
  Literal lit(Shape::Scalar(type));
  lit.SetDouble(0, value);
  return AddConstant(comp, names, std::move(lit));
}

Instruction* AddGte(Computation* comp, NameUniquer& names, Instruction* tuple, int64_t index) {
  return AddInst(comp, names, Opcode::kGetTupleElement, tuple->shape().tuple_shape(index), {tuple},
                 "get-tuple-element", {{"index", AttrValue(int64_t{index})}});
}

Instruction* AddTuple(Computation* comp, NameUniquer& names, const std::vector<Instruction*>& elems) {
  std::vector<Shape> shapes;
  for (Instruction* e : elems) shapes.push_back(e->shape());
  return AddInst(comp, names, Opcode::kTuple, Shape::Tuple(std::move(shapes)), elems, "tuple");
}

Instruction* CopyInstruction(const Instruction& inst, Computation* comp, NameUniquer& names,
                             const std::vector<Instruction*>& operands) {
  auto copy = std::make_unique<Instruction>(inst.opcode(), names.Get(inst.name()), inst.shape());
  copy->set_loc(inst.loc());
  copy->set_parameter_number(inst.parameter_number());
  if (inst.has_literal()) copy->set_literal(inst.literal());
  copy->set_attrs(inst.attrs());
  for (Instruction* o : operands) copy->AppendOperand(o);
  return comp->AddInstruction(std::move(copy));
}

absl::StatusOr<Instruction*> InlineInto(const Computation& callee, Computation* comp,
                                        const std::vector<Instruction*>& args) {
  if (static_cast<int64_t>(args.size()) != callee.num_parameters())
    return absl::InvalidArgumentError(absl::StrCat("cannot inline ", callee.name(), ": ", args.size(),
                                                   " arguments for ", callee.num_parameters(),
                                                   " parameters"));
  NameUniquer names(*comp);
  absl::flat_hash_map<const Instruction*, Instruction*> map;
  for (Instruction* inst : callee.MakePostOrder()) {
    if (inst->opcode() == Opcode::kParameter) {
      int64_t n = inst->parameter_number();
      if (n < 0 || n >= static_cast<int64_t>(args.size()))
        return absl::InvalidArgumentError(absl::StrCat("bad parameter number in ", callee.name()));
      map[inst] = args[n];
      continue;
    }
    std::vector<Instruction*> ops;
    for (Instruction* o : inst->operands()) ops.push_back(map.at(o));
    Instruction* copy = CopyInstruction(*inst, comp, names, ops);
    for (Instruction* pred : inst->control_predecessors())
      if (pred->opcode() != Opcode::kParameter) map.at(pred)->AddControlDependencyTo(copy);
    map[inst] = copy;
  }
  if (callee.root() == nullptr) return absl::InvalidArgumentError("callee has no root");
  return map.at(callee.root());
}

namespace {
bool ComputationHasSideEffectImpl(const Computation& comp,
                                  absl::flat_hash_map<const Computation*, bool>& memo) {
  auto it = memo.find(&comp);
  if (it != memo.end()) return it->second;
  memo[&comp] = false;  // recursion guard (the verifier rejects recursion)
  bool result = false;
  for (const Instruction* inst : comp.instructions()) {
    if (inst->HasSideEffect()) {
      result = true;
      break;
    }
    for (const Computation* c : inst->called_computations()) {
      if (ComputationHasSideEffectImpl(*c, memo)) {
        result = true;
        break;
      }
    }
    if (result) break;
  }
  memo[&comp] = result;
  return result;
}
}  // namespace

bool ComputationHasSideEffect(const Computation& comp) {
  absl::flat_hash_map<const Computation*, bool> memo;
  return ComputationHasSideEffectImpl(comp, memo);
}

bool HasSideEffectDeep(const Instruction& inst) {
  if (inst.HasSideEffect()) return true;
  for (const Computation* c : inst.called_computations())
    if (ComputationHasSideEffect(*c)) return true;
  return false;
}

int64_t RemoveIfDead(Instruction* inst) {
  int64_t removed = 0;
  std::vector<Instruction*> work{inst};
  while (!work.empty()) {
    Instruction* cur = work.back();
    work.pop_back();
    Computation* comp = cur->parent();
    if (comp == nullptr || cur->user_count() != 0 || cur == comp->root() ||
        cur->opcode() == Opcode::kParameter || !cur->control_successors().empty() ||
        !cur->control_predecessors().empty() || HasSideEffectDeep(*cur))
      continue;
    std::vector<Instruction*> ops = cur->operands();
    if (!comp->RemoveInstruction(cur).ok()) continue;
    ++removed;
    for (Instruction* o : ops)
      if (std::find(work.begin(), work.end(), o) == work.end()) work.push_back(o);
  }
  return removed;
}

bool RemoveUnreachableComputations(Module& module) {
  if (module.entry() == nullptr) return false;
  absl::flat_hash_set<const Computation*> reachable;
  std::vector<const Computation*> work{module.entry()};
  reachable.insert(module.entry());
  while (!work.empty()) {
    const Computation* c = work.back();
    work.pop_back();
    for (const Instruction* inst : c->instructions())
      for (const Computation* callee : inst->called_computations())
        if (reachable.insert(callee).second) work.push_back(callee);
  }
  // Everything unreachable goes at once (one scan, linear in the module).
  absl::flat_hash_set<const Computation*> dead;
  for (Computation* c : module.computations())
    if (!reachable.contains(c)) dead.insert(c);
  if (dead.empty()) return false;
  return module.RemoveComputations(dead).ok();
}

absl::flat_hash_map<const Computation*, std::vector<Instruction*>> CallersOf(const Module& module) {
  absl::flat_hash_map<const Computation*, std::vector<Instruction*>> out;
  for (const Computation* c : module.computations())
    for (Instruction* inst : c->instructions())
      for (const Computation* callee : inst->called_computations()) out[callee].push_back(inst);
  return out;
}

bool LiteralsIdentical(const Literal& a, const Literal& b) {
  if (a.shape() != b.shape() || a.elided() || b.elided()) return false;
  if (a.IsTuple()) {
    const auto& ea = a.tuple_elements();
    const auto& eb = b.tuple_elements();
    if (ea.size() != eb.size()) return false;
    for (size_t i = 0; i < ea.size(); ++i)
      if (!LiteralsIdentical(ea[i], eb[i])) return false;
    return true;
  }
  return a.size_bytes() == b.size_bytes() &&
         (a.size_bytes() == 0 || std::memcmp(a.data(), b.data(), a.size_bytes()) == 0);
}

bool AttrsEqualIgnoringMetadata(const Instruction& a, const Instruction& b) {
  auto collect = [](const Instruction& i) {
    std::vector<const std::pair<std::string, AttrValue>*> v;
    for (const auto& p : i.attrs())
      if (p.first != "metadata") v.push_back(&p);
    std::sort(v.begin(), v.end(), [](auto* x, auto* y) { return x->first < y->first; });
    return v;
  };
  auto va = collect(a), vb = collect(b);
  if (va.size() != vb.size()) return false;
  for (size_t i = 0; i < va.size(); ++i)
    if (va[i]->first != vb[i]->first || !(va[i]->second == vb[i]->second)) return false;
  return true;
}

}  // namespace passes
}  // namespace hlo

namespace hlo {
namespace passes {

absl::StatusOr<std::unique_ptr<Computation>> CloneWithParameters(
    const Computation& comp, const std::string& new_name, const std::vector<int64_t>& new_numbers) {
  auto out = std::make_unique<Computation>(new_name);
  out->set_execution_thread(comp.execution_thread());
  out->set_loc(comp.loc());
  NameUniquer names;
  absl::flat_hash_map<const Instruction*, Instruction*> map;
  // Parameters first, in their new order, so they register in order.
  std::vector<std::pair<int64_t, Instruction*>> params;
  for (Instruction* p : comp.parameters()) {
    if (p == nullptr) return absl::InvalidArgumentError("missing parameter");
    int64_t n = p->parameter_number();
    if (n < 0 || n >= static_cast<int64_t>(new_numbers.size()))
      return absl::InvalidArgumentError("parameter map too short");
    if (new_numbers[n] < 0) {
      if (p->user_count() != 0 || p == comp.root())
        return absl::InvalidArgumentError(absl::StrCat("dropped parameter ", p->name(), " is used"));
      continue;
    }
    params.push_back({new_numbers[n], p});
  }
  std::sort(params.begin(), params.end());
  for (auto& [n, p] : params) {
    auto copy = std::make_unique<Instruction>(Opcode::kParameter, names.Get(p->name()), p->shape());
    copy->set_loc(p->loc());
    copy->set_parameter_number(n);
    copy->set_attrs(p->attrs());
    map[p] = out->AddInstruction(std::move(copy));
  }
  for (Instruction* inst : comp.MakePostOrder()) {
    if (inst->opcode() == Opcode::kParameter) continue;
    std::vector<Instruction*> ops;
    for (Instruction* o : inst->operands()) ops.push_back(map.at(o));
    Instruction* copy = CopyInstruction(*inst, out.get(), names, ops);
    for (Instruction* pred : inst->control_predecessors())
      if (map.contains(pred)) map.at(pred)->AddControlDependencyTo(copy);
    map[inst] = copy;
  }
  out->set_root(map.at(comp.root()));
  return out;
}

}  // namespace passes
}  // namespace hlo

namespace hlo {
namespace passes {

bool UnshareAsyncComputations(Module& module) {
  bool changed = false;
  absl::flat_hash_set<const Computation*> owned;
  NameUniquer comp_names(module);
  for (Computation* c : module.MakeComputationPostOrder()) {
    for (Instruction* start : c->MakePostOrder()) {
      if (start->opcode() != Opcode::kAsyncStart) continue;
      Computation* const* called = start->GetAttr<Computation*>("calls");
      if (called == nullptr || *called == nullptr) continue;
      Computation* wrapped = *called;
      if (owned.insert(wrapped).second) continue;
      Computation* copy = module.AddComputation(wrapped->Clone(comp_names.Get(wrapped->name())));
      owned.insert(copy);
      // Retarget the whole chain: start, then updates/done following it.
      std::vector<Instruction*> work{start};
      absl::flat_hash_set<Instruction*> seen;
      while (!work.empty()) {
        Instruction* i = work.back();
        work.pop_back();
        if (!seen.insert(i).second) continue;
        i->ReplaceCalledComputation(wrapped, copy);
        for (Instruction* u : i->users())
          if (u->opcode() == Opcode::kAsyncUpdate || u->opcode() == Opcode::kAsyncDone) work.push_back(u);
      }
      changed = true;
    }
  }
  return changed;
}

}  // namespace passes
}  // namespace hlo
