// The builder's operations, named and ordered as in the operation-semantics
// document (XLA's XlaBuilder free functions). Every call takes its builder
// from its first operand (or an explicit XlaBuilder*), records the first
// error in that builder and returns an invalid XlaOp on error.
// Implemented in ops_elementwise.cc, ops_shape.cc, ops_compute.cc and
// ops_control.cc. docs/builder.md lists them with their lowering.
#pragma once

#include <complex>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "client/builder.h"
#include "client/literal_util.h"
#include "ir/literal.h"

namespace hlo::client {

// ---------------------------------------------------------------------------
// Parameters and constants
// ---------------------------------------------------------------------------

XlaOp Parameter(XlaBuilder* b, int64_t parameter_number, const Shape& shape, const std::string& name);
XlaOp ConstantLiteral(XlaBuilder* b, const Literal& literal);

template <typename T>
XlaOp ConstantR0(XlaBuilder* b, T v) {
  return ConstantLiteral(b, LiteralR0<T>(v));
}
template <typename T>
XlaOp ConstantR1(XlaBuilder* b, absl::Span<const T> values) {
  return ConstantLiteral(b, LiteralR1<T>(values));
}
template <typename T>
XlaOp ConstantR1(XlaBuilder* b, std::initializer_list<T> values) {
  return ConstantLiteral(b, LiteralR1<T>(absl::Span<const T>(values.begin(), values.size())));
}
template <typename T>
XlaOp ConstantR2(XlaBuilder* b, std::initializer_list<std::initializer_list<T>> values) {
  return ConstantLiteral(b, LiteralR2<T>(values));
}
template <typename T>
XlaOp ConstantR3(XlaBuilder* b, std::initializer_list<std::initializer_list<std::initializer_list<T>>> values) {
  return ConstantLiteral(b, LiteralR3<T>(values));
}
// Scalars of any element type: 0, 1, the lowest and highest value
// (-inf/+inf for floats).
XlaOp Zero(XlaBuilder* b, PrimitiveType type);
XlaOp One(XlaBuilder* b, PrimitiveType type);
XlaOp MinValue(XlaBuilder* b, PrimitiveType type);
XlaOp MaxValue(XlaBuilder* b, PrimitiveType type);

XlaOp Iota(XlaBuilder* b, const Shape& shape, int64_t iota_dimension);
XlaOp Iota(XlaBuilder* b, PrimitiveType type, int64_t size);

// ---------------------------------------------------------------------------
// Element-wise binary ops with implicit broadcasting (client/broadcasting.h)
// ---------------------------------------------------------------------------

XlaOp Add(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Sub(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Mul(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Div(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Rem(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Max(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Min(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Pow(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Atan2(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Complex(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp And(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Or(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Xor(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp ShiftLeft(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp ShiftRightArithmetic(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp ShiftRightLogical(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});

// Comparisons (pred result). `direction` is EQ, NE, GE, GT, LE or LT.
XlaOp Compare(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions, const std::string& direction);
XlaOp Eq(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Ne(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Ge(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Gt(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Le(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Lt(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});

// Any binary opcode, broadcast as above (the core of the calls above).
XlaOp BinaryOp(absl::string_view op_name, Opcode opcode, XlaOp lhs, XlaOp rhs,
               absl::Span<const int64_t> broadcast_dimensions,
               std::vector<std::pair<std::string, AttrValue>> attrs = {});

// ---------------------------------------------------------------------------
// Element-wise unary ops, select, clamp, conversions
// ---------------------------------------------------------------------------

XlaOp Abs(XlaOp x);
XlaOp Neg(XlaOp x);
XlaOp Not(XlaOp x);
XlaOp Sign(XlaOp x);
XlaOp Ceil(XlaOp x);
XlaOp Floor(XlaOp x);
XlaOp Round(XlaOp x);  // half away from zero
XlaOp RoundNearestEven(XlaOp x);
XlaOp Exp(XlaOp x);
XlaOp Expm1(XlaOp x);
XlaOp Log(XlaOp x);
XlaOp Log1p(XlaOp x);
XlaOp Logistic(XlaOp x);
XlaOp Sqrt(XlaOp x);
XlaOp Rsqrt(XlaOp x);
XlaOp Cbrt(XlaOp x);
XlaOp Tanh(XlaOp x);
XlaOp Sin(XlaOp x);
XlaOp Cos(XlaOp x);
XlaOp Tan(XlaOp x);
XlaOp Erf(XlaOp x);
XlaOp IsFinite(XlaOp x);
XlaOp Real(XlaOp x);
XlaOp Imag(XlaOp x);
XlaOp Clz(XlaOp x);
XlaOp PopulationCount(XlaOp x);
// x*x and 1/x, as XLA's client library writes them.
XlaOp Square(XlaOp x);
XlaOp Reciprocal(XlaOp x);

XlaOp Select(XlaOp pred, XlaOp on_true, XlaOp on_false);
XlaOp Clamp(XlaOp min, XlaOp operand, XlaOp max);
XlaOp ConvertElementType(XlaOp operand, PrimitiveType new_element_type);
XlaOp BitcastConvertType(XlaOp operand, PrimitiveType new_element_type);
XlaOp ReducePrecision(XlaOp operand, int64_t exponent_bits, int64_t mantissa_bits);

// ---------------------------------------------------------------------------
// Shape and data movement
// ---------------------------------------------------------------------------

// New leading dimensions `broadcast_sizes` in front of the operand's.
XlaOp Broadcast(XlaOp operand, absl::Span<const int64_t> broadcast_sizes);
// Operand dimension i goes to result dimension broadcast_dimensions[i];
// operand dimensions of size 1 may expand (lowered to reshape + broadcast).
XlaOp BroadcastInDim(XlaOp operand, absl::Span<const int64_t> out_dim_size,
                     absl::Span<const int64_t> broadcast_dimensions);
XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> new_sizes);
// Transposes by `dimensions` first (the document's deprecated form).
XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> dimensions, absl::Span<const int64_t> new_sizes);
// Merges consecutive, in-order `dimensions` into one (lowered to reshape).
XlaOp Collapse(XlaOp operand, absl::Span<const int64_t> dimensions);
XlaOp Transpose(XlaOp operand, absl::Span<const int64_t> permutation);
XlaOp Rev(XlaOp operand, absl::Span<const int64_t> dimensions);
XlaOp Slice(XlaOp operand, absl::Span<const int64_t> start_indices, absl::Span<const int64_t> limit_indices,
            absl::Span<const int64_t> strides);
XlaOp SliceInDim(XlaOp operand, int64_t start_index, int64_t limit_index, int64_t stride, int64_t dimno);
XlaOp DynamicSlice(XlaOp operand, absl::Span<const XlaOp> start_indices, absl::Span<const int64_t> slice_sizes);
XlaOp DynamicUpdateSlice(XlaOp operand, XlaOp update, absl::Span<const XlaOp> start_indices);
XlaOp ConcatInDim(XlaBuilder* b, absl::Span<const XlaOp> operands, int64_t dimension);
XlaOp Pad(XlaOp operand, XlaOp padding_value, const PaddingConfig& padding_config);

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
};
XlaOp Gather(XlaOp input, XlaOp start_indices, const GatherDimensionNumbers& dimension_numbers,
             absl::Span<const int64_t> slice_sizes, bool indices_are_sorted = false);

struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
};
XlaOp Scatter(XlaOp input, XlaOp scatter_indices, XlaOp updates, const XlaComputation& update_computation,
              const ScatterDimensionNumbers& dimension_numbers, bool indices_are_sorted = false,
              bool unique_indices = false);

// ---------------------------------------------------------------------------
// Dot and convolution
// ---------------------------------------------------------------------------

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_contracting_dimensions;
  std::vector<int64_t> rhs_contracting_dimensions;
  std::vector<int64_t> lhs_batch_dimensions;
  std::vector<int64_t> rhs_batch_dimensions;
};
// Vector/matrix products: contracts the last dimension of lhs with the
// first of rhs (ranks 1 or 2).
XlaOp Dot(XlaOp lhs, XlaOp rhs);
XlaOp DotGeneral(XlaOp lhs, XlaOp rhs, const DotDimensionNumbers& dimension_numbers);

enum class Padding { kSame, kValid };
// Per spatial dimension (low, high) padding for SAME/VALID windows.
std::vector<std::pair<int64_t, int64_t>> MakePadding(absl::Span<const int64_t> input_dimensions,
                                                     absl::Span<const int64_t> window_dimensions,
                                                     absl::Span<const int64_t> window_strides, Padding padding);

// Default numbering: lhs [batch, feature, spatial...], kernel
// [output feature, input feature, spatial...], output like lhs.
ConvolutionDimensionNumbers CreateDefaultConvDimensionNumbers(int num_spatial_dims = 2);

XlaOp Conv(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides, Padding padding,
           int64_t feature_group_count = 1, int64_t batch_group_count = 1);
XlaOp ConvWithGeneralPadding(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                             absl::Span<const std::pair<int64_t, int64_t>> padding,
                             int64_t feature_group_count = 1, int64_t batch_group_count = 1);
XlaOp ConvWithGeneralDimensions(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides, Padding padding,
                                const ConvolutionDimensionNumbers& dimension_numbers,
                                int64_t feature_group_count = 1, int64_t batch_group_count = 1);
XlaOp ConvGeneral(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                  const ConvolutionDimensionNumbers& dimension_numbers, int64_t feature_group_count = 1,
                  int64_t batch_group_count = 1);
XlaOp ConvGeneralDilated(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                         absl::Span<const std::pair<int64_t, int64_t>> padding,
                         absl::Span<const int64_t> lhs_dilation, absl::Span<const int64_t> rhs_dilation,
                         const ConvolutionDimensionNumbers& dimension_numbers, int64_t feature_group_count = 1,
                         int64_t batch_group_count = 1);

// ---------------------------------------------------------------------------
// Reductions, windows, map, sort
// ---------------------------------------------------------------------------

XlaOp Reduce(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
             absl::Span<const int64_t> dimensions_to_reduce);
XlaOp Reduce(XlaBuilder* b, absl::Span<const XlaOp> operands, absl::Span<const XlaOp> init_values,
             const XlaComputation& computation, absl::Span<const int64_t> dimensions_to_reduce);
XlaOp ReduceAll(XlaOp operand, XlaOp init_value, const XlaComputation& computation);

XlaOp ReduceWindow(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
                   absl::Span<const int64_t> window_dimensions, absl::Span<const int64_t> window_strides,
                   Padding padding);
XlaOp ReduceWindowWithGeneralPadding(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
                                     absl::Span<const int64_t> window_dimensions,
                                     absl::Span<const int64_t> window_strides,
                                     absl::Span<const int64_t> base_dilations,
                                     absl::Span<const int64_t> window_dilations,
                                     absl::Span<const std::pair<int64_t, int64_t>> padding);

XlaOp SelectAndScatter(XlaOp operand, const XlaComputation& select, absl::Span<const int64_t> window_dimensions,
                       absl::Span<const int64_t> window_strides, Padding padding, XlaOp source,
                       XlaOp init_value, const XlaComputation& scatter);
XlaOp SelectAndScatterWithGeneralPadding(XlaOp operand, const XlaComputation& select,
                                         absl::Span<const int64_t> window_dimensions,
                                         absl::Span<const int64_t> window_strides,
                                         absl::Span<const std::pair<int64_t, int64_t>> padding, XlaOp source,
                                         XlaOp init_value, const XlaComputation& scatter);

XlaOp Map(XlaBuilder* b, absl::Span<const XlaOp> operands, const XlaComputation& computation,
          absl::Span<const int64_t> dimensions);

// dimension -1 = the last one.
XlaOp Sort(absl::Span<const XlaOp> operands, const XlaComputation& comparator, int64_t dimension = -1,
           bool is_stable = false);

// ---------------------------------------------------------------------------
// Control flow, tuples, random numbers
// ---------------------------------------------------------------------------

XlaOp Tuple(XlaBuilder* b, absl::Span<const XlaOp> elements);
XlaOp GetTupleElement(XlaOp tuple_data, int64_t index);
// opt-barrier: the operand (usually a tuple) unchanged; every input is
// computed before anything that uses the result, and passes move nothing
// across it.
XlaOp OptimizationBarrier(XlaOp operand);
XlaOp Call(XlaBuilder* b, const XlaComputation& computation, absl::Span<const XlaOp> operands);
XlaOp While(const XlaComputation& condition, const XlaComputation& body, XlaOp init);
XlaOp Conditional(XlaOp predicate, XlaOp true_operand, const XlaComputation& true_computation,
                  XlaOp false_operand, const XlaComputation& false_computation);
XlaOp Conditional(XlaOp branch_index, absl::Span<const XlaComputation* const> branch_computations,
                  absl::Span<const XlaOp> branch_operands);

XlaOp RngUniform(XlaOp a, XlaOp b, const Shape& shape);
XlaOp RngNormal(XlaOp mu, XlaOp sigma, const Shape& shape);

// ---------------------------------------------------------------------------
// Collectives, tokens, send/recv, infeed/outfeed (ops_collective.cc)
// ---------------------------------------------------------------------------

// The replica ids of one group (XLA's ReplicaGroup.replica_ids); no groups
// means one group of every replica.
using ReplicaGroup = std::vector<int64_t>;

XlaOp ReplicaId(XlaBuilder* b);
// The u32 id of the partition running the computation (partition-id).
XlaOp PartitionId(XlaBuilder* b);
// Concatenates the group's operands along `all_gather_dimension`, which
// becomes `shard_count` times larger.
XlaOp AllGather(XlaOp operand, int64_t all_gather_dimension, int64_t shard_count,
                absl::Span<const ReplicaGroup> replica_groups = {},
                const std::optional<ChannelHandle>& channel_id = std::nullopt);
XlaOp AllReduce(XlaOp operand, const XlaComputation& computation, absl::Span<const ReplicaGroup> replica_groups = {},
                const std::optional<ChannelHandle>& channel_id = std::nullopt);
// AllReduce, then replica i of the group keeps shard i of
// `scatter_dimension` (`shard_count` times smaller).
XlaOp ReduceScatter(XlaOp operand, const XlaComputation& computation, int64_t scatter_dimension,
                    int64_t shard_count, absl::Span<const ReplicaGroup> replica_groups = {},
                    const std::optional<ChannelHandle>& channel_id = std::nullopt);
// Splits `split_dimension` into `split_count` blocks, sends block i to
// member i and concatenates the received blocks along `concat_dimension`.
// Equal dimensions are one all-to-all; different ones are lowered as XLA's
// builder does (reshape, transpose, all-to-all over a new leading
// dimension, transpose, reshape).
XlaOp AllToAll(XlaOp operand, int64_t split_dimension, int64_t concat_dimension, int64_t split_count,
               absl::Span<const ReplicaGroup> replica_groups = {});
// AllReduce with a sum over each group (`or` for pred); an array operand.
XlaOp CrossReplicaSum(XlaOp operand, absl::Span<const ReplicaGroup> replica_groups = {});
XlaOp CollectivePermute(XlaOp operand, absl::Span<const std::pair<int64_t, int64_t>> source_target_pairs,
                        const std::optional<ChannelHandle>& channel_id = std::nullopt);

// Tokens order side effects: CreateToken is after-all() of nothing.
XlaOp CreateToken(XlaBuilder* b);
XlaOp AfterAll(XlaBuilder* b, absl::Span<const XlaOp> tokens);
// send + send-done; returns send-done's token.
XlaOp SendWithToken(XlaOp operand, XlaOp token, const ChannelHandle& handle);
// recv + recv-done; returns recv-done's (data, token).
XlaOp RecvWithToken(XlaOp token, const Shape& shape, const ChannelHandle& handle);
// The tokenless forms: a fresh token, and for Recv the data alone.
XlaOp Send(XlaOp operand, const ChannelHandle& handle);
XlaOp Recv(XlaBuilder* b, const Shape& shape, const ChannelHandle& handle);
// Without pairs each device's send reaches its own recv of the channel.
// Between devices, the send and the recv of one channel carry the same
// (source, target) pairs as the frontend attribute
// _xla_send_recv_source_target_pairs="{{0,1},{1,0}}" (as XLA's
// collective-permute decomposer writes it; the CPU backend pairs by it): ids are replica ids, or partition ids when the
// run has several partitions; a device that is no pair's target receives
// zeros. The forms below put the attribute on send, send-done, recv and
// recv-done. A source or target may appear once (CollectivePermute's rule).
using SourceTargetPairs = absl::Span<const std::pair<int64_t, int64_t>>;
FrontendAttributes SendRecvSourceTargetPairs(SourceTargetPairs pairs);
XlaOp SendWithToken(XlaOp operand, XlaOp token, const ChannelHandle& handle, SourceTargetPairs source_target_pairs);
XlaOp RecvWithToken(XlaOp token, const Shape& shape, const ChannelHandle& handle,
                    SourceTargetPairs source_target_pairs);
XlaOp Send(XlaOp operand, const ChannelHandle& handle, SourceTargetPairs source_target_pairs);
XlaOp Recv(XlaBuilder* b, const Shape& shape, const ChannelHandle& handle, SourceTargetPairs source_target_pairs);
// infeed: (data, token); Infeed makes its own token and returns the data.
XlaOp InfeedWithToken(XlaOp token, const Shape& shape, const std::string& config = "");
XlaOp Infeed(XlaBuilder* b, const Shape& shape, const std::string& config = "");
// outfeed: returns its token. `shape_with_layout` must be the operand's shape.
XlaOp OutfeedWithToken(XlaOp operand, XlaOp token, const Shape& shape_with_layout,
                       const std::string& outfeed_config = "");
XlaOp Outfeed(XlaOp operand, const Shape& shape_with_layout, const std::string& outfeed_config = "");

// ---------------------------------------------------------------------------
// Custom calls, FFT, linear algebra, batch norm, top-k, dynamic sizes,
// random bits (ops_linalg.cc)
// ---------------------------------------------------------------------------

// `opaque` goes to backend_config (as XLA's builder does).
XlaOp CustomCall(XlaBuilder* b, const std::string& call_target_name, absl::Span<const XlaOp> operands,
                 const Shape& shape, const std::string& opaque = "", bool has_side_effect = false);

enum class FftType { FFT, IFFT, RFFT, IRFFT };
XlaOp Fft(XlaOp operand, FftType fft_type, absl::Span<const int64_t> fft_length);
// a = l l^T (lower) or u^T u; the other triangle of the result is unspecified.
XlaOp Cholesky(XlaOp a, bool lower);
struct TriangularSolveOptions {
  enum Transpose { NO_TRANSPOSE, TRANSPOSE, ADJOINT };
};
// Solves op(a) x = b (left_side) or x op(a) = b for x.
XlaOp TriangularSolve(XlaOp a, XlaOp b, bool left_side, bool lower, bool unit_diagonal,
                      TriangularSolveOptions::Transpose transpose_a);

// (normalized, batch mean, batch variance).
XlaOp BatchNormTraining(XlaOp operand, XlaOp scale, XlaOp offset, float epsilon, int64_t feature_index);
XlaOp BatchNormInference(XlaOp operand, XlaOp scale, XlaOp offset, XlaOp mean, XlaOp variance, float epsilon,
                         int64_t feature_index);
// (grad operand, grad scale, grad offset).
XlaOp BatchNormGrad(XlaOp operand, XlaOp scale, XlaOp batch_mean, XlaOp batch_var, XlaOp grad_output,
                    float epsilon, int64_t feature_index);

// (values, s32 indices) of the k largest (or smallest) along the last
// dimension.
XlaOp TopK(XlaOp operand, int64_t k, bool largest = true);

XlaOp GetDimensionSize(XlaOp operand, int64_t dimension);
XlaOp SetDimensionSize(XlaOp operand, XlaOp val, int64_t dimension);

enum class RandomAlgorithm { RNG_DEFAULT, RNG_THREE_FRY, RNG_PHILOX };
// (new state, random bits of `shape`).
XlaOp RngBitGenerator(RandomAlgorithm algorithm, XlaOp initial_state, const Shape& shape);

}  // namespace hlo::client
