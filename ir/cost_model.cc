#include "ir/cost_model.h"

#include <algorithm>
#include <cmath>

#include "ir/computation.h"
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

// The first array of a shape (variadic reduce and friends return tuples).
const Shape& FirstArray(const Shape& s) {
  if (s.IsTuple() && !s.tuple_shapes().empty()) return FirstArray(s.tuple_shapes()[0]);
  return s;
}

// XLA's list (HloCostAnalysis::HandleElementwiseOp), not every function
// with an accuracy attribute: acos, asin, cosh, ... count as flops there.
bool IsTranscendental(Opcode op) {
  switch (op) {
    case Opcode::kAcosh: case Opcode::kErf: case Opcode::kExp: case Opcode::kLog:
    case Opcode::kLogistic: case Opcode::kPower: case Opcode::kSqrt: case Opcode::kCbrt:
    case Opcode::kRsqrt: case Opcode::kTanh: case Opcode::kSin: case Opcode::kCos:
    case Opcode::kExpm1: case Opcode::kLog1p: case Opcode::kAtan2: case Opcode::kTan:
      return true;
    default:
      return false;
  }
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
  // One multiply-add per tap for every output element, batch-grouped or
  // not: an output element of a batch-grouped convolution (a weight
  // gradient) reads one batch of its group.
  return 2 * Elements(conv.shape()) * taps;
}

double WindowElements(const Instruction& instr) {
  double window = 1;
  if (const auto* w = instr.GetAttr<Window>("window"))
    for (const WindowDimension& d : w->dimensions) window *= static_cast<double>(d.size);
  return window;
}

// Flops and transcendentals of one application of `comp` (a reducer, a
// mapped function): the sum over its instructions. Bytes are not carried
// over, as in XLA: the applied function works on values in registers.
OpCost AppliedCost(const Computation* comp, int depth);

OpCost Estimate(const Instruction& instr, int depth);

OpCost AppliedCost(const Computation* comp, int depth) {
  OpCost sum;
  // A verified module has no call cycles; the cap only keeps a hostile,
  // unverified one from recursing without end.
  if (comp == nullptr || depth > 64) return sum;
  for (const Instruction* i : comp->instructions()) sum += Estimate(*i, depth + 1);
  sum.bytes_accessed = 0;
  return sum;
}

const Computation* CalledComputation(const Instruction& instr, const char* attr) {
  const auto* c = instr.GetAttr<Computation*>(attr);
  return c != nullptr ? *c : nullptr;
}

int64_t Log2Ceiling(double n) {
  int64_t bits = 0;
  while (bits < 63 && static_cast<double>(int64_t{1} << bits) < n) ++bits;
  return bits;
}

int64_t Log2Floor(int64_t n) {
  int64_t bits = 0;
  while (n > 1) {
    n >>= 1;
    ++bits;
  }
  return bits;
}

// XLA's default traffic: every operand read whole, the result written whole.
double DefaultBytes(const Instruction& instr) {
  double bytes = static_cast<double>(CostShapeBytes(instr.shape()));
  for (const Instruction* o : instr.operands()) bytes += static_cast<double>(CostShapeBytes(o->shape()));
  return bytes;
}

double OperandBytesFrom(const Instruction& instr, size_t first) {
  double bytes = 0;
  for (size_t i = first; i < instr.operands().size(); ++i)
    bytes += static_cast<double>(CostShapeBytes(instr.operand(i)->shape()));
  return bytes;
}

OpCost Estimate(const Instruction& instr, int depth) {
  OpCost cost;
  cost.bytes_accessed = DefaultBytes(instr);
  const Opcode op = instr.opcode();
  const double out = static_cast<double>(CostShapeBytes(instr.shape()));
  switch (op) {
    // Views, bookkeeping and values that are already in memory.
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kGetTupleElement:
    case Opcode::kBitcast:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
    case Opcode::kDomain:
      cost.bytes_accessed = 0;
      return cost;
    case Opcode::kTuple:
      cost.bytes_accessed = out;  // the pointer table only
      return cost;
    case Opcode::kSlice:
      cost.bytes_accessed = 2 * out;
      return cost;
    case Opcode::kDynamicSlice:
    case Opcode::kGather:
      // Reads what it returns (and the indices), writes it.
      cost.bytes_accessed = 2 * out + OperandBytesFrom(instr, 1);
      return cost;
    case Opcode::kDynamicUpdateSlice:
      // In place: the update is read and written, the rest of operand 0
      // is not touched.
      cost.bytes_accessed = 2 * static_cast<double>(CostShapeBytes(instr.operand(1)->shape())) +
                            OperandBytesFrom(instr, 2);
      return cost;
    case Opcode::kCopy:
    case Opcode::kCall:
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kFusion:
    case Opcode::kAsyncStart:
      return cost;  // callees: analysis/cost_analysis.h
    case Opcode::kMap:
      cost = AppliedCost(CalledComputation(instr, "to_apply"), depth).Scaled(Elements(instr.shape()));
      cost.bytes_accessed = DefaultBytes(instr);
      return cost;
    default:
      break;
  }
  if (IsElementwise(op)) {
    (IsTranscendental(op) ? cost.transcendentals : cost.flops) = Elements(instr.shape());
    return cost;
  }
  const double bytes = cost.bytes_accessed;
  switch (op) {
    case Opcode::kDot:
      cost.flops = DotFlops(instr);
      break;
    case Opcode::kConvolution:
      cost.flops = ConvolutionFlops(instr);
      break;
    case Opcode::kReduce: {
      // The reducer runs once per input element that is folded into an
      // output: inputs minus outputs.
      const double n = Elements(FirstArray(instr.operand(0)->shape())) - Elements(FirstArray(instr.shape()));
      cost = AppliedCost(CalledComputation(instr, "to_apply"), depth).Scaled(std::max(0.0, n));
      break;
    }
    case Opcode::kReduceWindow: {
      const double n = (WindowElements(instr) - 1) * Elements(FirstArray(instr.shape()));
      cost = AppliedCost(CalledComputation(instr, "to_apply"), depth).Scaled(std::max(0.0, n));
      break;
    }
    case Opcode::kSelectAndScatter: {
      const double source = Elements(instr.operand(1)->shape());
      cost = AppliedCost(CalledComputation(instr, "select"), depth)
                 .Scaled(source * std::max(0.0, WindowElements(instr) - 1));
      cost += AppliedCost(CalledComputation(instr, "scatter"), depth).Scaled(source);
      break;
    }
    case Opcode::kScatter: {
      // One application of the combiner per update element.
      const size_t n = instr.operands().size();
      const double updates = n >= 3 ? Elements(instr.operand(n - 1)->shape()) : 0;
      cost = AppliedCost(CalledComputation(instr, "to_apply"), depth).Scaled(updates);
      break;
    }
    case Opcode::kSort: {
      const double n = Elements(instr.operand(0)->shape());
      cost.flops = n * static_cast<double>(Log2Ceiling(n));
      break;
    }
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
      cost.flops = LeafElements(instr.shape());
      break;
    case Opcode::kFft: {
      // 4 complex multiply-adds (2 flops each) per element and log2 factor.
      double log_factors = 1;
      if (const auto* len = instr.GetAttr<std::vector<int64_t>>("fft_length"))
        for (int64_t d : *len) log_factors *= static_cast<double>(Log2Floor(d));
      cost.flops = 2 * 4 * log_factors * Elements(FirstArray(instr.operand(0)->shape()));
      break;
    }
    case Opcode::kRng:
    case Opcode::kRngBitGenerator:
      cost.transcendentals = LeafElements(instr.shape());
      break;
    case Opcode::kTriangularSolve: {
      const Shape& a = instr.operand(0)->shape();
      const double n = a.IsArray() && !a.dims().empty() ? static_cast<double>(a.dims().back()) : 0;
      cost.flops = 2 * n * Elements(instr.operand(1)->shape());
      // Half of the triangular matrix is read.
      cost.bytes_accessed = out + static_cast<double>(CostShapeBytes(a)) / 2 +
                            static_cast<double>(CostShapeBytes(instr.operand(1)->shape()));
      return cost;
    }
    case Opcode::kCholesky: {
      const Shape& a = instr.operand(0)->shape();
      const double n = a.IsArray() && !a.dims().empty() ? static_cast<double>(a.dims().back()) : 0;
      cost.flops = std::floor(n * Elements(a) / 3);
      cost.bytes_accessed = static_cast<double>(CostShapeBytes(a));  // half read, half written
      return cost;
    }
    default:
      break;
  }
  cost.bytes_accessed = bytes;
  return cost;
}

}  // namespace

bool CostIncludesCallees(Opcode op) {
  switch (op) {
    case Opcode::kCall:
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kFusion:
    case Opcode::kAsyncStart:
      return false;
    default:
      return true;
  }
}

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

int64_t CostShapeBytes(const Shape& shape) {
  if (shape.IsTuple()) return 8 * static_cast<int64_t>(shape.tuple_shapes().size());
  return ShapeBytes(shape);
}

OpCost EstimateCost(const Instruction& instr) { return Estimate(instr, 0); }

}  // namespace hlo
