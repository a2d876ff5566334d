// simplify-sorts: a multi-operand sort whose users are all
// get-tuple-elements loses every operand whose result nobody reads and
// whose two comparator parameters (2i, 2i+1) are unused. The comparator is
// rebuilt without those parameters; a sort left with one operand returns
// an array instead of a 1-tuple (as XLA's SortSimplifier).
#include "absl/strings/str_cat.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

class SortSimplifier : public Pass {
 public:
  absl::string_view name() const override { return "simplify-sorts"; }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    passes::NameUniquer comp_names(module);
    for (Computation* comp : module.MakeComputationPostOrder()) {
      // The sorts first: simplifying one removes instructions (its
      // get-tuple-elements, itself, operands that became dead), which a
      // walk over the whole post order would visit afterwards. Operands come
      // before their users, so no sort later in the list is removed.
      std::vector<Instruction*> sorts;
      for (Instruction* inst : comp->MakePostOrder())
        if (inst->opcode() == Opcode::kSort) sorts.push_back(inst);
      for (Instruction* sort : sorts) {
        absl::StatusOr<bool> c = Simplify(module, comp_names, sort);
        if (!c.ok()) return c.status();
        changed |= *c;
      }
    }
    if (changed) passes::RemoveUnreachableComputations(module);
    return changed;
  }

 private:
  absl::StatusOr<bool> Simplify(Module& module, passes::NameUniquer& comp_names, Instruction* sort) {
    if (sort->opcode() != Opcode::kSort || sort->operand_count() < 2 || !sort->shape().IsTuple()) return false;
    if (sort == sort->parent()->root() || sort->user_count() == 0) return false;
    if (!sort->control_predecessors().empty() || !sort->control_successors().empty()) return false;
    Computation* const* cmp = sort->GetAttr<Computation*>("to_apply");
    if (cmp == nullptr || *cmp == nullptr) return false;
    const int64_t n = sort->operand_count();
    if ((*cmp)->num_parameters() != 2 * n) return false;
    std::vector<bool> used(n, false);
    for (Instruction* user : sort->users()) {
      if (user->opcode() != Opcode::kGetTupleElement) return false;
      int64_t idx = user->AttrOr<int64_t>("index", -1);
      if (idx < 0 || idx >= n) return false;
      used[idx] = true;
    }
    std::vector<int64_t> keep;
    for (int64_t i = 0; i < n; ++i) {
      const Instruction* p0 = (*cmp)->parameter(2 * i);
      const Instruction* p1 = (*cmp)->parameter(2 * i + 1);
      bool compared = p0->user_count() > 0 || p1->user_count() > 0 || p0 == (*cmp)->root() ||
                      p1 == (*cmp)->root();
      if (used[i] || compared) keep.push_back(i);
    }
    if (static_cast<int64_t>(keep.size()) == n || keep.empty()) return false;
    std::vector<int64_t> new_numbers(2 * n, -1), new_index(n, -1);
    for (size_t k = 0; k < keep.size(); ++k) {
      new_numbers[2 * keep[k]] = 2 * static_cast<int64_t>(k);
      new_numbers[2 * keep[k] + 1] = 2 * static_cast<int64_t>(k) + 1;
      new_index[keep[k]] = static_cast<int64_t>(k);
    }
    absl::StatusOr<std::unique_ptr<Computation>> new_cmp =
        passes::CloneWithParameters(**cmp, comp_names.Get((*cmp)->name()), new_numbers);
    if (!new_cmp.ok()) return new_cmp.status();
    Computation* added = module.AddComputation(std::move(*new_cmp));

    Computation* comp = sort->parent();
    passes::NameUniquer names(*comp);
    std::vector<Instruction*> ops;
    std::vector<Shape> shapes;
    for (int64_t i : keep) {
      ops.push_back(sort->operand(i));
      shapes.push_back(sort->shape().tuple_shape(i));
    }
    Shape shape = keep.size() == 1 ? shapes[0] : Shape::Tuple(shapes);
    Instruction* new_sort = passes::CopyInstruction(*sort, comp, names, ops);
    new_sort->set_shape(shape);
    new_sort->SetAttr("to_apply", added);
    std::vector<Instruction*> users = sort->users();
    for (Instruction* gte : users) {
      int64_t k = new_index[gte->AttrOr<int64_t>("index", -1)];
      if (keep.size() == 1) {
        absl::Status st = gte->ReplaceAllUsesWith(new_sort);
        if (!st.ok()) return st;
        (void)comp->RemoveInstruction(gte);
      } else {
        gte->SetAttr("index", int64_t{k});
        gte->ReplaceOperand(0, new_sort);
      }
    }
    passes::RemoveIfDead(sort);
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateSortSimplifierPass() { return std::make_unique<SortSimplifier>(); }

}  // namespace hlo
