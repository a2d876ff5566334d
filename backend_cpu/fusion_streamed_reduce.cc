#include "backend_cpu/fusion_streamed_reduce.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "backend_cpu/elementwise_kernels.h"
#include "backend_cpu/fusion_rows.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/reduce_block.h"

namespace hlo::cpu {
namespace {

using rowplan::StreamedReduce;

// Elements of a node's block buffer: a few of them stay in L1/L2 while the
// tree runs over one block.
constexpr int64_t kBlockElems = 8192;

bool IsComputedElementwise(const Instruction& i) {
  return IsElementwise(i.opcode()) && i.opcode() != Opcode::kMap && i.opcode() != Opcode::kParameter &&
         i.opcode() != Opcode::kConstant;
}

// The streamed form of whole reduce `p`, if it has one.
bool PlanOne(const FusionPlan& plan, const absl::flat_hash_map<const Instruction*, int>& position, int p,
             StreamedReduce* sr) {
  const RowSplit& s = plan.split;
  const Instruction& reduce = *s.order[p];
  if (reduce.opcode() != Opcode::kReduce || reduce.operand_count() != 2 || !reduce.shape().IsArray())
    return false;
  const Instruction& top = *reduce.operand(0);
  const Shape& shape = top.shape();
  const PrimitiveType type = shape.element_type();
  if (reduce.shape().element_type() != type || reduce.operand(1)->shape().element_type() != type ||
      !reduce.operand(1)->shape().IsArray() || reduce.operand(1)->shape().rank() != 0 ||
      !IsPlainRowMajor(shape))
    return false;
  // Reduced dims: exactly the leading ones, at least one kept.
  std::vector<int64_t> dims = reduce.AttrOr<std::vector<int64_t>>("dimensions", {});
  std::sort(dims.begin(), dims.end());
  const int64_t j = static_cast<int64_t>(dims.size());
  if (j == 0 || j >= shape.rank()) return false;
  for (int64_t d = 0; d < j; ++d)
    if (dims[d] != d) return false;
  sr->rows = 1;
  sr->row_elems = 1;
  for (int64_t d = 0; d < shape.rank(); ++d) (d < j ? sr->rows : sr->row_elems) *= shape.dim(d);
  if (sr->rows <= 0 || sr->row_elems <= 0) return false;
  sr->folder = ColumnFolderFor(type, reduce.AttrOr<Computation*>("to_apply", nullptr));
  if (sr->folder.fold == nullptr) return false;
  // A node: computed whole only for its one user in the tree.
  auto is_node = [&](const Instruction& i) {
    const int q = position.at(&i);
    return s.role[q] == RowRole::kWhole && IsComputedElementwise(i) && i.users().size() == 1 &&
           !s.read_by_rows[q] && plan.output_index[q] < 0 && i.shape().dims() == shape.dims() &&
           IsPlainRowMajor(i.shape());
  };
  if (!is_node(top)) return false;
  bool ok = true;
  std::function<void(const Instruction&)> visit = [&](const Instruction& i) {
    StreamedReduce::Node node;
    node.out = position.at(&i);
    std::vector<PrimitiveType> types;
    for (const Instruction* o : i.operands()) {
      if (is_node(*o)) {
        visit(*o);
      } else if (o->shape().IsArray() && o->shape().dims() == shape.dims()) {
        sr->leaves.push_back(position.at(o));
      } else {
        ok = false;
      }
      node.in.push_back(position.at(o));
      types.push_back(o->shape().element_type());
    }
    absl::StatusOr<ElementwiseAttrs> attrs = ElementwiseAttrsOf(i);
    if (!attrs.ok()) {
      ok = false;
      return;
    }
    absl::StatusOr<ElementwiseKernel> kernel =
        SelectElementwiseKernel(i.opcode(), types, i.shape().element_type(), *attrs);
    if (!kernel.ok()) {
      ok = false;
      return;
    }
    node.kernel = *kernel;
    node.params = attrs->params();
    sr->nodes.push_back(std::move(node));
  };
  visit(top);
  sr->reduce = p;
  sr->init = position.at(reduce.operand(1));
  return ok;
}

}  // namespace

void PlanStreamedReduces(FusionPlan* plan, const absl::flat_hash_map<const Instruction*, int>& position) {
  const int n = static_cast<int>(plan->split.order.size());
  plan->streamed_reduce_of.assign(n, -1);
  plan->in_streamed_tree.assign(n, false);
  for (int p : plan->whole) {
    StreamedReduce sr;
    if (!PlanOne(*plan, position, p, &sr)) continue;
    plan->streamed_reduce_of[p] = static_cast<int>(plan->streamed_reduces.size());
    for (const StreamedReduce::Node& node : sr.nodes) plan->in_streamed_tree[node.out] = true;
    plan->streamed_reduces.push_back(std::move(sr));
  }
}

absl::StatusOr<Literal> RunStreamedReduce(const FusionPlan& plan, const StreamedReduce& sr,
                                          absl::Span<const Literal* const> whole) {
  const RowSplit& s = plan.split;
  const int64_t rows = sr.rows, n = sr.row_elems, count = rows * n;
  // Leaves in row-major order (a parameter may come in another layout).
  std::vector<Literal> relaid;
  relaid.reserve(sr.leaves.size());
  std::vector<const uint8_t*> data(s.order.size(), nullptr);
  for (int q : sr.leaves) {
    const Literal* leaf = whole[q];
    if (leaf == nullptr || !leaf->shape().IsArray())
      return absl::InternalError("a streamed reduce's operand is missing");
    if (!IsPlainRowMajor(leaf->shape())) {  // (tiles pad: relayout before the size check)
      relaid.push_back(leaf->Relayout(RowMajorLayout(leaf->shape().rank())));
      leaf = &relaid.back();
    }
    if (leaf->physical_count() != count)
      return absl::InternalError("a streamed reduce's operand has the wrong size");
    data[q] = leaf->data();
  }
  const Literal* init = whole[sr.init];
  if (init == nullptr) return absl::InternalError("a streamed reduce's init value is missing");
  auto bytes_of = [&](int q) { return PrimitiveTypeByteSize(s.order[q]->shape().element_type()); };
  const int64_t block = std::clamp<int64_t>(kBlockElems / n, 1, rows);
  std::vector<std::vector<uint8_t>> buffers(sr.nodes.size());
  for (size_t k = 0; k < sr.nodes.size(); ++k) buffers[k].resize(block * n * bytes_of(sr.nodes[k].out));
  std::vector<std::array<uint8_t, kColumnAccBytes>> acc(n);
  sr.folder.start(acc.data(), init->data(), n);
  std::vector<const uint8_t*> at(s.order.size(), nullptr);  // block pointers
  std::vector<const void*> inputs;
  for (int64_t r0 = 0; r0 < rows; r0 += block) {
    const int64_t m = std::min(block, rows - r0);
    for (int q : sr.leaves) at[q] = data[q] + r0 * n * bytes_of(q);
    for (size_t k = 0; k < sr.nodes.size(); ++k) {
      const StreamedReduce::Node& node = sr.nodes[k];
      inputs.clear();
      for (int q : node.in) inputs.push_back(at[q]);
      node.kernel(inputs.data(), buffers[k].data(), 0, m * n, node.params);
      at[node.out] = buffers[k].data();
    }
    sr.folder.fold(acc.data(), buffers.back().data(), m, n);
  }
  const Shape& shape = s.order[sr.reduce]->shape();
  Literal out = RowMajorUninitialized(shape);
  if (out.physical_count() != n) return absl::InternalError("a streamed reduce's result has the wrong size");
  sr.folder.finish(acc.data(), out.data(), n);
  return ToLayout(std::move(out), shape.layout());
}

}  // namespace hlo::cpu
