// Dot, convolution, reductions, windowed ops, map and sort.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "client/ops_internal.h"
#include "ir/shape_inference.h"

namespace hlo::client {

XlaOp DotGeneral(XlaOp lhs, XlaOp rhs, const DotDimensionNumbers& d) {
  XlaBuilder* b = BuilderOf({lhs, rhs});
  if (b == nullptr) return XlaOp();
  Attrs attrs = {{"lhs_batch_dims", IntList(d.lhs_batch_dimensions)},
                 {"lhs_contracting_dims", IntList(d.lhs_contracting_dimensions)},
                 {"rhs_batch_dims", IntList(d.rhs_batch_dimensions)},
                 {"rhs_contracting_dims", IntList(d.rhs_contracting_dimensions)}};
  return b->AddInstruction("DotGeneral", Opcode::kDot, {lhs, rhs}, std::move(attrs));
}

XlaOp Dot(XlaOp lhs, XlaOp rhs) {
  XlaBuilder* b = BuilderOf({lhs, rhs});
  if (b == nullptr || !b->CheckOperands("Dot", {lhs, rhs})) return XlaOp();
  const int64_t lr = ShapeOf(lhs).rank(), rr = ShapeOf(rhs).rank();
  if (lr < 1 || lr > 2 || rr < 1 || rr > 2)
    return Fail(b, "Dot",
                absl::StrCat("operands must be vectors or matrices, got ", ShapeToMessageString(ShapeOf(lhs)),
                             " and ", ShapeToMessageString(ShapeOf(rhs))));
  DotDimensionNumbers d;
  d.lhs_contracting_dimensions = {lr - 1};
  d.rhs_contracting_dimensions = {0};
  return DotGeneral(lhs, rhs, d);
}

std::vector<std::pair<int64_t, int64_t>> MakePadding(absl::Span<const int64_t> input_dimensions,
                                                     absl::Span<const int64_t> window_dimensions,
                                                     absl::Span<const int64_t> window_strides, Padding padding) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = 0; i < input_dimensions.size(); ++i) {
    if (padding == Padding::kValid || i >= window_dimensions.size() || i >= window_strides.size() ||
        window_strides[i] <= 0) {
      out.emplace_back(0, 0);
      continue;
    }
    // SAME: the output has ceil(input / stride) elements; the padding that
    // needs is split with the odd element at the high end.
    const int64_t in = input_dimensions[i], stride = window_strides[i];
    const int64_t out_size = (in + stride - 1) / stride;
    const int64_t total = std::max<int64_t>((out_size - 1) * stride + window_dimensions[i] - in, 0);
    out.emplace_back(total / 2, total - total / 2);
  }
  return out;
}

ConvolutionDimensionNumbers CreateDefaultConvDimensionNumbers(int num_spatial_dims) {
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = 0;
  d.input_feature_dimension = 1;
  d.kernel_output_feature_dimension = 0;
  d.kernel_input_feature_dimension = 1;
  d.output_batch_dimension = 0;
  d.output_feature_dimension = 1;
  for (int i = 0; i < num_spatial_dims; ++i) {
    d.input_spatial_dimensions.push_back(i + 2);
    d.kernel_spatial_dimensions.push_back(i + 2);
    d.output_spatial_dimensions.push_back(i + 2);
  }
  d.input_rank = d.kernel_rank = d.output_rank = num_spatial_dims + 2;
  return d;
}

XlaOp ConvGeneralDilated(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                         absl::Span<const std::pair<int64_t, int64_t>> padding,
                         absl::Span<const int64_t> lhs_dilation, absl::Span<const int64_t> rhs_dilation,
                         const ConvolutionDimensionNumbers& dimension_numbers, int64_t feature_group_count,
                         int64_t batch_group_count) {
  XlaBuilder* b = BuilderOf({lhs, rhs});
  if (b == nullptr || !b->CheckOperands("ConvGeneralDilated", {lhs, rhs})) return XlaOp();
  ConvolutionDimensionNumbers d = dimension_numbers;
  const Shape& k = ShapeOf(rhs);
  // The window's sizes are the kernel's spatial dimensions.
  std::vector<int64_t> sizes;
  for (int64_t kd : d.kernel_spatial_dimensions) {
    if (kd < 0 || kd >= k.rank())
      return Fail(b, "ConvGeneralDilated",
                  absl::StrCat("kernel spatial dimension ", kd, " is out of range for ", ShapeToMessageString(k)));
    sizes.push_back(k.dim(kd));
  }
  absl::StatusOr<Window> w = internal::MakeWindow(sizes, window_strides, padding, lhs_dilation, rhs_dilation);
  if (!w.ok()) return Fail(b, "ConvGeneralDilated", w.status().message());
  // Label-group ranks default to the operands' ranks.
  if (d.input_rank == 0) d.input_rank = ShapeOf(lhs).rank();
  if (d.kernel_rank == 0) d.kernel_rank = k.rank();
  if (d.output_rank == 0) d.output_rank = ShapeOf(lhs).rank();
  Attrs attrs = {{"window", *std::move(w)},
                 {"dim_labels", Boxed<ConvolutionDimensionNumbers>(std::move(d))},
                 {"feature_group_count", feature_group_count},
                 {"batch_group_count", batch_group_count}};
  return b->AddInstruction("ConvGeneralDilated", Opcode::kConvolution, {lhs, rhs}, std::move(attrs));
}

XlaOp ConvGeneral(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                  const ConvolutionDimensionNumbers& dimension_numbers, int64_t feature_group_count,
                  int64_t batch_group_count) {
  return ConvGeneralDilated(lhs, rhs, window_strides, padding, {}, {}, dimension_numbers, feature_group_count,
                            batch_group_count);
}

XlaOp ConvWithGeneralDimensions(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides, Padding padding,
                                const ConvolutionDimensionNumbers& d, int64_t feature_group_count,
                                int64_t batch_group_count) {
  XlaBuilder* b = BuilderOf({lhs, rhs});
  if (b == nullptr || !b->CheckOperands("ConvWithGeneralDimensions", {lhs, rhs})) return XlaOp();
  const Shape& in = ShapeOf(lhs);
  const Shape& k = ShapeOf(rhs);
  std::vector<int64_t> in_sizes, win_sizes;
  for (size_t i = 0; i < d.input_spatial_dimensions.size() && i < d.kernel_spatial_dimensions.size(); ++i) {
    const int64_t id = d.input_spatial_dimensions[i], kd = d.kernel_spatial_dimensions[i];
    if (id < 0 || id >= in.rank() || kd < 0 || kd >= k.rank())
      return Fail(b, "ConvWithGeneralDimensions",
                  absl::StrCat("spatial dimensions out of range for ", ShapeToMessageString(in), " and ",
                               ShapeToMessageString(k)));
    in_sizes.push_back(in.dim(id));
    win_sizes.push_back(k.dim(kd));
  }
  return ConvGeneral(lhs, rhs, window_strides, MakePadding(in_sizes, win_sizes, window_strides, padding), d,
                     feature_group_count, batch_group_count);
}

XlaOp Conv(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides, Padding padding,
           int64_t feature_group_count, int64_t batch_group_count) {
  const int spatial = lhs.valid() ? static_cast<int>(std::max<int64_t>(ShapeOf(lhs).rank() - 2, 0)) : 0;
  return ConvWithGeneralDimensions(lhs, rhs, window_strides, padding, CreateDefaultConvDimensionNumbers(spatial),
                                   feature_group_count, batch_group_count);
}

XlaOp ConvWithGeneralPadding(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                             absl::Span<const std::pair<int64_t, int64_t>> padding, int64_t feature_group_count,
                             int64_t batch_group_count) {
  const int spatial = lhs.valid() ? static_cast<int>(std::max<int64_t>(ShapeOf(lhs).rank() - 2, 0)) : 0;
  return ConvGeneral(lhs, rhs, window_strides, padding, CreateDefaultConvDimensionNumbers(spatial),
                     feature_group_count, batch_group_count);
}

// ---------------------------------------------------------------------------
// Reductions
// ---------------------------------------------------------------------------

XlaOp Reduce(XlaBuilder* b, absl::Span<const XlaOp> operands, absl::Span<const XlaOp> init_values,
             const XlaComputation& computation, absl::Span<const int64_t> dimensions_to_reduce) {
  std::vector<XlaOp> ops(operands.begin(), operands.end());
  ops.insert(ops.end(), init_values.begin(), init_values.end());
  if (!b->CheckOperands("Reduce", ops)) return XlaOp();
  Computation* comp = internal::Use(b, "Reduce", computation);
  if (comp == nullptr) return XlaOp();
  return b->AddInstruction("Reduce", Opcode::kReduce, ops,
                           {{"dimensions", IntList(dimensions_to_reduce)}, {"to_apply", comp}});
}

XlaOp Reduce(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
             absl::Span<const int64_t> dimensions_to_reduce) {
  XlaBuilder* b = BuilderOf({operand, init_value});
  if (b == nullptr) return XlaOp();
  return Reduce(b, {operand}, {init_value}, computation, dimensions_to_reduce);
}

XlaOp ReduceAll(XlaOp operand, XlaOp init_value, const XlaComputation& computation) {
  XlaBuilder* b = BuilderOf({operand, init_value});
  if (b == nullptr || !b->CheckOperands("ReduceAll", {operand})) return XlaOp();
  std::vector<int64_t> all;
  for (int64_t i = 0; i < ShapeOf(operand).rank(); ++i) all.push_back(i);
  return Reduce(operand, init_value, computation, all);
}

XlaOp ReduceWindowWithGeneralPadding(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
                                     absl::Span<const int64_t> window_dimensions,
                                     absl::Span<const int64_t> window_strides,
                                     absl::Span<const int64_t> base_dilations,
                                     absl::Span<const int64_t> window_dilations,
                                     absl::Span<const std::pair<int64_t, int64_t>> padding) {
  XlaBuilder* b = BuilderOf({operand, init_value});
  if (b == nullptr || !b->CheckOperands("ReduceWindow", {operand, init_value})) return XlaOp();
  absl::StatusOr<Window> w =
      internal::MakeWindow(window_dimensions, window_strides, padding, base_dilations, window_dilations);
  if (!w.ok()) return Fail(b, "ReduceWindow", w.status().message());
  Computation* comp = internal::Use(b, "ReduceWindow", computation);
  if (comp == nullptr) return XlaOp();
  return b->AddInstruction("ReduceWindow", Opcode::kReduceWindow, {operand, init_value},
                           {{"window", *std::move(w)}, {"to_apply", comp}});
}

XlaOp ReduceWindow(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
                   absl::Span<const int64_t> window_dimensions, absl::Span<const int64_t> window_strides,
                   Padding padding) {
  if (!operand.valid()) return ReduceWindowWithGeneralPadding(operand, init_value, computation, {}, {}, {}, {}, {});
  const Shape& s = ShapeOf(operand);
  std::vector<int64_t> dims(s.dims().begin(), s.dims().end());
  return ReduceWindowWithGeneralPadding(operand, init_value, computation, window_dimensions, window_strides, {}, {},
                                        MakePadding(dims, window_dimensions, window_strides, padding));
}

XlaOp SelectAndScatterWithGeneralPadding(XlaOp operand, const XlaComputation& select,
                                         absl::Span<const int64_t> window_dimensions,
                                         absl::Span<const int64_t> window_strides,
                                         absl::Span<const std::pair<int64_t, int64_t>> padding, XlaOp source,
                                         XlaOp init_value, const XlaComputation& scatter) {
  XlaBuilder* b = BuilderOf({operand, source, init_value});
  if (b == nullptr || !b->CheckOperands("SelectAndScatter", {operand, source, init_value})) return XlaOp();
  absl::StatusOr<Window> w = internal::MakeWindow(window_dimensions, window_strides, padding, {}, {});
  if (!w.ok()) return Fail(b, "SelectAndScatter", w.status().message());
  Computation* sel = internal::Use(b, "SelectAndScatter", select);
  Computation* sc = sel == nullptr ? nullptr : internal::Use(b, "SelectAndScatter", scatter);
  if (sc == nullptr) return XlaOp();
  return b->AddInstruction("SelectAndScatter", Opcode::kSelectAndScatter, {operand, source, init_value},
                           {{"window", *std::move(w)}, {"select", sel}, {"scatter", sc}});
}

XlaOp SelectAndScatter(XlaOp operand, const XlaComputation& select, absl::Span<const int64_t> window_dimensions,
                       absl::Span<const int64_t> window_strides, Padding padding, XlaOp source, XlaOp init_value,
                       const XlaComputation& scatter) {
  std::vector<std::pair<int64_t, int64_t>> pads;
  if (operand.valid()) {
    const Shape& s = ShapeOf(operand);
    pads = MakePadding(std::vector<int64_t>(s.dims().begin(), s.dims().end()), window_dimensions, window_strides,
                       padding);
  }
  return SelectAndScatterWithGeneralPadding(operand, select, window_dimensions, window_strides, pads, source,
                                            init_value, scatter);
}

XlaOp Map(XlaBuilder* b, absl::Span<const XlaOp> operands, const XlaComputation& computation,
          absl::Span<const int64_t> dimensions) {
  if (!b->CheckOperands("Map", operands)) return XlaOp();
  Computation* comp = internal::Use(b, "Map", computation);
  if (comp == nullptr) return XlaOp();
  Attrs attrs;
  if (!dimensions.empty()) attrs.emplace_back("dimensions", IntList(dimensions));
  attrs.emplace_back("to_apply", comp);
  return b->AddInstruction("Map", Opcode::kMap, operands, std::move(attrs));
}

XlaOp Sort(absl::Span<const XlaOp> operands, const XlaComputation& comparator, int64_t dimension,
           bool is_stable) {
  XlaBuilder* b = BuilderOf(operands);
  if (b == nullptr || !b->CheckOperands("Sort", operands)) return XlaOp();
  if (operands.empty()) return Fail(b, "Sort", "needs at least one operand");
  if (dimension == -1) dimension = ShapeOf(operands[0]).rank() - 1;
  Computation* comp = internal::Use(b, "Sort", comparator);
  if (comp == nullptr) return XlaOp();
  return b->AddInstruction("Sort", Opcode::kSort, operands,
                           {{"dimensions", IntList({dimension})}, {"is_stable", is_stable}, {"to_apply", comp}});
}

}  // namespace hlo::client
