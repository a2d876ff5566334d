#include "ir/attr_spec.h"

namespace hlo {
namespace {

using K = AttrKind;
constexpr bool kReq = true;
constexpr bool kOpt = false;

constexpr absl::string_view kPrecisionValues = "default|high|highest";
constexpr absl::string_view kDotAlgorithms =
    "dot_any_f8_any_f8_f32|dot_any_f8_any_f8_f32_fast_accum|dot_f16_f16_f16|dot_f16_f16_f32|"
    "dot_bf16_bf16_bf16|dot_bf16_bf16_f32|dot_bf16_bf16_f32_x3|dot_bf16_bf16_f32_x6|"
    "dot_bf16_bf16_f32_x9|dot_tf32_tf32_f32|dot_tf32_tf32_f32_x3|dot_f32_f32_f32|dot_f64_f64_f64";

const AttrSpec kCompare[] = {
    {"direction", K::kEnum, kReq, {}, "EQ|NE|GE|GT|LE|LT"},
    {"type", K::kEnum, kOpt, {}, "FLOAT|TOTALORDER|SIGNED|UNSIGNED"},
};
const AttrSpec kUnaryAccuracy[] = {{"result_accuracy", K::kResultAccuracy, kOpt}};
const AttrSpec kIota[] = {{"iota_dimension", K::kInt, kReq}};
const AttrSpec kBroadcast[] = {{"dimensions", K::kIntList, kOpt}};
const AttrSpec kReshape[] = {{"inferred_dimension", K::kInt, kOpt, "-1"}};
const AttrSpec kDimensionsReq[] = {{"dimensions", K::kIntList, kReq}};
const AttrSpec kSlice[] = {{"slice", K::kSliceRanges, kReq}};
const AttrSpec kDynamicSlice[] = {{"dynamic_slice_sizes", K::kIntList, kReq}};
const AttrSpec kPad[] = {{"padding", K::kPaddingConfig, kReq}};
const AttrSpec kGather[] = {
    {"offset_dims", K::kIntList, kReq},
    {"collapsed_slice_dims", K::kIntList, kReq},
    {"start_index_map", K::kIntList, kReq},
    {"operand_batching_dims", K::kIntList, kOpt, "{}"},
    {"start_indices_batching_dims", K::kIntList, kOpt, "{}"},
    {"index_vector_dim", K::kInt, kReq},
    {"slice_sizes", K::kIntList, kReq},
    {"indices_are_sorted", K::kBool, kOpt, "false"},
};
const AttrSpec kScatter[] = {
    {"update_window_dims", K::kIntList, kReq},
    {"inserted_window_dims", K::kIntList, kReq},
    {"scatter_dims_to_operand_dims", K::kIntList, kReq},
    {"input_batching_dims", K::kIntList, kOpt, "{}"},
    {"scatter_indices_batching_dims", K::kIntList, kOpt, "{}"},
    {"index_vector_dim", K::kInt, kReq},
    {"indices_are_sorted", K::kBool, kOpt, "false"},
    {"unique_indices", K::kBool, kOpt, "false"},
    {"to_apply", K::kComputation, kReq},
};
const AttrSpec kGetTupleElement[] = {{"index", K::kInt, kReq}};
const AttrSpec kDomain[] = {{"domain", K::kDomain, kReq}};
const AttrSpec kReducePrecision[] = {
    {"exponent_bits", K::kInt, kReq},
    {"mantissa_bits", K::kInt, kReq},
};
const AttrSpec kReduce[] = {
    {"dimensions", K::kIntList, kReq},
    {"to_apply", K::kComputation, kReq},
};
const AttrSpec kReduceWindow[] = {
    {"window", K::kWindow, kOpt},
    {"to_apply", K::kComputation, kReq},
};
const AttrSpec kSelectAndScatter[] = {
    {"window", K::kWindow, kOpt},
    {"select", K::kComputation, kReq},
    {"scatter", K::kComputation, kReq},
};
const AttrSpec kMap[] = {
    {"dimensions", K::kIntList, kOpt},
    {"to_apply", K::kComputation, kReq},
};
const AttrSpec kSort[] = {
    {"dimensions", K::kIntList, kReq},
    {"is_stable", K::kBool, kOpt, "false"},
    {"to_apply", K::kComputation, kReq},
};
const AttrSpec kTopK[] = {
    {"k", K::kInt, kReq},
    {"largest", K::kBool, kOpt},
};
const AttrSpec kScan[] = {
    {"dimensions", K::kIntList, kReq},
    {"num_carries", K::kInt, kReq},
    {"is_reverse", K::kBool, kOpt, "false"},
    {"is_associative", K::kBool, kOpt},
    {"to_apply", K::kComputation, kReq},
};
const AttrSpec kDot[] = {
    {"lhs_batch_dims", K::kIntList, kOpt, "{}"},
    {"lhs_contracting_dims", K::kIntList, kOpt},
    {"rhs_batch_dims", K::kIntList, kOpt, "{}"},
    {"rhs_contracting_dims", K::kIntList, kOpt},
    {"operand_precision", K::kEnumList, kOpt, {}, kPrecisionValues},
    {"algorithm", K::kEnum, kOpt, {}, kDotAlgorithms},
    {"sparsity", K::kRaw, kOpt},
};
const AttrSpec kRaggedDot[] = {
    {"lhs_batch_dims", K::kIntList, kOpt, "{}"},
    {"lhs_contracting_dims", K::kIntList, kOpt},
    {"rhs_batch_dims", K::kIntList, kOpt, "{}"},
    {"rhs_contracting_dims", K::kIntList, kOpt},
    {"lhs_ragged_dims", K::kIntList, kOpt},
    {"rhs_group_dims", K::kIntList, kOpt},
    {"operand_precision", K::kEnumList, kOpt, {}, kPrecisionValues},
};
const AttrSpec kScaledDot[] = {
    {"lhs_batch_dims", K::kIntList, kOpt, "{}"},
    {"lhs_contracting_dims", K::kIntList, kOpt},
    {"rhs_batch_dims", K::kIntList, kOpt, "{}"},
    {"rhs_contracting_dims", K::kIntList, kOpt},
    {"operand_precision", K::kEnumList, kOpt, {}, kPrecisionValues},
    {"algorithm", K::kEnum, kOpt, {}, kDotAlgorithms},
};
const AttrSpec kConvolution[] = {
    {"window", K::kWindow, kOpt},
    {"dim_labels", K::kConvDimLabels, kReq},
    {"feature_group_count", K::kInt, kOpt, "1"},
    {"batch_group_count", K::kInt, kOpt, "1"},
    {"operand_precision", K::kEnumList, kOpt, {}, kPrecisionValues},
    {"algorithm", K::kEnum, kOpt, {}, kDotAlgorithms},
    {"conv_kind", K::kEnum, kOpt, {}, "fprop|wgrad|dgrad|unset"},
};
const AttrSpec kFft[] = {
    {"fft_type", K::kEnum, kReq, {}, "FFT|IFFT|RFFT|IRFFT"},
    {"fft_length", K::kIntList, kReq},
};
const AttrSpec kCholesky[] = {{"lower", K::kBool, kOpt, "false"}};
const AttrSpec kTriangularSolve[] = {
    {"left_side", K::kBool, kOpt, "false"},
    {"lower", K::kBool, kOpt, "false"},
    {"unit_diagonal", K::kBool, kOpt, "false"},
    {"transpose_a", K::kEnum, kOpt, "NO_TRANSPOSE", "NO_TRANSPOSE|TRANSPOSE|ADJOINT"},
};
const AttrSpec kBatchNorm[] = {
    {"epsilon", K::kFloat, kReq},
    {"feature_index", K::kInt, kReq},
};
const AttrSpec kCall[] = {
    {"to_apply", K::kComputation, kReq},
    {"is_composite", K::kBool, kOpt, "false"},
};
const AttrSpec kWhile[] = {
    {"condition", K::kComputation, kReq},
    {"body", K::kComputation, kReq},
};
// Which of the two forms is required depends on the predicate type; the
// parser and verifier check the combination.
const AttrSpec kConditional[] = {
    {"true_computation", K::kComputation, kOpt},
    {"false_computation", K::kComputation, kOpt},
    {"branch_computations", K::kComputationList, kOpt},
};
const AttrSpec kFusion[] = {
    {"kind", K::kEnum, kReq, {}, "kLoop|kInput|kOutput|kCustom"},
    {"output_to_operand_aliasing", K::kOutputOperandAliasing, kOpt},
    {"calls", K::kComputation, kReq},
};
const AttrSpec kCustomCall[] = {
    {"window", K::kWindow, kOpt},
    {"dim_labels", K::kConvDimLabels, kOpt},
    {"feature_group_count", K::kInt, kOpt, "1"},
    {"batch_group_count", K::kInt, kOpt, "1"},
    {"operand_precision", K::kEnumList, kOpt, {}, kPrecisionValues},
    {"algorithm", K::kEnum, kOpt, {}, kDotAlgorithms},
    {"padding_type", K::kEnum, kOpt, {}, "PADDING_VALID|PADDING_SAME"},
    {"custom_call_target", K::kString, kReq},
    {"operand_layout_constraints", K::kShapeList, kOpt},
    {"custom_call_has_side_effect", K::kBool, kOpt, "false"},
    {"literal", K::kLiteral, kOpt},
    {"output_to_operand_aliasing", K::kOutputOperandAliasing, kOpt},
    {"schedule", K::kEnum, kOpt, "SCHEDULE_NONE", "SCHEDULE_NONE|SCHEDULE_LATEST|SCHEDULE_EARLIEST"},
    {"api_version", K::kEnum, kOpt, "API_VERSION_ORIGINAL",
     "API_VERSION_ORIGINAL|API_VERSION_STATUS_RETURNING|API_VERSION_STATUS_RETURNING_UNIFIED|"
     "API_VERSION_TYPED_FFI"},
    {"to_apply", K::kComputation, kOpt},
    {"called_computations", K::kComputationList, kOpt},
};
const AttrSpec kAsyncStart[] = {
    {"async_execution_thread", K::kString, kOpt, "\"main\""},
    {"output_to_operand_aliasing", K::kOutputOperandAliasing, kOpt},
    {"calls", K::kComputation, kOpt},
};
const AttrSpec kAsyncUpdateDone[] = {
    {"async_execution_thread", K::kString, kOpt, "\"main\""},
    {"calls", K::kComputation, kOpt},
};
const AttrSpec kAllReduce[] = {
    {"channel_id", K::kInt, kOpt},
    {"replica_groups", K::kReplicaGroups, kOpt},
    {"constrain_layout", K::kBool, kOpt, "false"},
    {"use_global_device_ids", K::kBool, kOpt, "false"},
    {"mode", K::kRaw, kOpt},
    {"to_apply", K::kComputation, kReq},
};
const AttrSpec kReduceScatter[] = {
    {"channel_id", K::kInt, kOpt},
    {"replica_groups", K::kReplicaGroups, kOpt},
    {"constrain_layout", K::kBool, kOpt, "false"},
    {"dimensions", K::kIntList, kReq},
    {"use_global_device_ids", K::kBool, kOpt, "false"},
    {"to_apply", K::kComputation, kReq},
};
const AttrSpec kAllGather[] = {
    {"channel_id", K::kInt, kOpt},
    {"replica_groups", K::kReplicaGroups, kOpt},
    {"constrain_layout", K::kBool, kOpt, "false"},
    {"dimensions", K::kIntList, kReq},
    {"use_global_device_ids", K::kBool, kOpt, "false"},
};
const AttrSpec kAllToAll[] = {
    {"channel_id", K::kInt, kOpt},
    {"replica_groups", K::kReplicaGroups, kOpt},
    {"constrain_layout", K::kBool, kOpt, "false"},
    {"dimensions", K::kIntList, kOpt},
};
const AttrSpec kCollectiveGroups[] = {
    {"channel_id", K::kInt, kOpt},
    {"replica_groups", K::kReplicaGroups, kOpt},
};
const AttrSpec kCollectiveReduce[] = {
    {"channel_id", K::kInt, kOpt},
    {"replica_groups", K::kReplicaGroups, kOpt},
    {"has_dynamic_root", K::kBool, kOpt},
    {"to_apply", K::kComputation, kOpt},
};
const AttrSpec kCollectivePermute[] = {
    {"channel_id", K::kInt, kOpt},
    {"source_target_pairs", K::kIntListList, kReq},
    {"slice_sizes", K::kIntListList, kOpt},
};
const AttrSpec kSendRecv[] = {
    {"channel_id", K::kInt, kOpt},
    {"is_host_transfer", K::kBool, kOpt, "false"},
};
const AttrSpec kInfeed[] = {{"infeed_config", K::kString, kOpt, "\"\""}};
const AttrSpec kOutfeed[] = {
    {"outfeed_shape", K::kShape, kOpt},
    {"outfeed_config", K::kString, kOpt, "\"\""},
};
const AttrSpec kRng[] = {{"distribution", K::kEnum, kReq, {}, "rng_uniform|rng_normal"}};
const AttrSpec kRngBitGenerator[] = {
    {"algorithm", K::kEnum, kReq, {}, "rng_default|rng_three_fry|rng_philox"},
};
const AttrSpec kRngGetAndUpdateState[] = {{"delta", K::kInt, kReq}};
const AttrSpec kCopyStart[] = {{"cross_program_prefetch_index", K::kInt, kOpt}};

const AttrSpec kUniversal[] = {
    {"sharding", K::kSharding, kOpt},
    {"frontend_attributes", K::kFrontendAttributes, kOpt},
    {"statistics", K::kStatistics, kOpt},
    {"parameter_replication", K::kBoolList, kOpt},
    {"origin", K::kRaw, kOpt},
    {"metadata", K::kMetadata, kOpt},
    {"backend_config", K::kStringOrDict, kOpt},
};

template <size_t N>
absl::Span<const AttrSpec> S(const AttrSpec (&a)[N]) {
  return absl::Span<const AttrSpec>(a, N);
}

}  // namespace

absl::Span<const AttrSpec> FamilyAttrSpecs(AttrFamily family) {
  switch (family) {
    case AttrFamily::kNone: return {};
    case AttrFamily::kCompare: return S(kCompare);
    case AttrFamily::kUnaryAccuracy: return S(kUnaryAccuracy);
    case AttrFamily::kIota: return S(kIota);
    case AttrFamily::kBroadcast: return S(kBroadcast);
    case AttrFamily::kReshape: return S(kReshape);
    case AttrFamily::kDimensionsReq: return S(kDimensionsReq);
    case AttrFamily::kSlice: return S(kSlice);
    case AttrFamily::kDynamicSlice: return S(kDynamicSlice);
    case AttrFamily::kConcatenate: return S(kDimensionsReq);
    case AttrFamily::kPad: return S(kPad);
    case AttrFamily::kGather: return S(kGather);
    case AttrFamily::kScatter: return S(kScatter);
    case AttrFamily::kGetTupleElement: return S(kGetTupleElement);
    case AttrFamily::kDimensionsOne: return S(kDimensionsReq);
    case AttrFamily::kDomain: return S(kDomain);
    case AttrFamily::kReducePrecision: return S(kReducePrecision);
    case AttrFamily::kReduce: return S(kReduce);
    case AttrFamily::kReduceWindow: return S(kReduceWindow);
    case AttrFamily::kSelectAndScatter: return S(kSelectAndScatter);
    case AttrFamily::kMap: return S(kMap);
    case AttrFamily::kSort: return S(kSort);
    case AttrFamily::kTopK: return S(kTopK);
    case AttrFamily::kScan: return S(kScan);
    case AttrFamily::kDot: return S(kDot);
    case AttrFamily::kRaggedDot: return S(kRaggedDot);
    case AttrFamily::kScaledDot: return S(kScaledDot);
    case AttrFamily::kConvolution: return S(kConvolution);
    case AttrFamily::kFft: return S(kFft);
    case AttrFamily::kCholesky: return S(kCholesky);
    case AttrFamily::kTriangularSolve: return S(kTriangularSolve);
    case AttrFamily::kBatchNorm: return S(kBatchNorm);
    case AttrFamily::kCall: return S(kCall);
    case AttrFamily::kWhile: return S(kWhile);
    case AttrFamily::kConditional: return S(kConditional);
    case AttrFamily::kFusion: return S(kFusion);
    case AttrFamily::kCustomCall: return S(kCustomCall);
    case AttrFamily::kAsyncStart: return S(kAsyncStart);
    case AttrFamily::kAsyncUpdateDone: return S(kAsyncUpdateDone);
    case AttrFamily::kAllReduce: return S(kAllReduce);
    case AttrFamily::kReduceScatter: return S(kReduceScatter);
    case AttrFamily::kAllGather: return S(kAllGather);
    case AttrFamily::kAllToAll: return S(kAllToAll);
    case AttrFamily::kCollectiveGroups: return S(kCollectiveGroups);
    case AttrFamily::kCollectiveReduce: return S(kCollectiveReduce);
    case AttrFamily::kCollectivePermute: return S(kCollectivePermute);
    case AttrFamily::kSendRecv: return S(kSendRecv);
    case AttrFamily::kInfeed: return S(kInfeed);
    case AttrFamily::kOutfeed: return S(kOutfeed);
    case AttrFamily::kRng: return S(kRng);
    case AttrFamily::kRngBitGenerator: return S(kRngBitGenerator);
    case AttrFamily::kRngGetAndUpdateState: return S(kRngGetAndUpdateState);
    case AttrFamily::kCopyStart: return S(kCopyStart);
  }
  return {};
}

absl::Span<const AttrSpec> UniversalAttrSpecs() { return S(kUniversal); }

const AttrSpec* FindAttrSpec(Opcode op, absl::string_view name) {
  for (const AttrSpec& s : FamilyAttrSpecs(OpcodeAttrFamily(op)))
    if (s.name == name) return &s;
  for (const AttrSpec& s : UniversalAttrSpecs())
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace hlo
