// computation-deduplicator: merges structurally identical non-entry
// computations (same execution thread, same instructions in post order:
// opcode, shape, operand positions, parameter numbers, literal bytes,
// attributes ignoring metadata, called computations, control edges, same
// root). Callers are redirected to the first one; the others are removed.
// Computations wrapped by an async-start are left alone: each belongs to
// its one chain.
#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

bool SameStructure(const Computation& a, const Computation& b) {
  if (a.execution_thread() != b.execution_thread() || a.num_parameters() != b.num_parameters() ||
      a.instruction_count() != b.instruction_count())
    return false;
  std::vector<Instruction*> pa = a.MakePostOrder(), pb = b.MakePostOrder();
  if (pa.size() != pb.size()) return false;
  absl::flat_hash_map<const Instruction*, size_t> ia, ib;
  for (size_t i = 0; i < pa.size(); ++i) {
    ia[pa[i]] = i;
    ib[pb[i]] = i;
  }
  for (size_t i = 0; i < pa.size(); ++i) {
    const Instruction& x = *pa[i];
    const Instruction& y = *pb[i];
    if (x.opcode() != y.opcode() || x.shape() != y.shape() || x.operand_count() != y.operand_count() ||
        x.parameter_number() != y.parameter_number() || x.has_literal() != y.has_literal())
      return false;
    for (int64_t k = 0; k < x.operand_count(); ++k)
      if (ia.at(x.operand(k)) != ib.at(y.operand(k))) return false;
    if (x.control_predecessors().size() != y.control_predecessors().size()) return false;
    for (size_t k = 0; k < x.control_predecessors().size(); ++k)
      if (ia.at(x.control_predecessors()[k]) != ib.at(y.control_predecessors()[k])) return false;
    if (x.has_literal() && !passes::LiteralsIdentical(x.literal(), y.literal())) return false;
    if (!passes::AttrsEqualIgnoringMetadata(x, y)) return false;
  }
  return a.root() != nullptr && b.root() != nullptr && ia.at(a.root()) == ib.at(b.root());
}

size_t Fingerprint(const Computation& c) {
  size_t h = absl::HashOf(c.num_parameters(), c.instruction_count(), c.execution_thread());
  for (const Instruction* inst : c.MakePostOrder()) h = absl::HashOf(h, static_cast<int>(inst->opcode()));
  return h;
}

class ComputationDeduplicator : public Pass {
 public:
  absl::string_view name() const override { return "computation-deduplicator"; }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    absl::flat_hash_map<size_t, std::vector<Computation*>> buckets;
    absl::flat_hash_map<Computation*, Computation*> replace;
    // An async chain owns its wrapped computation (the verifier allows one
    // async-start per wrapped computation): two identical chains keep theirs.
    absl::flat_hash_set<const Computation*> async_wrapped;
    for (const Computation* c : module.computations())
      for (const Instruction* inst : c->instructions())
        if (inst->opcode() == Opcode::kAsyncStart)
          if (Computation* const* wrapped = inst->GetAttr<Computation*>("calls"))
            async_wrapped.insert(*wrapped);
    // Callees first: once callees are merged, callers compare equal by pointer.
    for (Computation* c : module.MakeComputationPostOrder()) {
      if (!replace.empty()) {
        for (Instruction* inst : c->instructions())
          for (Computation* callee : inst->called_computations()) {
            auto it = replace.find(callee);
            if (it != replace.end()) inst->ReplaceCalledComputation(callee, it->second);
          }
      }
      if (c == module.entry() || async_wrapped.contains(c)) continue;
      std::vector<Computation*>& bucket = buckets[Fingerprint(*c)];
      Computation* match = nullptr;
      for (Computation* cand : bucket)
        if (SameStructure(*cand, *c)) {
          match = cand;
          break;
        }
      if (match == nullptr) {
        bucket.push_back(c);
      } else {
        replace[c] = match;
        changed = true;
      }
    }
    if (changed) {
      absl::flat_hash_set<const Computation*> dups;
      for (auto& [dup, keep] : replace) dups.insert(dup);
      (void)module.RemoveComputations(dups);
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateComputationDeduplicatorPass() {
  return std::make_unique<ComputationDeduplicator>();
}

}  // namespace hlo
