// The one opcode table. Lexer keywords, printer, verifier dispatch, pass
// predicates and kernel selection all read it: adding an op is one row here
// (plus its shape rule and its kernel).
#pragma once

#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace hlo {

// Property flags of an opcode.
enum OpFlags : uint32_t {
  kNoFlags = 0,
  kElementwise = 1u << 0,    // result element i depends only on operand elements i
  kSideEffect = 1u << 1,     // never removed or merged by passes
  kShapeRequired = 1u << 2,  // result shape cannot be inferred; text must give it
  kCommutative = 1u << 3,    // binary op whose operands may be swapped
};

// Which attribute family an opcode carries (see attr_spec.h).
enum class AttrFamily {
  kNone, kCompare, kUnaryAccuracy, kIota, kBroadcast, kReshape, kDimensionsReq, kSlice,
  kDynamicSlice, kConcatenate, kPad, kGather, kScatter, kGetTupleElement, kDimensionsOne,
  kDomain, kReducePrecision, kReduce, kReduceWindow, kSelectAndScatter, kMap, kSort, kTopK,
  kScan, kDot, kRaggedDot, kScaledDot, kConvolution, kFft, kCholesky, kTriangularSolve,
  kBatchNorm, kCall, kWhile, kConditional, kFusion, kCustomCall, kAsyncStart, kAsyncUpdateDone,
  kAllReduce, kReduceScatter, kAllGather, kAllToAll, kCollectiveGroups, kCollectivePermute,
  kSendRecv, kInfeed, kOutfeed, kRng, kRngBitGenerator, kRngGetAndUpdateState, kCopyStart,
  kCollectiveReduce,
};

// V(enumerator, text name, arity (-1 = variadic / checked by the verifier), flags, family)
#define HLO_OPCODE_LIST(V)                                                                    \
  V(kAbs, "abs", 1, kElementwise, kNone)                                                      \
  V(kAcos, "acos", 1, kElementwise, kUnaryAccuracy)                                           \
  V(kAcosh, "acosh", 1, kElementwise, kUnaryAccuracy)                                         \
  V(kAdd, "add", 2, kElementwise | kCommutative, kNone)                                       \
  V(kAddDependency, "add-dependency", 2, kNoFlags, kNone)                                     \
  V(kAfterAll, "after-all", -1, kNoFlags, kNone)                                              \
  V(kAllGather, "all-gather", -1, kNoFlags, kAllGather)                                       \
  V(kAllGatherDone, "all-gather-done", 1, kSideEffect, kNone)                                 \
  V(kAllGatherStart, "all-gather-start", -1, kSideEffect, kAllGather)                         \
  V(kAllReduce, "all-reduce", -1, kNoFlags, kAllReduce)                                       \
  V(kAllReduceDone, "all-reduce-done", 1, kSideEffect, kNone)                                 \
  V(kAllReduceStart, "all-reduce-start", -1, kSideEffect, kAllReduce)                         \
  V(kAllToAll, "all-to-all", -1, kNoFlags, kAllToAll)                                         \
  V(kAnd, "and", 2, kElementwise | kCommutative, kNone)                                       \
  V(kAsin, "asin", 1, kElementwise, kUnaryAccuracy)                                           \
  V(kAsinh, "asinh", 1, kElementwise, kUnaryAccuracy)                                         \
  V(kAsyncDone, "async-done", 1, kNoFlags, kAsyncUpdateDone)                                  \
  V(kAsyncStart, "async-start", -1, kNoFlags, kAsyncStart)                                    \
  V(kAsyncUpdate, "async-update", 1, kNoFlags, kAsyncUpdateDone)                              \
  V(kAtan2, "atan2", 2, kElementwise, kNone)                                                  \
  V(kAtanh, "atanh", 1, kElementwise, kUnaryAccuracy)                                         \
  V(kBatchNormGrad, "batch-norm-grad", 5, kNoFlags, kBatchNorm)                               \
  V(kBatchNormInference, "batch-norm-inference", 5, kNoFlags, kBatchNorm)                     \
  V(kBatchNormTraining, "batch-norm-training", 3, kNoFlags, kBatchNorm)                       \
  V(kBitcast, "bitcast", 1, kShapeRequired, kNone)                                            \
  V(kBitcastConvert, "bitcast-convert", 1, kShapeRequired, kNone)                             \
  V(kBroadcast, "broadcast", 1, kNoFlags, kBroadcast)                                         \
  V(kCall, "call", -1, kNoFlags, kCall)                                                       \
  V(kCbrt, "cbrt", 1, kElementwise, kUnaryAccuracy)                                           \
  V(kCeil, "ceil", 1, kElementwise, kNone)                                                    \
  V(kCholesky, "cholesky", 1, kNoFlags, kCholesky)                                            \
  V(kClamp, "clamp", 3, kElementwise, kNone)                                                  \
  V(kClz, "count-leading-zeros", 1, kElementwise, kNone)                                      \
  V(kCollectiveBroadcast, "collective-broadcast", -1, kNoFlags, kCollectiveGroups)            \
  V(kCollectivePermute, "collective-permute", -1, kNoFlags, kCollectivePermute)               \
  V(kCollectivePermuteDone, "collective-permute-done", 1, kSideEffect, kNone)                 \
  V(kCollectivePermuteStart, "collective-permute-start", -1, kSideEffect, kCollectivePermute) \
  V(kCollectiveReduce, "collective-reduce", -1, kNoFlags, kCollectiveReduce)                  \
  V(kCompare, "compare", 2, kElementwise, kCompare)                                           \
  V(kComplex, "complex", 2, kElementwise, kNone)                                              \
  V(kConcatenate, "concatenate", -1, kNoFlags, kConcatenate)                                  \
  V(kConditional, "conditional", -1, kNoFlags, kConditional)                                  \
  V(kConstant, "constant", 0, kShapeRequired, kNone)                                          \
  V(kConvert, "convert", 1, kElementwise | kShapeRequired, kNone)                             \
  V(kConvolution, "convolution", 2, kNoFlags, kConvolution)                                   \
  V(kCopy, "copy", 1, kElementwise, kNone)                                                    \
  V(kCopyDone, "copy-done", 1, kNoFlags, kNone)                                               \
  V(kCopyStart, "copy-start", 1, kNoFlags, kCopyStart)                                        \
  V(kCos, "cosine", 1, kElementwise, kUnaryAccuracy)                                          \
  V(kCosh, "cosh", 1, kElementwise, kUnaryAccuracy)                                           \
  V(kCustomCall, "custom-call", -1, kShapeRequired, kCustomCall)                              \
  V(kDivide, "divide", 2, kElementwise, kNone)                                                \
  V(kDomain, "domain", 1, kNoFlags, kDomain)                                                  \
  V(kDot, "dot", -1, kNoFlags, kDot)                                                          \
  V(kDynamicReshape, "dynamic-reshape", -1, kShapeRequired, kNone)                            \
  V(kDynamicSlice, "dynamic-slice", -1, kNoFlags, kDynamicSlice)                              \
  V(kDynamicUpdateSlice, "dynamic-update-slice", -1, kNoFlags, kNone)                         \
  V(kErf, "erf", 1, kElementwise, kUnaryAccuracy)                                             \
  V(kExp, "exponential", 1, kElementwise, kUnaryAccuracy)                                     \
  V(kExpm1, "exponential-minus-one", 1, kElementwise, kUnaryAccuracy)                         \
  V(kFft, "fft", 1, kNoFlags, kFft)                                                           \
  V(kFloor, "floor", 1, kElementwise, kNone)                                                  \
  V(kFusion, "fusion", -1, kShapeRequired, kFusion)                                           \
  V(kGather, "gather", 2, kNoFlags, kGather)                                                  \
  V(kGetDimensionSize, "get-dimension-size", 1, kNoFlags, kDimensionsOne)                     \
  V(kGetTupleElement, "get-tuple-element", 1, kNoFlags, kGetTupleElement)                     \
  V(kImag, "imag", 1, kElementwise, kNone)                                                    \
  V(kInfeed, "infeed", 1, kSideEffect | kShapeRequired, kInfeed)                              \
  V(kIota, "iota", 0, kShapeRequired, kIota)                                                  \
  V(kIsFinite, "is-finite", 1, kElementwise, kNone)                                           \
  V(kLog, "log", 1, kElementwise, kUnaryAccuracy)                                             \
  V(kLog1p, "log-plus-one", 1, kElementwise, kUnaryAccuracy)                                  \
  V(kLogistic, "logistic", 1, kElementwise, kUnaryAccuracy)                                   \
  V(kMap, "map", -1, kElementwise, kMap)                                                      \
  V(kMaximum, "maximum", 2, kElementwise | kCommutative, kNone)                               \
  V(kMinimum, "minimum", 2, kElementwise | kCommutative, kNone)                               \
  V(kMulhi, "mulhi", 2, kElementwise | kCommutative, kNone)                                   \
  V(kMultiply, "multiply", 2, kElementwise | kCommutative, kNone)                             \
  V(kNegate, "negate", 1, kElementwise, kNone)                                                \
  V(kNot, "not", 1, kElementwise, kNone)                                                      \
  V(kOptimizationBarrier, "opt-barrier", 1, kNoFlags, kNone)                                  \
  V(kOr, "or", 2, kElementwise | kCommutative, kNone)                                         \
  V(kOutfeed, "outfeed", 2, kSideEffect, kOutfeed)                                            \
  V(kPad, "pad", 2, kNoFlags, kPad)                                                           \
  V(kParameter, "parameter", 0, kShapeRequired, kNone)                                        \
  V(kPartitionId, "partition-id", 0, kNoFlags, kNone)                                         \
  V(kPopulationCount, "popcnt", 1, kElementwise, kNone)                                       \
  V(kPower, "power", 2, kElementwise, kNone)                                                  \
  V(kRaggedAllToAll, "ragged-all-to-all", 6, kNoFlags, kCollectiveGroups)                     \
  V(kRaggedDot, "ragged-dot", 3, kNoFlags, kRaggedDot)                                        \
  V(kReal, "real", 1, kElementwise, kNone)                                                    \
  V(kRecv, "recv", 1, kSideEffect, kSendRecv)                                                 \
  V(kRecvDone, "recv-done", 1, kSideEffect, kSendRecv)                                        \
  V(kReduce, "reduce", -1, kNoFlags, kReduce)                                                 \
  V(kReducePrecision, "reduce-precision", 1, kElementwise, kReducePrecision)                  \
  V(kReduceScatter, "reduce-scatter", -1, kNoFlags, kReduceScatter)                           \
  V(kReduceWindow, "reduce-window", -1, kNoFlags, kReduceWindow)                              \
  V(kRemainder, "remainder", 2, kElementwise, kNone)                                          \
  V(kReplicaId, "replica-id", 0, kNoFlags, kNone)                                             \
  V(kReshape, "reshape", 1, kShapeRequired, kReshape)                                         \
  V(kReverse, "reverse", 1, kNoFlags, kDimensionsReq)                                         \
  V(kRng, "rng", 2, kSideEffect | kShapeRequired, kRng)                                       \
  V(kRngBitGenerator, "rng-bit-generator", 1, kShapeRequired, kRngBitGenerator)               \
  V(kRngGetAndUpdateState, "rng-get-and-update-state", 0, kSideEffect | kShapeRequired,       \
    kRngGetAndUpdateState)                                                                    \
  V(kRoundNearestAfz, "round-nearest-afz", 1, kElementwise, kNone)                            \
  V(kRoundNearestEven, "round-nearest-even", 1, kElementwise, kNone)                          \
  V(kRsqrt, "rsqrt", 1, kElementwise, kUnaryAccuracy)                                         \
  V(kScaledDot, "scaled-dot", 4, kNoFlags, kScaledDot)                                        \
  V(kScan, "scan", -1, kNoFlags, kScan)                                                       \
  V(kScatter, "scatter", -1, kNoFlags, kScatter)                                              \
  V(kSelect, "select", 3, kElementwise, kNone)                                                \
  V(kSelectAndScatter, "select-and-scatter", 3, kNoFlags, kSelectAndScatter)                  \
  V(kSend, "send", 2, kSideEffect, kSendRecv)                                                 \
  V(kSendDone, "send-done", 1, kSideEffect, kSendRecv)                                        \
  V(kSetDimensionSize, "set-dimension-size", 2, kNoFlags, kDimensionsOne)                     \
  V(kShiftLeft, "shift-left", 2, kElementwise, kNone)                                         \
  V(kShiftRightArithmetic, "shift-right-arithmetic", 2, kElementwise, kNone)                  \
  V(kShiftRightLogical, "shift-right-logical", 2, kElementwise, kNone)                        \
  V(kShuffle, "shuffle", -1, kNoFlags, kCollectiveGroups)                                     \
  V(kSign, "sign", 1, kElementwise, kNone)                                                    \
  V(kSin, "sine", 1, kElementwise, kUnaryAccuracy)                                            \
  V(kSinh, "sinh", 1, kElementwise, kUnaryAccuracy)                                           \
  V(kSlice, "slice", 1, kNoFlags, kSlice)                                                     \
  V(kSort, "sort", -1, kNoFlags, kSort)                                                       \
  V(kSqrt, "sqrt", 1, kElementwise, kUnaryAccuracy)                                           \
  V(kStochasticConvert, "stochastic-convert", 2, kElementwise | kShapeRequired, kNone)        \
  V(kSubtract, "subtract", 2, kElementwise, kNone)                                            \
  V(kTan, "tan", 1, kElementwise, kUnaryAccuracy)                                             \
  V(kTanh, "tanh", 1, kElementwise, kUnaryAccuracy)                                           \
  V(kTopK, "topk", 1, kNoFlags, kTopK)                                                        \
  V(kTranspose, "transpose", 1, kNoFlags, kDimensionsReq)                                     \
  V(kTriangularSolve, "triangular-solve", 2, kNoFlags, kTriangularSolve)                      \
  V(kTuple, "tuple", -1, kNoFlags, kNone)                                                     \
  V(kWhile, "while", 1, kNoFlags, kWhile)                                                     \
  V(kXor, "xor", 2, kElementwise | kCommutative, kNone)

enum class Opcode : uint16_t {
#define HLO_DECLARE_OPCODE(e, name, arity, flags, family) e,
  HLO_OPCODE_LIST(HLO_DECLARE_OPCODE)
#undef HLO_DECLARE_OPCODE
};

inline constexpr int kNumOpcodes = 0
#define HLO_COUNT_OPCODE(e, name, arity, flags, family) +1
    HLO_OPCODE_LIST(HLO_COUNT_OPCODE)
#undef HLO_COUNT_OPCODE
    ;

absl::string_view OpcodeName(Opcode op);
std::optional<Opcode> OpcodeFromName(absl::string_view name);
// Fixed operand count, or -1 when variadic / op-specific.
int OpcodeArity(Opcode op);
uint32_t OpcodeFlags(Opcode op);
AttrFamily OpcodeAttrFamily(Opcode op);
inline bool IsElementwise(Opcode op) { return OpcodeFlags(op) & kElementwise; }
inline bool HasSideEffect(Opcode op) { return OpcodeFlags(op) & kSideEffect; }
inline bool IsShapeRequired(Opcode op) { return OpcodeFlags(op) & kShapeRequired; }
inline bool IsCommutative(Opcode op) { return OpcodeFlags(op) & kCommutative; }
// All opcodes in table order.
absl::Span<const Opcode> AllOpcodes();

}  // namespace hlo
