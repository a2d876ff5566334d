#include "backend_cpu/fusion_rows.h"

#include <algorithm>

#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backend_cpu/reduce_block.h"

namespace hlo::cpu {
namespace {

// What the users of a value need of it (a bit set).
enum Need : uint8_t { kNoNeed = 0, kNeedRows = 1, kNeedWhole = 2 };

bool HasOuterDims(const Shape& s, absl::Span<const int64_t> outer) {
  if (!s.IsArray() || s.rank() < static_cast<int64_t>(outer.size())) return false;
  for (size_t d = 0; d < outer.size(); ++d)
    if (s.dim(static_cast<int64_t>(d)) != outer[d]) return false;
  return true;
}

// Whether `instr` can be computed by rows with k = outer.size() outer
// dimensions; if so, what it needs of each operand.
bool IsRowOp(const Instruction& instr, absl::Span<const int64_t> outer, std::vector<uint8_t>* needs) {
  const Shape& shape = instr.shape();
  const Opcode op = instr.opcode();
  const int64_t k = static_cast<int64_t>(outer.size());
  needs->assign(instr.operand_count(), kNoNeed);
  if (IsElementwise(op)) {
    if (op == Opcode::kMap) return false;  // calls a computation per element
    for (int64_t i = 0; i < instr.operand_count(); ++i) {
      const Shape& o = instr.operand(i)->shape();
      if (!o.IsArray()) return false;
      if (o.rank() == 0 && shape.rank() != 0) {
        (*needs)[i] = kNeedWhole;  // a scalar spread over the block (clamp, select)
      } else if (o.dims() == shape.dims()) {
        (*needs)[i] = kNeedRows;
      } else {
        return false;
      }
    }
    return true;
  }
  switch (op) {
    case Opcode::kBroadcast: {
      const Shape& o = instr.operand(0)->shape();
      const std::vector<int64_t> dims = instr.AttrOr<std::vector<int64_t>>("dimensions", {});
      if (!o.IsArray() || static_cast<int64_t>(dims.size()) != o.rank()) return false;
      bool keeps_outer = o.rank() >= k;
      for (int64_t j = 0; j < k && keeps_outer; ++j) keeps_outer = dims[j] == j;
      if (keeps_outer) {
        (*needs)[0] = kNeedRows;  // row r of the result spreads row r of the operand
        return true;
      }
      if (std::all_of(dims.begin(), dims.end(), [&](int64_t d) { return d >= k; })) {
        (*needs)[0] = kNeedWhole;  // every row is the same spread of the operand
        return true;
      }
      return false;
    }
    case Opcode::kReduce: {
      if (instr.operand_count() != 2 || !shape.IsArray()) return false;
      const Shape& in = instr.operand(0)->shape();
      if (in.element_type() != shape.element_type() ||
          instr.operand(1)->shape().element_type() != shape.element_type())
        return false;
      const std::vector<int64_t> dims = instr.AttrOr<std::vector<int64_t>>("dimensions", {});
      for (int64_t d : dims)
        if (d < k || d >= in.rank()) return false;
      if (!ReduceBlockSupported(shape.element_type(), instr.AttrOr<Computation*>("to_apply", nullptr)))
        return false;
      (*needs)[0] = kNeedRows;
      (*needs)[1] = kNeedWhole;
      return true;
    }
    case Opcode::kTranspose: {
      // Permuting inner dims only: a strided copy inside each row.
      const std::vector<int64_t> perm = instr.AttrOr<std::vector<int64_t>>("dimensions", {});
      if (static_cast<int64_t>(perm.size()) != shape.rank()) return false;
      for (int64_t j = 0; j < k; ++j)
        if (perm[j] != j) return false;
      (*needs)[0] = kNeedRows;
      return true;
    }
    case Opcode::kSlice: {
      const SliceRanges* ranges = instr.GetAttr<SliceRanges>("slice");
      const Shape& o = instr.operand(0)->shape();
      if (ranges == nullptr || static_cast<int64_t>(ranges->size()) != o.rank()) return false;
      for (int64_t j = 0; j < o.rank(); ++j) {
        const SliceRange& r = (*ranges)[j];
        if (r.stride <= 0 || r.start < 0 || r.limit < r.start || r.limit > o.dim(j)) return false;
        if (j < k && (r.start != 0 || r.stride != 1 || r.limit != o.dim(j))) return false;
      }
      (*needs)[0] = kNeedRows;
      return true;
    }
    case Opcode::kReverse: {
      for (int64_t d : instr.AttrOr<std::vector<int64_t>>("dimensions", {}))
        if (d < k || d >= shape.rank()) return false;
      (*needs)[0] = kNeedRows;
      return true;
    }
    case Opcode::kIota: {
      // Values from indices alone (fusion_exec: a line spread over the row
      // for an inner iota dimension, a fill per row for an outer one).
      const int64_t d = instr.AttrOr<int64_t>("iota_dimension", -1);
      return shape.IsArray() && d >= 0 && d < shape.rank() && instr.operand_count() == 0;
    }
    case Opcode::kReshape:
    case Opcode::kBitcast: {
      // Both plain row-major (checked for every row value): the bytes of a
      // row are the same before and after.
      const Shape& o = instr.operand(0)->shape();
      if (o.element_type() != shape.element_type() || !HasOuterDims(o, outer)) return false;
      (*needs)[0] = kNeedRows;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

std::vector<const Instruction*> FusionOutputs(const Computation& fused) {
  const Instruction* root = fused.root();
  if (root == nullptr) return {};
  if (root->opcode() == Opcode::kTuple) return {root->operands().begin(), root->operands().end()};
  return {root};
}

bool IsPlainRowMajor(const Shape& shape) {
  if (!shape.IsArray() || !shape.IsStatic()) return false;
  if (!shape.has_layout()) return true;
  const Layout& l = shape.layout();
  return !l.HasNonDefaultTail() && ((l.minor_to_major.empty() && shape.rank() == 0) ||
                                     l.minor_to_major == Shape::DefaultMinorToMajor(shape.rank()));
}

namespace {

// The split at k of the values `order` (operands first) computing `outputs`;
// order[i] is given whole when sources[i] (parameters, constants, values
// from outside a group).
absl::StatusOr<RowSplit> SplitAt(std::vector<const Instruction*> order, const std::vector<bool>& sources,
                                 absl::Span<const Instruction* const> outputs, int64_t k) {
  if (outputs.empty()) return absl::InvalidArgumentError("no outputs");
  const Instruction* root = outputs[0];
  for (const Instruction* o : outputs)
    if (o == nullptr || !o->shape().IsArray() || o->shape().rank() < k)
      return absl::InvalidArgumentError(absl::StrCat("an output is not an array with ", k, " dimensions"));
  if (k < 1) return absl::InvalidArgumentError("k < 1");
  RowSplit split;
  split.outer_dims = k;
  const std::vector<int64_t> outer(root->shape().dims().begin(), root->shape().dims().begin() + k);
  split.rows = 1;
  for (int64_t d : outer) split.rows *= d;
  split.order = std::move(order);
  const int n = static_cast<int>(split.order.size());
  absl::flat_hash_map<const Instruction*, int> position;
  for (int i = 0; i < n; ++i) position[split.order[i]] = i;
  std::vector<uint8_t> needs(n, kNoNeed);
  split.role.assign(n, RowRole::kUnused);
  split.read_by_rows.assign(n, false);
  for (const Instruction* o : outputs) {
    auto it = position.find(o);
    if (it == position.end()) return absl::InvalidArgumentError("an output outside the computation");
    needs[it->second] = kNeedRows;
  }
  split.outputs.assign(outputs.begin(), outputs.end());
  std::vector<uint8_t> operand_needs;
  // Users before operands: a value's needs are complete when it is reached.
  for (int i = n - 1; i >= 0; --i) {
    const Instruction& instr = *split.order[i];
    const uint8_t need = needs[i];
    if (need == kNoNeed) continue;
    if (instr.HasSideEffect())
      return absl::InvalidArgumentError(absl::StrCat(instr.name(), " has a side effect"));
    const bool source = sources[i];
    if ((need & kNeedRows) && (!IsPlainRowMajor(instr.shape()) || !HasOuterDims(instr.shape(), outer)))
      return absl::InvalidArgumentError(
          absl::StrCat(instr.name(), " would be read by rows but is not a row-major array with the root's first ",
                       k, " dimensions"));
    if (need == kNeedRows && !source && IsRowOp(instr, outer, &operand_needs)) {
      split.role[i] = RowRole::kRows;
      for (int64_t j = 0; j < instr.operand_count(); ++j) {
        auto it = position.find(instr.operand(j));
        if (it == position.end()) return absl::InvalidArgumentError("an operand outside the computation");
        needs[it->second] |= operand_needs[j];
      }
      continue;
    }
    split.role[i] = RowRole::kWhole;
    split.read_by_rows[i] = (need & kNeedRows) != 0;
    if (source) continue;  // given: its operands (if any) are not needed
    if (split.read_by_rows[i]) split.whole_under_rows.push_back(&instr);
    for (const Instruction* o : instr.operands()) {
      auto it = position.find(o);
      if (it == position.end()) return absl::InvalidArgumentError("an operand outside the computation");
      needs[it->second] |= kNeedWhole;
    }
  }
  return split;
}

}  // namespace

absl::StatusOr<RowSplit> SplitIntoRowsAt(const Computation& fused, int64_t k) {
  std::vector<const Instruction*> order;
  std::vector<bool> sources;
  for (const Instruction* i : fused.MakePostOrder()) {
    order.push_back(i);
    sources.push_back(i->opcode() == Opcode::kParameter || i->opcode() == Opcode::kConstant);
  }
  return SplitAt(std::move(order), sources, FusionOutputs(fused), k);
}

absl::StatusOr<RowSplit> SplitGroupIntoRowsAt(absl::Span<const Instruction* const> members,
                                              absl::Span<const Instruction* const> outputs, int64_t k) {
  absl::flat_hash_set<const Instruction*> in_group(members.begin(), members.end());
  std::vector<const Instruction*> order;
  std::vector<bool> sources;
  absl::flat_hash_set<const Instruction*> seen;
  for (const Instruction* m : members)
    for (const Instruction* o : m->operands())
      if (!in_group.contains(o) && seen.insert(o).second) {
        order.push_back(o);
        sources.push_back(true);
      }
  for (const Instruction* m : members) {
    order.push_back(m);
    sources.push_back(m->opcode() == Opcode::kParameter || m->opcode() == Opcode::kConstant);
  }
  return SplitAt(std::move(order), sources, outputs, k);
}

namespace {

// The best of the splits at k = rank .. 1 (fewest whole values under rows,
// then the largest k).
template <class SplitAtK>
absl::StatusOr<RowSplit> BestSplit(absl::Span<const Instruction* const> outputs, SplitAtK&& split_at) {
  int64_t rank = -1;
  for (const Instruction* o : outputs) {
    if (o == nullptr || !o->shape().IsArray() || o->shape().rank() == 0)
      return absl::InvalidArgumentError("an output is not an array of rank >= 1");
    rank = rank < 0 ? o->shape().rank() : std::min(rank, o->shape().rank());
  }
  if (rank < 0) return absl::InvalidArgumentError("no outputs");
  std::optional<RowSplit> best;
  absl::Status first_error;
  for (int64_t k = rank; k >= 1; --k) {
    absl::StatusOr<RowSplit> s = split_at(k);
    if (!s.ok()) {
      if (first_error.ok()) first_error = s.status();
      continue;
    }
    if (!best || s->whole_under_rows.size() < best->whole_under_rows.size()) best = std::move(*s);
  }
  if (!best) return first_error;
  return std::move(*best);
}

}  // namespace

absl::StatusOr<RowSplit> SplitIntoRows(const Computation& fused) {
  const std::vector<const Instruction*> outputs = FusionOutputs(fused);
  return BestSplit(outputs, [&](int64_t k) { return SplitIntoRowsAt(fused, k); });
}

absl::StatusOr<RowSplit> SplitGroupIntoRows(absl::Span<const Instruction* const> members,
                                            absl::Span<const Instruction* const> outputs) {
  return BestSplit(outputs, [&](int64_t k) { return SplitGroupIntoRowsAt(members, outputs, k); });
}

}  // namespace hlo::cpu
