#include "ir/cost_model.h"

#include <cmath>

#include "ir/element_type.h"

namespace hlo {
namespace {

double Elements(const Shape& s) {
  if (!s.IsArray()) return 0;
  return static_cast<double>(s.ElementCount());
}

// Array elements of every leaf of a (possibly tuple) shape.
double LeafElements(const Shape& s) {
  if (s.IsTuple()) {
    double n = 0;
    for (const Shape& e : s.tuple_shapes()) n += LeafElements(e);
    return n;
  }
  return Elements(s);
}

bool IsTranscendental(Opcode op) {
  return IsElementwise(op) &&
         (OpcodeAttrFamily(op) == AttrFamily::kUnaryAccuracy || op == Opcode::kPower ||
          op == Opcode::kAtan2);
}

double DotFlops(const Instruction& dot) {
  const Shape& lhs = dot.operand(0)->shape();
  double k = 1;
  if (const auto* dims = dot.GetAttr<std::vector<int64_t>>("lhs_contracting_dims"))
    for (int64_t d : *dims)
      if (d >= 0 && d < static_cast<int64_t>(lhs.dims().size())) k *= lhs.dim(d);
  return 2 * Elements(dot.shape()) * k;
}

double ConvolutionFlops(const Instruction& conv) {
  const auto* dn = conv.GetAttr<ConvolutionDimensionNumbers>("dim_labels");
  const Shape& kernel = conv.operand(1)->shape();
  if (dn == nullptr || !kernel.IsArray()) return 0;
  double taps = 1;
  for (int64_t d : dn->kernel_spatial_dimensions)
    if (d >= 0 && d < static_cast<int64_t>(kernel.dims().size())) taps *= kernel.dim(d);
  const int64_t in_feature = dn->kernel_input_feature_dimension;
  if (in_feature >= 0 && in_feature < static_cast<int64_t>(kernel.dims().size()))
    taps *= kernel.dim(in_feature);
  // A batch-grouped convolution (weight gradients) sums over its groups'
  // batch slices as well.
  const int64_t batch_groups = conv.AttrOr<int64_t>("batch_group_count", 1);
  return 2 * Elements(conv.shape()) * taps * static_cast<double>(std::max<int64_t>(1, batch_groups));
}

}  // namespace

int64_t ShapeBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t n = 0;
    for (const Shape& e : shape.tuple_shapes()) n += ShapeBytes(e);
    return n;
  }
  if (!shape.IsArray()) return 0;
  const int64_t bits = PrimitiveTypeBitWidth(shape.element_type());
  return (shape.ElementCount() * bits + 7) / 8;
}

OpCost EstimateCost(const Instruction& instr) {
  OpCost cost;
  const Opcode op = instr.opcode();
  if (IsElementwise(op)) {
    (IsTranscendental(op) ? cost.transcendentals : cost.flops) = Elements(instr.shape());
    return cost;
  }
  switch (op) {
    case Opcode::kDot:
      cost.flops = DotFlops(instr);
      break;
    case Opcode::kConvolution:
      cost.flops = ConvolutionFlops(instr);
      break;
    case Opcode::kReduce: {
      // One application of the reducer per input element (the first half
      // of the operands are the inputs, the second half their inits).
      const size_t inputs = instr.operands().size() / 2;
      for (size_t i = 0; i < inputs; ++i) cost.flops += LeafElements(instr.operand(i)->shape());
      break;
    }
    case Opcode::kReduceWindow: {
      double window = 1;
      if (const auto* w = instr.GetAttr<Window>("window"))
        for (const WindowDimension& d : w->dimensions) window *= d.size;
      cost.flops = LeafElements(instr.shape()) * window;
      break;
    }
    case Opcode::kAllReduce:
    case Opcode::kReduceScatter:
      for (const Instruction* o : instr.operands()) cost.flops += LeafElements(o->shape());
      break;
    case Opcode::kFft: {
      // 5 N log2 N for a complex transform of N points (the usual count).
      const double n = Elements(instr.operand(0)->shape());
      cost.flops = n > 1 ? 5 * n * std::log2(n) : 0;
      break;
    }
    default:
      break;
  }
  return cost;
}

}  // namespace hlo
