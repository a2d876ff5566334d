// Opcode -> family function. Derived from the opcode table's flags and
// attribute family so that a new opcode lands in its family without a new
// line here; the few opcodes whose family cannot be told from the table are
// listed explicitly.
#include "backend_cpu/op_eval.h"

namespace hlo::cpu {

OpEvalFn FamilyOf(Opcode op) {
  switch (op) {
    case Opcode::kMap:
      return &EvalReduction;
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kDynamicReshape:
      return &EvalDataMovement;
    case Opcode::kCopyStart:
    case Opcode::kCopyDone:
      return &EvalControl;
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
      return &EvalControl;
    case Opcode::kAllGatherDone:
    case Opcode::kAllReduceDone:
    case Opcode::kCollectivePermuteDone:
      return &EvalCollective;
    default:
      break;
  }
  if (IsElementwise(op)) return &EvalElementwise;
  switch (OpcodeAttrFamily(op)) {
    case AttrFamily::kIota:
    case AttrFamily::kBroadcast:
    case AttrFamily::kReshape:
    case AttrFamily::kSlice:
    case AttrFamily::kDynamicSlice:
    case AttrFamily::kConcatenate:
    case AttrFamily::kPad:
    case AttrFamily::kGather:
    case AttrFamily::kScatter:
    case AttrFamily::kDimensionsOne:  // get/set-dimension-size
      return &EvalDataMovement;
    case AttrFamily::kDimensionsReq:  // transpose, reverse
      return &EvalDataMovement;
    case AttrFamily::kReduce:
    case AttrFamily::kReduceWindow:
    case AttrFamily::kSelectAndScatter:
    case AttrFamily::kSort:
    case AttrFamily::kTopK:
    case AttrFamily::kScan:
      return &EvalReduction;
    case AttrFamily::kDot:
    case AttrFamily::kRaggedDot:
    case AttrFamily::kScaledDot:
    case AttrFamily::kConvolution:
    case AttrFamily::kFft:
    case AttrFamily::kCholesky:
    case AttrFamily::kTriangularSolve:
    case AttrFamily::kBatchNorm:
      return &EvalLinalg;
    case AttrFamily::kAllReduce:
    case AttrFamily::kReduceScatter:
    case AttrFamily::kAllGather:
    case AttrFamily::kAllToAll:
    case AttrFamily::kCollectiveGroups:
    case AttrFamily::kCollectivePermute:
    case AttrFamily::kCollectiveReduce:
    case AttrFamily::kSendRecv:
    case AttrFamily::kInfeed:
    case AttrFamily::kOutfeed:
      return &EvalCollective;
    default:
      return &EvalControl;
  }
}

}  // namespace hlo::cpu
