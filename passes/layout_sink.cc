// layout-sink: a producer whose kernel writes any layout at the same cost
// (a dot, an fft) takes the layout its only user relays it into, so the
// relayout (a transpose copy per run) goes away:
//  * a copy, or an identity custom call such as
//    AwsNeuronTransferWithStaticRing, into another layout: the producer
//    takes that layout (the copy is then a plain copy);
//  * a transpose, or a fusion that only transposes its parameter (XLA's
//    `wrapped_transpose` of optimized dumps): the producer takes the
//    layout whose bytes are the transpose's result, and the transpose
//    becomes a bitcast.
// And the other way round, an fft whose operand is a transpose (or a
// wrapped one) read by nothing else reads the transpose's operand through
// a bitcast to the layout that holds its bytes.
// A narrow case of XLA's layout assignment, which picks producer layouts
// from their users. Values are unchanged (a layout is not part of an
// array's value). Computations called by fusions are left alone (their
// row plans assume the layouts they have).
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "backend_cpu/custom_call.h"
#include "ir/layout_index.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

// Ops whose kernels write every untiled layout at about the same cost.
bool WritesAnyLayout(const Instruction& i) {
  return i.opcode() == Opcode::kDot || i.opcode() == Opcode::kFft;
}

// The permutation of a transpose, or of a fusion whose computation only
// transposes its one parameter; null for anything else.
const std::vector<int64_t>* TransposePermutation(const Instruction& user) {
  if (user.opcode() == Opcode::kTranspose) return user.GetAttr<std::vector<int64_t>>("dimensions");
  if (user.opcode() != Opcode::kFusion || user.operand_count() != 1) return nullptr;
  const Computation* body = user.AttrOr<Computation*>("calls", nullptr);
  if (body == nullptr || body->instructions().size() != 2) return nullptr;
  const Instruction* root = body->root();
  if (root == nullptr || root->opcode() != Opcode::kTranspose || root->operand_count() != 1 ||
      root->operand(0)->opcode() != Opcode::kParameter)
    return nullptr;
  return root->GetAttr<std::vector<int64_t>>("dimensions");
}

// TransposePermutation of a transpose that can turn into a bitcast: static
// untiled shapes of one element type and rank either side (a bitcast
// carries no runtime size), no control edges. Null otherwise.
const std::vector<int64_t>* PlainTransposePermutation(const Instruction& t) {
  const std::vector<int64_t>* perm = TransposePermutation(t);
  if (perm == nullptr || t.operand_count() != 1 || !t.control_predecessors().empty() ||
      !t.control_successors().empty())
    return nullptr;
  const Shape& from = t.operand(0)->shape();
  const Shape& to = t.shape();
  if (!HasPlainLayout(from) || !HasPlainLayout(to) || !from.IsStatic() || !to.IsStatic() ||
      from.element_type() != to.element_type() || static_cast<int64_t>(perm->size()) != from.rank() ||
      to.rank() != from.rank())
    return nullptr;
  return perm;
}

// What `producer` becomes: the layout it takes from its only user, and
// whether that user then turns into a bitcast (a transpose). Null layout:
// it keeps its own.
struct Sink {
  Layout layout;
  bool user_becomes_bitcast = false;
};
std::optional<Sink> SinkOf(const Instruction& producer) {
  if (!WritesAnyLayout(producer) || producer.users().size() != 1 ||
      !producer.control_successors().empty())
    return std::nullopt;
  if (producer.parent() != nullptr && producer.parent()->root() == &producer) return std::nullopt;
  const Instruction& user = *producer.users()[0];
  if (user.operand_count() != 1) return std::nullopt;
  const Shape& from = producer.shape();
  const Shape& to = user.shape();
  if (!HasPlainLayout(from) || !HasPlainLayout(to) || from.element_type() != to.element_type())
    return std::nullopt;
  if (user.opcode() == Opcode::kCopy || cpu::IsIdentityCustomCall(user)) {
    if (from.dims() != to.dims() || from.layout() == to.layout()) return std::nullopt;
    return Sink{to.layout(), false};
  }
  const std::vector<int64_t>* perm = PlainTransposePermutation(user);
  if (perm == nullptr) return std::nullopt;
  // Result dim i is operand dim perm[i]: the operand laid out with the
  // result's dims' order, mapped through perm, holds the result's bytes.
  Layout layout = from.layout();
  const auto& to_order = to.layout().minor_to_major;
  for (size_t k = 0; k < to_order.size(); ++k) layout.minor_to_major[k] = (*perm)[to_order[k]];
  return Sink{layout, true};
}

// For an fft whose operand only feeds it and transposes x: the layout of
// the transposed shape that holds x's bytes (the transpose is then a
// bitcast of x, and the fft reads that layout; its kernel reads any layout
// at about the same cost). Null when it does not apply.
std::optional<Layout> ReadThroughLayout(const Instruction& fft) {
  if (fft.opcode() != Opcode::kFft || fft.operand_count() != 1) return std::nullopt;
  const Instruction& t = *fft.operand(0);
  if (t.users().size() != 1 || (t.parent() != nullptr && t.parent()->root() == &t))
    return std::nullopt;
  const std::vector<int64_t>* perm = PlainTransposePermutation(t);
  if (perm == nullptr) return std::nullopt;
  const Shape& x = t.operand(0)->shape();
  const Shape& to = t.shape();
  // Result dim i is x's dim perm[i]: x's k-th minor dim is the result's
  // dim inverse[x's].
  std::vector<int64_t> inverse(perm->size());
  for (size_t i = 0; i < perm->size(); ++i) inverse[(*perm)[i]] = static_cast<int64_t>(i);
  Layout layout = to.layout();
  const auto& x_order = x.layout().minor_to_major;
  for (size_t k = 0; k < x_order.size(); ++k) layout.minor_to_major[k] = inverse[x_order[k]];
  return layout;
}

// Replaces `transpose` by a bitcast of `source` to `shape`, placed right
// after `after` (a scheduled module runs and prints in list order), and
// removes the transpose.
absl::Status ReplaceByBitcast(Computation& c, passes::NameUniquer& names, Instruction* transpose,
                              const Shape& shape, Instruction* source, Instruction* after) {
  Instruction* bitcast = passes::AddInst(&c, names, Opcode::kBitcast, shape, {source}, transpose->name());
  if (absl::Status st = c.MoveAfter(bitcast, after); !st.ok()) return st;
  if (absl::Status st = transpose->ReplaceAllUsesWith(bitcast); !st.ok()) return st;
  passes::RemoveIfDead(transpose);
  return absl::OkStatus();
}

class LayoutSink : public Pass {
 public:
  absl::string_view name() const override { return "layout-sink"; }
  absl::StatusOr<bool> Run(Module& module) override {
    absl::flat_hash_set<const Computation*> fused;
    for (const Computation* c : module.computations())
      for (const Instruction* i : c->instructions())
        if (i->opcode() == Opcode::kFusion)
          if (const Computation* body = i->AttrOr<Computation*>("calls", nullptr)) fused.insert(body);
    bool changed = false, removed_fusion = false;
    for (Computation* c : module.computations()) {
      if (fused.contains(c)) continue;
      passes::NameUniquer names(*c);
      const std::vector<Instruction*> order = c->instructions();
      absl::flat_hash_set<const Instruction*> removed;
      for (Instruction* i : order) {
        if (removed.contains(i)) continue;
        if (const std::optional<Layout> read = ReadThroughLayout(*i)) {
          Instruction* transpose = i->operand(0);
          Shape shape = transpose->shape();
          shape.set_layout(*read);
          removed_fusion |= transpose->opcode() == Opcode::kFusion;
          removed.insert(transpose);
          if (absl::Status st = ReplaceByBitcast(*c, names, transpose, shape, transpose->operand(0), transpose);
              !st.ok())
            return st;
          changed = true;
        }
        const std::optional<Sink> sink = SinkOf(*i);
        if (!sink) continue;
        i->mutable_shape().set_layout(sink->layout);
        changed = true;
        if (!sink->user_becomes_bitcast) continue;
        Instruction* transpose = i->users()[0];
        removed_fusion |= transpose->opcode() == Opcode::kFusion;
        removed.insert(transpose);  // (its operand, the producer, stays used)
        if (absl::Status st = ReplaceByBitcast(*c, names, transpose, transpose->shape(), i, i); !st.ok())
          return st;
      }
    }
    // A wrapped transpose's computation is called by nothing now.
    if (removed_fusion) passes::RemoveUnreachableComputations(module);
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateLayoutSinkPass() { return std::make_unique<LayoutSink>(); }

}  // namespace hlo
