// Shape rules for every opcode of HLO_OPCODE_LIST, following the semantics
// of XLA's operation-semantics document and XLA's shape inference. Every
// index taken from an attribute or an operand list is range-checked before
// use: malformed input yields an error, never a crash. This file holds the
// dispatcher and the public functions; the rules live in one file per op
// family (shape_inference_<family>.cc, interface in
// shape_inference_internal.h).
#include "ir/shape_inference.h"

#include <string>

#include "ir/shape_inference_internal.h"

namespace hlo {
namespace shape_internal {
namespace {

absl::StatusOr<Shape> Dispatch(const Ctx& c) {
  const Opcode op = c.inst.opcode();
  switch (op) {
    // Elementwise unary.
    case Opcode::kAbs:
    case Opcode::kAcos:
    case Opcode::kAcosh:
    case Opcode::kAsin:
    case Opcode::kAsinh:
    case Opcode::kAtanh:
    case Opcode::kCbrt:
    case Opcode::kCeil:
    case Opcode::kClz:
    case Opcode::kCopy:
    case Opcode::kCos:
    case Opcode::kCosh:
    case Opcode::kErf:
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kFloor:
    case Opcode::kImag:
    case Opcode::kIsFinite:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kLogistic:
    case Opcode::kNegate:
    case Opcode::kNot:
    case Opcode::kPopulationCount:
    case Opcode::kReal:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kRsqrt:
    case Opcode::kSign:
    case Opcode::kSin:
    case Opcode::kSinh:
    case Opcode::kSqrt:
    case Opcode::kTan:
    case Opcode::kTanh:
      return Unary(c);
    // Elementwise binary.
    case Opcode::kAdd:
    case Opcode::kAnd:
    case Opcode::kAtan2:
    case Opcode::kCompare:
    case Opcode::kComplex:
    case Opcode::kDivide:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kMulhi:
    case Opcode::kMultiply:
    case Opcode::kOr:
    case Opcode::kPower:
    case Opcode::kRemainder:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kSubtract:
    case Opcode::kXor:
      return Binary(c);
    case Opcode::kSelect:
      return Select(c);
    case Opcode::kClamp:
      return Clamp(c);
    case Opcode::kConvert:
      return Convert(c);
    case Opcode::kBitcastConvert:
      return BitcastConvert(c);
    case Opcode::kStochasticConvert:
      return StochasticConvert(c);
    case Opcode::kBitcast:
      HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
      return Written(c);
    // Shape-required leaves.
    case Opcode::kParameter:
    case Opcode::kConstant:
      HLO_RETURN_IF_ERROR(ExpectCount(c, 0));
      return Written(c);
    case Opcode::kCustomCall:
      return Written(c);
    case Opcode::kIota:
      return Iota(c);
    case Opcode::kBroadcast:
      return Broadcast(c);
    case Opcode::kReshape:
      return Reshape(c);
    case Opcode::kDynamicReshape:
      return DynamicReshape(c);
    case Opcode::kTranspose:
      return Transpose(c);
    case Opcode::kReverse:
      return Reverse(c);
    case Opcode::kSlice:
      return Slice(c);
    case Opcode::kDynamicSlice:
      return DynamicSlice(c);
    case Opcode::kDynamicUpdateSlice:
      return DynamicUpdateSlice(c);
    case Opcode::kConcatenate:
      return Concatenate(c);
    case Opcode::kPad:
      return Pad(c);
    case Opcode::kGather:
      return Gather(c);
    case Opcode::kScatter:
      return Scatter(c);
    case Opcode::kReduce:
      return Reduce(c);
    case Opcode::kReduceWindow:
      return ReduceWindow(c);
    case Opcode::kSelectAndScatter:
      return SelectAndScatter(c);
    case Opcode::kMap:
      return Map(c);
    case Opcode::kSort:
      return Sort(c);
    case Opcode::kTopK:
      return TopK(c);
    case Opcode::kScan:
      return Scan(c);
    case Opcode::kDot:
      return Dot(c);
    case Opcode::kScaledDot:
      return ScaledDot(c);
    case Opcode::kRaggedDot:
      return RaggedDot(c);
    case Opcode::kConvolution:
      return Convolution(c);
    case Opcode::kFft:
      return Fft(c);
    case Opcode::kCholesky:
      return Cholesky(c);
    case Opcode::kTriangularSolve:
      return TriangularSolve(c);
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad:
      return BatchNorm(c);
    case Opcode::kGetTupleElement:
      return GetTupleElement(c);
    case Opcode::kTuple:
      return Shape::Tuple(OperandShapes(c));
    case Opcode::kCall:
      return Call(c);
    case Opcode::kWhile:
      return While(c);
    case Opcode::kConditional:
      return Conditional(c);
    case Opcode::kFusion:
      return Fusion(c);
    case Opcode::kAsyncStart:
      return AsyncStart(c);
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      return AsyncUpdateDone(c);
    case Opcode::kCopyStart:
      return CopyStart(c);
    case Opcode::kCopyDone: {
      HLO_ASSIGN_OR_RETURN(Shape dest, DoneOf(c, 0));
      if (c.op(0).tuple_size() >= 2 && !ShapesCompatible(dest, c.op(0).tuple_shape(1)))
        return Invalid("copy-done source and destination buffers must have the same shape, got ", S(dest),
                       " and ", S(c.op(0).tuple_shape(1)));
      return dest;
    }
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
      return AllReduce(c);
    case Opcode::kAllReduceDone:
      return Identity(c);
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
      return AllGather(c);
    case Opcode::kAllGatherDone:
      return DoneOf(c, 1);
    case Opcode::kReduceScatter:
      return ReduceScatter(c);
    case Opcode::kAllToAll:
      return AllToAll(c);
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
      return CollectivePermute(c);
    case Opcode::kCollectivePermuteDone:
      return DoneOf(c, 1);
    case Opcode::kCollectiveBroadcast:
      return TupleOrOperands(c);
    case Opcode::kRaggedAllToAll:
      return RaggedAllToAll(c);
    case Opcode::kCollectiveReduce:
    case Opcode::kShuffle:
      // Newest opcodes: semantics not pinned down; the written shape stands.
      return Written(c);
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
      HLO_RETURN_IF_ERROR(ExpectCount(c, 0));
      return U32();
    case Opcode::kSend:
      return Send(c);
    case Opcode::kSendDone:
      return SendDone(c);
    case Opcode::kRecv:
      return Recv(c);
    case Opcode::kRecvDone:
      return RecvDone(c);
    case Opcode::kInfeed:
      return Infeed(c);
    case Opcode::kOutfeed:
      return Outfeed(c);
    case Opcode::kAfterAll:
      return AfterAll(c);
    case Opcode::kAddDependency:
      HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
      HLO_RETURN_IF_ERROR(ExpectToken(c, 1));
      return c.op(0);
    case Opcode::kDomain:
    case Opcode::kOptimizationBarrier:
      return Identity(c);
    case Opcode::kGetDimensionSize:
      return GetDimensionSize(c);
    case Opcode::kSetDimensionSize:
      return SetDimensionSize(c);
    case Opcode::kReducePrecision:
      return ReducePrecision(c);
    case Opcode::kRng:
      return Rng(c);
    case Opcode::kRngBitGenerator:
      return RngBitGenerator(c);
    case Opcode::kRngGetAndUpdateState:
      HLO_RETURN_IF_ERROR(ExpectCount(c, 0));
      return MakeArray(PrimitiveType::U64, {2});
  }
  return Invalid("no shape rule for opcode ", c.name());
}

void AppendDims(std::string* out, const Shape& s) {
  out->push_back('[');
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (i > 0) out->push_back(',');
    if (s.dim(i) == Shape::kUnboundedSize) {
      out->push_back('?');
    } else {
      if (s.is_dynamic_dim(i)) absl::StrAppend(out, "<=");
      absl::StrAppend(out, s.dim(i));
    }
  }
  out->push_back(']');
}

void AppendShape(std::string* out, const Shape& s) {
  if (s.IsBuffer()) {
    out->append("b(");
    if (!s.tuple_shapes().empty()) AppendShape(out, s.tuple_shape(0));
    out->push_back(')');
    return;
  }
  if (s.IsTuple()) {
    out->push_back('(');
    for (int64_t i = 0; i < s.tuple_size(); ++i) {
      if (i > 0) out->append(", ");
      AppendShape(out, s.tuple_shape(i));
    }
    out->push_back(')');
    return;
  }
  if (s.IsToken()) {
    out->append("token[]");
    return;
  }
  if (s.IsOpaque()) {
    out->append("opaque[]");
    return;
  }
  if (!s.IsValid()) {
    out->append("<invalid shape>");
    return;
  }
  absl::StrAppend(out, PrimitiveTypeName(s.element_type()));
  AppendDims(out, s);
}

}  // namespace
}  // namespace shape_internal

using shape_internal::AppendShape;
using shape_internal::Ctx;
using shape_internal::Dispatch;
using shape_internal::Invalid;
using shape_internal::SameDims;
using shape_internal::NormalizeLayouts;


std::string ShapeToMessageString(const Shape& shape) {
  std::string out;
  AppendShape(&out, shape);
  return out;
}

bool ShapesCompatible(const Shape& a, const Shape& b, bool ignore_fp_precision) {
  if (a.IsTuple() != b.IsTuple() || a.IsBuffer() != b.IsBuffer()) return false;
  if (a.IsTuple() || a.IsBuffer()) {
    if (a.tuple_size() != b.tuple_size()) return false;
    for (int64_t i = 0; i < a.tuple_size(); ++i)
      if (!ShapesCompatible(a.tuple_shape(i), b.tuple_shape(i), ignore_fp_precision)) return false;
    return true;
  }
  if (a.element_type() != b.element_type()) {
    if (!(ignore_fp_precision && IsFloat(a.element_type()) && IsFloat(b.element_type()))) return false;
  }
  if (!a.IsArray()) return true;
  return SameDims(a, b);
}

absl::StatusOr<Shape> InferShape(const Instruction& inst) {
  Ctx c{inst};
  for (int64_t i = 0; i < inst.operand_count(); ++i)
    if (inst.operand(i) == nullptr) return Invalid("operand ", i, " of ", c.name(), " is missing");
  absl::StatusOr<Shape> r = Dispatch(c);
  if (r.ok()) NormalizeLayouts(&*r);
  return r;
}

}  // namespace hlo
