// fusion: groups producers into their consumers and replaces each group by
// one `fusion` instruction calling a new computation, in XLA's text form:
//   kind=kLoop   elementwise ops, broadcasts, iotas, reshapes/bitcasts,
//                and transposes, slices and reverses inside rows;
//   kind=kInput  the same around reductions (a reduce root, or reductions
//                inside, as in a row softmax or layer norm);
//   kind=kOutput a dot or convolution under its elementwise epilogue
//                (bias add, scale, activation, residual add).
//
// Consumers are visited before producers (reverse post order); a group
// grows by taking an operand when every user of that operand is already in
// the group (nothing is computed twice), except scalar constants, iotas
// and broadcasts, which are copied into every group that reads them (XLA
// duplicates such producers too): a broadcast read outside a group is
// never one of its outputs, and a group whose copied broadcast reads a
// member returns that member instead. Never fused: side
// effects, control edges, tuples, calls, and anything the CPU backend
// could not run by blocks of rows: the legality test is the backend's own
// row split (backend_cpu/fusion_rows.h), so every fusion -O makes runs as
// one kernel, each operand read once and the result written once.
// Caps: 64 instructions and 24 operands per fusion. Then sibling
// reductions that read the same value (a sum and a sum of squares) merge
// into one multi-output fusion when they still split into the same rows.
#include <algorithm>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "backend_cpu/fusion_rows.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

constexpr size_t kMaxMembers = 64;
constexpr size_t kMaxOperands = 24;
constexpr size_t kMaxSiblings = 8;  // readers of one value tried for sibling fusion

bool IsDotLike(const Instruction& i) {
  return (i.opcode() == Opcode::kDot || i.opcode() == Opcode::kConvolution) && i.shape().IsArray();
}

// Ops a group may hold (apart from a dot or convolution at its bottom).
bool IsFusibleOp(const Instruction& i) {
  if (i.HasSideEffect() || !i.control_predecessors().empty() || !i.control_successors().empty() ||
      !i.shape().IsArray())
    return false;
  const Opcode op = i.opcode();
  if (IsElementwise(op)) return op != Opcode::kMap;
  switch (op) {
    case Opcode::kBroadcast:
    case Opcode::kReduce:
    case Opcode::kReshape:
    case Opcode::kBitcast:
    case Opcode::kTranspose:  // of inner dimensions (the row split decides)
    case Opcode::kSlice:
    case Opcode::kReverse:
    case Opcode::kIota:
      return true;
    case Opcode::kConstant:
      return i.shape().rank() == 0;
    default:
      return false;
  }
}

// Cheap enough to compute again in every group that reads it.
bool IsCheap(const Instruction& i) {
  if (i.opcode() == Opcode::kConstant) return i.shape().rank() == 0;
  if (i.opcode() == Opcode::kIota) return true;  // indices: no memory read
  return i.opcode() == Opcode::kBroadcast && i.operand(0)->shape().rank() == 0;
}

struct Group {
  const Instruction* root = nullptr;
  // What the fusion returns: the root, then members that users outside the
  // group also read (a multi-output fusion returns a tuple of them).
  std::vector<const Instruction*> outputs;
  absl::flat_hash_set<const Instruction*> members;
  // Members copied into the group whose originals stay for readers outside
  // it (cheap producers, broadcasts): never outputs, never taken.
  absl::flat_hash_set<const Instruction*> copies;
  bool has_dot = false;
};

// Whether instructions outside group g read `x`, directly or through
// members copied into g (their originals keep their readers, and read `x`
// from the fusion's outputs), and whether one of those readers comes
// before the group's root in post order (it could feed the group:
// returning `x` would make a cycle).
void ReadersOutside(const Group& g, const Instruction* x, const absl::flat_hash_map<const Instruction*, int>& pos,
                    const Instruction* comp_root, bool* outside, bool* feeds_back) {
  for (const Instruction* u : x->users()) {
    if (!g.members.contains(u)) {
      *outside = true;
      *feeds_back |= pos.at(u) <= pos.at(g.root);
    } else if (g.copies.contains(u)) {
      *outside |= u == comp_root;
      ReadersOutside(g, u, pos, comp_root, outside, feeds_back);
    }
  }
}

class FusionPass : public Pass {
 public:
  absl::string_view name() const override { return "fusion"; }

  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    passes::NameUniquer computation_names(module);
    for (Computation* comp : FusibleComputations(module)) {
      absl::StatusOr<bool> c = FuseComputation(module, comp, computation_names);
      if (!c.ok()) return c.status();
      changed |= *c;
    }
    return changed;
  }

 private:
  // The entry and the computations run by control flow (while bodies and
  // conditions, conditional branches, calls); not reducers, comparators or
  // existing fused computations.
  static std::vector<Computation*> FusibleComputations(const Module& module) {
    absl::flat_hash_set<const Computation*> wanted;
    if (module.entry() != nullptr) wanted.insert(module.entry());
    for (const Computation* c : module.computations())
      for (const Instruction* i : c->instructions())
        if (i->opcode() == Opcode::kWhile || i->opcode() == Opcode::kConditional ||
            i->opcode() == Opcode::kCall)
          for (const Computation* called : i->called_computations()) wanted.insert(called);
    std::vector<Computation*> out;
    for (Computation* c : module.computations())
      if (wanted.contains(c)) out.push_back(c);
    return out;
  }

  // Whether the group, as it stands, runs by rows with nothing but a dot or
  // convolution computed whole under row values.
  static bool Legal(const Group& g, const absl::flat_hash_map<const Instruction*, int>& pos) {
    if (g.members.size() > kMaxMembers) return false;
    std::vector<const Instruction*> members(g.members.begin(), g.members.end());
    std::sort(members.begin(), members.end(),
              [&](const Instruction* a, const Instruction* b) { return pos.at(a) < pos.at(b); });
    absl::flat_hash_set<const Instruction*> operands;
    for (const Instruction* m : members)
      for (const Instruction* o : m->operands())
        if (!g.members.contains(o)) operands.insert(o);
    if (operands.size() > kMaxOperands) return false;
    absl::StatusOr<cpu::RowSplit> split = cpu::SplitGroupIntoRows(members, g.outputs);
    if (!split.ok()) return false;
    for (const Instruction* w : split->whole_under_rows)
      if (!IsDotLike(*w)) return false;
    return true;
  }

  static absl::StatusOr<bool> FuseComputation(Module& module, Computation* comp,
                                              passes::NameUniquer& computation_names) {
    const std::vector<Instruction*> order = comp->MakePostOrder();
    absl::flat_hash_map<const Instruction*, int> pos;
    for (size_t i = 0; i < order.size(); ++i) pos[order[i]] = static_cast<int>(i);
    absl::flat_hash_set<const Instruction*> taken;  // members of a group (not copies)
    // Copied into some group: never the root of a group of its own (the
    // group that copied it may remove the original once nothing outside
    // reads it).
    absl::flat_hash_set<const Instruction*> copied;
    std::vector<Group> groups;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const Instruction* root = *it;
      if (taken.contains(root) || copied.contains(root) || !IsFusibleOp(*root) || IsCheap(*root)) continue;
      Group g;
      g.root = root;
      g.outputs.push_back(root);
      g.members.insert(root);
      if (!Legal(g, pos)) continue;
      for (bool grew = true; grew;) {
        grew = false;
        std::vector<const Instruction*> candidates;
        for (const Instruction* m : g.members) {
          if (IsDotLike(*m)) continue;  // a dot's operands stay outside
          for (const Instruction* o : m->operands())
            if (!g.members.contains(o) && !taken.contains(o) && pos.contains(o)) candidates.push_back(o);
        }
        std::sort(candidates.begin(), candidates.end(),
                  [&](const Instruction* a, const Instruction* b) { return pos.at(a) > pos.at(b); });
        candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
        for (const Instruction* p : candidates) {
          const bool dot = IsDotLike(*p);
          if (!IsFusibleOp(*p) && !dot) continue;
          if (dot && (g.has_dot || !p->control_predecessors().empty() || !p->control_successors().empty()))
            continue;
          // Cheap producers and broadcasts are copied in: readers outside
          // keep the original (XLA duplicates broadcasts into their
          // consumers too), so no fusion writes an array that only repeats
          // its operand (a softmax's broadcast row sums, a batch norm's
          // broadcast scale).
          const bool copy = IsCheap(*p) || p->opcode() == Opcode::kBroadcast;
          // Another member read outside the group becomes an extra output
          // when none of those readers can feed the group (they all come
          // after its root in post order: no cycle through the fusion).
          bool outside = false, feeds_back = false;
          if (!copy) {
            ReadersOutside(g, p, pos, comp->root(), &outside, &feeds_back);
            outside |= p == comp->root();
          }
          if (outside && (dot || feeds_back)) continue;
          if (copy) {
            // The original stays for readers outside: it must not read a
            // member the fusion does not return (that member would be
            // computed twice), nor, when one of its readers can feed the
            // group, any member (a cycle through the fusion).
            bool copy_outside = p == comp->root(), copy_feeds_back = false;
            ReadersOutside(g, p, pos, comp->root(), &copy_outside, &copy_feeds_back);
            bool member_operand = false, hidden_operand = false;
            for (const Instruction* o : p->operands()) {
              if (!g.members.contains(o) || g.copies.contains(o)) continue;
              member_operand = true;
              hidden_operand |= std::find(g.outputs.begin(), g.outputs.end(), o) == g.outputs.end();
            }
            if (copy_outside && (hidden_operand || (copy_feeds_back && member_operand))) continue;
          }
          const bool extra_output = outside;
          g.members.insert(p);
          if (copy) g.copies.insert(p);
          if (extra_output) g.outputs.push_back(p);
          if (!Legal(g, pos)) {
            g.members.erase(p);
            g.copies.erase(p);
            if (extra_output) g.outputs.pop_back();
            continue;
          }
          g.has_dot |= dot;
          grew = true;
        }
      }
      // Worth a fusion when it saves writing and reading a value: two
      // members besides scalar constants.
      int64_t real = 0;
      for (const Instruction* m : g.members)
        if (!(m->opcode() == Opcode::kConstant)) ++real;
      if (real < 2) continue;
      for (const Instruction* m : g.members)
        if (!g.copies.contains(m)) taken.insert(m);
      copied.insert(g.copies.begin(), g.copies.end());
      groups.push_back(std::move(g));
    }
    MergeSiblingReductions(order, pos, taken, &groups);
    if (groups.empty()) return false;
    passes::NameUniquer names(*comp);
    for (const Group& g : groups) {
      absl::Status st = Materialize(module, comp, g, pos, names, computation_names);
      if (!st.ok()) return st;
    }
    return true;
  }

  static bool HasReduce(const Group& g) {
    for (const Instruction* m : g.members)
      if (m->opcode() == Opcode::kReduce) return true;
    return false;
  }

  // Values the group reads from outside.
  static std::vector<const Instruction*> ExternalOperands(const Group& g) {
    std::vector<const Instruction*> out;
    absl::flat_hash_set<const Instruction*> seen;
    for (const Instruction* m : g.members)
      for (const Instruction* o : m->operands())
        if (!g.members.contains(o) && seen.insert(o).second) out.push_back(o);
    return out;
  }

  // Whether a member of `from` reaches a member of `to` through operand
  // edges (so the two cannot become one instruction). Post order bounds the
  // search: nothing before from's first member can lie on such a path.
  static bool Feeds(const Group& from, const Group& to, const absl::flat_hash_map<const Instruction*, int>& pos) {
    int first = std::numeric_limits<int>::max();
    for (const Instruction* m : from.members) first = std::min(first, pos.at(m));
    std::vector<const Instruction*> stack = ExternalOperands(to);
    absl::flat_hash_set<const Instruction*> seen(stack.begin(), stack.end());
    while (!stack.empty()) {
      const Instruction* i = stack.back();
      stack.pop_back();
      if (from.members.contains(i)) return true;
      auto it = pos.find(i);
      if (it == pos.end() || it->second < first) continue;
      for (const Instruction* o : i->operands())
        if (seen.insert(o).second) stack.push_back(o);
    }
    return false;
  }

  // Sibling multi-output fusion (XLA's kInput form for e.g. a mean and a
  // mean of squares): groups with a reduction (and lone reduces) that read
  // the same value, neither feeding the other, become one fusion returning
  // a tuple, so the shared input is read once. Merged only when the result
  // still runs by rows.
  static void MergeSiblingReductions(const std::vector<Instruction*>& order,
                                     const absl::flat_hash_map<const Instruction*, int>& pos,
                                     absl::flat_hash_set<const Instruction*>& taken, std::vector<Group>* groups) {
    std::vector<Group> candidates;
    std::vector<size_t> index;  // per candidate: its group, or groups->size() for a lone reduce
    for (size_t i = 0; i < groups->size(); ++i)
      if (!(*groups)[i].has_dot && HasReduce((*groups)[i])) {
        candidates.push_back((*groups)[i]);
        index.push_back(i);
      }
    for (const Instruction* r : order)
      if (r->opcode() == Opcode::kReduce && !taken.contains(r) && IsFusibleOp(*r)) {
        Group g;
        g.root = r;
        g.outputs.push_back(r);
        g.members.insert(r);
        for (const Instruction* o : r->operands())
          if (IsCheap(*o)) {  // its init value, copied in
            g.members.insert(o);
            g.copies.insert(o);
          }
        candidates.push_back(std::move(g));
        index.push_back(groups->size());
      }
    if (candidates.size() < 2) return;
    // Readers of each value (array operands only: scalars such as init
    // values are not worth a fusion).
    absl::flat_hash_map<const Instruction*, std::vector<size_t>> readers;
    std::vector<const Instruction*> values;
    for (size_t c = 0; c < candidates.size(); ++c)
      for (const Instruction* o : ExternalOperands(candidates[c]))
        if (o->shape().IsArray() && o->shape().rank() > 0) {
          if (!readers.contains(o)) values.push_back(o);
          readers[o].push_back(c);
        }
    std::sort(values.begin(), values.end(),
              [&](const Instruction* a, const Instruction* b) { return pos.at(a) < pos.at(b); });
    std::vector<bool> gone(candidates.size(), false), merged(candidates.size(), false);
    for (const Instruction* v : values) {
      std::vector<size_t>& rs = readers[v];
      // Bounds the pairwise checks (each walks the graph) in modules where
      // many reductions read one value.
      if (rs.size() > kMaxSiblings) rs.resize(kMaxSiblings);
      for (size_t a = 0; a < rs.size(); ++a) {
        if (gone[rs[a]]) continue;
        for (size_t b = a + 1; b < rs.size(); ++b) {
          Group& ga = candidates[rs[a]];
          const Group& gb = candidates[rs[b]];
          if (gone[rs[b]] || Feeds(ga, gb, pos) || Feeds(gb, ga, pos)) continue;
          Group m = ga;
          m.members.insert(gb.members.begin(), gb.members.end());
          m.copies.insert(gb.copies.begin(), gb.copies.end());
          m.outputs.insert(m.outputs.end(), gb.outputs.begin(), gb.outputs.end());
          if (!Legal(m, pos)) continue;
          ga = std::move(m);
          gone[rs[b]] = true;
          merged[rs[a]] = true;
        }
      }
    }
    // Rebuild the list: merged groups in place of their first part, lone
    // reduces only when merged, parts merged away dropped.
    std::vector<Group> out;
    std::vector<bool> replaced(groups->size(), false);
    for (size_t c = 0; c < candidates.size(); ++c)
      if (index[c] < groups->size()) replaced[index[c]] = true;
    for (size_t i = 0; i < groups->size(); ++i)
      if (!replaced[i]) out.push_back(std::move((*groups)[i]));
    for (size_t c = 0; c < candidates.size(); ++c) {
      if (gone[c] || (index[c] == groups->size() && !merged[c])) continue;
      for (const Instruction* m : candidates[c].members)
        if (!candidates[c].copies.contains(m)) taken.insert(m);
      out.push_back(std::move(candidates[c]));
    }
    *groups = std::move(out);
  }

  static absl::Status Materialize(Module& module, Computation* comp, const Group& g,
                                  const absl::flat_hash_map<const Instruction*, int>& pos,
                                  passes::NameUniquer& names, passes::NameUniquer& computation_names) {
    std::vector<Instruction*> members;
    for (const Instruction* m : g.members) members.push_back(const_cast<Instruction*>(m));
    std::sort(members.begin(), members.end(),
              [&](const Instruction* a, const Instruction* b) { return pos.at(a) < pos.at(b); });
    std::vector<Instruction*> operands;
    absl::flat_hash_map<const Instruction*, Instruction*> map;
    auto fused = std::make_unique<Computation>(computation_names.Get("fused_computation"));
    passes::NameUniquer fused_names(*fused);
    for (Instruction* m : members)
      for (Instruction* o : m->operands()) {
        if (g.members.contains(o) || map.contains(o)) continue;
        const int64_t number = static_cast<int64_t>(operands.size());
        auto param = std::make_unique<Instruction>(Opcode::kParameter,
                                                   fused_names.Get(absl::StrCat("param_", number)), o->shape());
        param->set_parameter_number(number);
        map[o] = fused->AddInstruction(std::move(param));
        operands.push_back(o);
      }
    bool has_reduce = false;
    for (Instruction* m : members) {
      std::vector<Instruction*> ops;
      for (Instruction* o : m->operands()) ops.push_back(map.at(o));
      map[m] = passes::CopyInstruction(*m, fused.get(), fused_names, ops);
      has_reduce |= m->opcode() == Opcode::kReduce;
    }
    const bool tuple = g.outputs.size() > 1;
    if (tuple) {
      std::vector<Instruction*> elems;
      std::vector<Shape> shapes;
      for (const Instruction* o : g.outputs) {
        elems.push_back(map.at(o));
        shapes.push_back(o->shape());
      }
      fused->set_root(passes::AddInst(fused.get(), fused_names, Opcode::kTuple, Shape::Tuple(shapes), elems,
                                      "tuple"));
    } else {
      fused->set_root(map.at(g.root));
    }
    Computation* callee = module.AddComputation(std::move(fused));
    const char* kind = g.has_dot ? "kOutput" : has_reduce ? "kInput" : "kLoop";
    Instruction* fusion = passes::AddInst(comp, names, Opcode::kFusion, callee->root()->shape(), operands,
                                          "fusion", {{"kind", std::string(kind)}, {"calls", callee}});
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      Instruction* out = const_cast<Instruction*>(g.outputs[i]);
      Instruction* value = tuple ? passes::AddGte(comp, names, fusion, static_cast<int64_t>(i)) : fusion;
      if (absl::Status st = out->ReplaceAllUsesWith(value); !st.ok()) return st;
    }
    // The originals are dead now (their readers read the fusion).
    for (auto it = members.rbegin(); it != members.rend(); ++it)
      if ((*it)->user_count() == 0 && *it != comp->root())
        if (absl::Status st = comp->RemoveInstruction(*it); !st.ok()) return st;
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> CreateFusionPass() { return std::make_unique<FusionPass>(); }

}  // namespace hlo
