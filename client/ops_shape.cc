// Shape and data-movement ops: broadcast, reshape, collapse, transpose,
// rev, slices, concatenation, pad, gather, scatter.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/ops_internal.h"
#include "ir/shape_inference.h"

namespace hlo::client {

namespace {

// The operand's builder if it is a valid array op, else nullptr (the error
// is recorded).
XlaBuilder* ArrayOperand(absl::string_view op_name, XlaOp op) {
  XlaBuilder* b = op.builder();
  if (b == nullptr || !b->CheckOperands(op_name, {op})) return nullptr;
  if (!internal::IsArrayShape(ShapeOf(op))) {
    Fail(b, op_name, absl::StrCat("operand must be an array, got ", ShapeToMessageString(ShapeOf(op))));
    return nullptr;
  }
  return b;
}

std::string Dims(absl::Span<const int64_t> v) { return absl::StrCat("{", absl::StrJoin(v, ","), "}"); }

}  // namespace

XlaOp Broadcast(XlaOp operand, absl::Span<const int64_t> broadcast_sizes) {
  XlaBuilder* b = ArrayOperand("Broadcast", operand);
  if (b == nullptr) return XlaOp();
  const Shape& s = ShapeOf(operand);
  std::vector<int64_t> dims(broadcast_sizes.begin(), broadcast_sizes.end());
  std::vector<int64_t> map;
  for (int64_t i = 0; i < s.rank(); ++i) {
    map.push_back(static_cast<int64_t>(dims.size()));
    dims.push_back(s.dim(i));
  }
  return b->AddInstruction("Broadcast", Opcode::kBroadcast, {operand}, {{"dimensions", IntList(map)}},
                           Shape::Array(s.element_type(), dims));
}

XlaOp BroadcastInDim(XlaOp operand, absl::Span<const int64_t> out_dim_size,
                     absl::Span<const int64_t> broadcast_dimensions) {
  XlaBuilder* b = ArrayOperand("BroadcastInDim", operand);
  if (b == nullptr) return XlaOp();
  const Shape& s = ShapeOf(operand);
  if (static_cast<int64_t>(broadcast_dimensions.size()) != s.rank())
    return Fail(b, "BroadcastInDim",
                absl::StrCat("broadcast_dimensions ", Dims(broadcast_dimensions), " must have one entry per operand "
                             "dimension (operand ", ShapeToMessageString(s), ")"));
  // Operand dimensions of size 1 mapped to larger result dimensions expand
  // (XLA's BroadcastInDim): reshape them away, then broadcast.
  std::vector<int64_t> kept_dims, kept_sizes;
  for (int64_t i = 0; i < s.rank(); ++i) {
    const int64_t d = broadcast_dimensions[i];
    if (d < 0 || d >= static_cast<int64_t>(out_dim_size.size()))
      return Fail(b, "BroadcastInDim",
                  absl::StrCat("broadcast dimension ", d, " is out of range for the result rank ", out_dim_size.size()));
    if (s.dim(i) == 1 && out_dim_size[d] != 1) continue;
    kept_dims.push_back(d);
    kept_sizes.push_back(s.dim(i));
  }
  XlaOp in = operand;
  if (static_cast<int64_t>(kept_dims.size()) < s.rank())
    in = b->AddInstruction("BroadcastInDim", Opcode::kReshape, {operand}, {},
                           Shape::Array(s.element_type(), kept_sizes));
  return b->AddInstruction("BroadcastInDim", Opcode::kBroadcast, {in}, {{"dimensions", IntList(kept_dims)}},
                           Shape::Array(s.element_type(), out_dim_size));
}

XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> new_sizes) {
  XlaBuilder* b = ArrayOperand("Reshape", operand);
  if (b == nullptr) return XlaOp();
  return b->AddInstruction("Reshape", Opcode::kReshape, {operand}, {},
                           Shape::Array(ShapeOf(operand).element_type(), new_sizes));
}

XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> dimensions, absl::Span<const int64_t> new_sizes) {
  return Reshape(Transpose(operand, dimensions), new_sizes);
}

XlaOp Collapse(XlaOp operand, absl::Span<const int64_t> dimensions) {
  XlaBuilder* b = ArrayOperand("Collapse", operand);
  if (b == nullptr) return XlaOp();
  if (dimensions.size() <= 1) return operand;  // nothing to merge
  const Shape& s = ShapeOf(operand);
  for (size_t i = 0; i < dimensions.size(); ++i) {
    if (dimensions[i] < 0 || dimensions[i] >= s.rank() || (i > 0 && dimensions[i] != dimensions[i - 1] + 1))
      return Fail(b, "Collapse",
                  absl::StrCat("dimensions ", Dims(dimensions), " must be consecutive, in order, and within the rank "
                               "of ", ShapeToMessageString(s)));
  }
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (i > dimensions.front() && i <= dimensions.back()) {
      sizes.back() *= s.dim(i);
    } else {
      sizes.push_back(s.dim(i));
    }
  }
  return Reshape(operand, sizes);
}

XlaOp Transpose(XlaOp operand, absl::Span<const int64_t> permutation) {
  XlaBuilder* b = ArrayOperand("Transpose", operand);
  if (b == nullptr) return XlaOp();
  return b->AddInstruction("Transpose", Opcode::kTranspose, {operand}, {{"dimensions", IntList(permutation)}});
}

XlaOp Rev(XlaOp operand, absl::Span<const int64_t> dimensions) {
  XlaBuilder* b = ArrayOperand("Rev", operand);
  if (b == nullptr) return XlaOp();
  return b->AddInstruction("Rev", Opcode::kReverse, {operand}, {{"dimensions", IntList(dimensions)}});
}

XlaOp Slice(XlaOp operand, absl::Span<const int64_t> start_indices, absl::Span<const int64_t> limit_indices,
            absl::Span<const int64_t> strides) {
  XlaBuilder* b = ArrayOperand("Slice", operand);
  if (b == nullptr) return XlaOp();
  if (start_indices.size() != limit_indices.size() || start_indices.size() != strides.size())
    return Fail(b, "Slice",
                absl::StrCat("start_indices ", Dims(start_indices), ", limit_indices ", Dims(limit_indices),
                             " and strides ", Dims(strides), " must have the same length"));
  SliceRanges ranges;
  for (size_t i = 0; i < start_indices.size(); ++i) ranges.push_back({start_indices[i], limit_indices[i], strides[i]});
  return b->AddInstruction("Slice", Opcode::kSlice, {operand}, {{"slice", std::move(ranges)}});
}

XlaOp SliceInDim(XlaOp operand, int64_t start_index, int64_t limit_index, int64_t stride, int64_t dimno) {
  XlaBuilder* b = ArrayOperand("SliceInDim", operand);
  if (b == nullptr) return XlaOp();
  const Shape& s = ShapeOf(operand);
  if (dimno < 0 || dimno >= s.rank())
    return Fail(b, "SliceInDim", absl::StrCat("dimension ", dimno, " is out of range for ", ShapeToMessageString(s)));
  std::vector<int64_t> starts(s.rank(), 0), limits(s.dims().begin(), s.dims().end()), strides(s.rank(), 1);
  starts[dimno] = start_index;
  limits[dimno] = limit_index;
  strides[dimno] = stride;
  return Slice(operand, starts, limits, strides);
}

XlaOp DynamicSlice(XlaOp operand, absl::Span<const XlaOp> start_indices, absl::Span<const int64_t> slice_sizes) {
  std::vector<XlaOp> ops = {operand};
  ops.insert(ops.end(), start_indices.begin(), start_indices.end());
  XlaBuilder* b = BuilderOf(ops);
  if (b == nullptr) return XlaOp();
  return b->AddInstruction("DynamicSlice", Opcode::kDynamicSlice, ops,
                           {{"dynamic_slice_sizes", IntList(slice_sizes)}});
}

XlaOp DynamicUpdateSlice(XlaOp operand, XlaOp update, absl::Span<const XlaOp> start_indices) {
  std::vector<XlaOp> ops = {operand, update};
  ops.insert(ops.end(), start_indices.begin(), start_indices.end());
  XlaBuilder* b = BuilderOf(ops);
  if (b == nullptr) return XlaOp();
  return b->AddInstruction("DynamicUpdateSlice", Opcode::kDynamicUpdateSlice, ops);
}

XlaOp ConcatInDim(XlaBuilder* b, absl::Span<const XlaOp> operands, int64_t dimension) {
  return b->AddInstruction("ConcatInDim", Opcode::kConcatenate, operands, {{"dimensions", IntList({dimension})}});
}

XlaOp Pad(XlaOp operand, XlaOp padding_value, const PaddingConfig& padding_config) {
  XlaBuilder* b = BuilderOf({operand, padding_value});
  if (b == nullptr) return XlaOp();
  return b->AddInstruction("Pad", Opcode::kPad, {operand, padding_value}, {{"padding", padding_config}});
}

XlaOp Gather(XlaOp input, XlaOp start_indices, const GatherDimensionNumbers& d,
             absl::Span<const int64_t> slice_sizes, bool indices_are_sorted) {
  XlaBuilder* b = BuilderOf({input, start_indices});
  if (b == nullptr) return XlaOp();
  Attrs attrs = {{"offset_dims", IntList(d.offset_dims)},
                 {"collapsed_slice_dims", IntList(d.collapsed_slice_dims)},
                 {"start_index_map", IntList(d.start_index_map)},
                 {"operand_batching_dims", IntList(d.operand_batching_dims)},
                 {"start_indices_batching_dims", IntList(d.start_indices_batching_dims)},
                 {"index_vector_dim", d.index_vector_dim},
                 {"slice_sizes", IntList(slice_sizes)},
                 {"indices_are_sorted", indices_are_sorted}};
  return b->AddInstruction("Gather", Opcode::kGather, {input, start_indices}, std::move(attrs));
}

XlaOp Scatter(XlaOp input, XlaOp scatter_indices, XlaOp updates, const XlaComputation& update_computation,
              const ScatterDimensionNumbers& d, bool indices_are_sorted, bool unique_indices) {
  XlaBuilder* b = BuilderOf({input, scatter_indices, updates});
  if (b == nullptr) return XlaOp();
  Computation* comp = internal::Use(b, "Scatter", update_computation);
  if (comp == nullptr) return XlaOp();
  Attrs attrs = {{"update_window_dims", IntList(d.update_window_dims)},
                 {"inserted_window_dims", IntList(d.inserted_window_dims)},
                 {"scatter_dims_to_operand_dims", IntList(d.scatter_dims_to_operand_dims)},
                 {"input_batching_dims", IntList(d.input_batching_dims)},
                 {"scatter_indices_batching_dims", IntList(d.scatter_indices_batching_dims)},
                 {"index_vector_dim", d.index_vector_dim},
                 {"indices_are_sorted", indices_are_sorted},
                 {"unique_indices", unique_indices},
                 {"to_apply", comp}};
  return b->AddInstruction("Scatter", Opcode::kScatter, {input, scatter_indices, updates}, std::move(attrs));
}

}  // namespace hlo::client
