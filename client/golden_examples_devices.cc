// Golden examples of the builder calls for collectives, tokens and I/O,
// custom calls, FFT, linear algebra, batch norm, top-k and dimension sizes.
// Where the operation-semantics document gives values (AllGather,
// AllReduce, ReduceScatter, TopK) they are its; elsewhere small inputs whose
// results are exact. Collectives run on several replicas (hlo-run
// --replicas); each replica takes its own row of the input by ReplicaId.
#include "client/golden_examples.h"
#include "client/ops.h"

namespace hlo::client {
namespace {

constexpr PrimitiveType F32 = PrimitiveType::F32;

// Row `replica id` of a [replicas, n] parameter: the replica's own operand.
XlaOp ReplicaRow(XlaBuilder* b, XlaOp rows) {
  const int64_t n = rows.valid() ? rows.instruction()->shape().dim(1) : 0;
  XlaOp id = ConvertElementType(ReplicaId(b), PrimitiveType::S32);
  XlaOp row = DynamicSlice(rows, {id, ConstantR0<int32_t>(b, 0)}, {1, n});
  return Reshape(row, {n});
}

XlaComputation ScalarAdd(XlaBuilder* b) {
  std::unique_ptr<XlaBuilder> sub = b->CreateSubBuilder("add");
  Add(Parameter(sub.get(), 0, Shape::Scalar(F32), "x"), Parameter(sub.get(), 1, Shape::Scalar(F32), "y"));
  absl::StatusOr<XlaComputation> c = sub->Build();
  return c.ok() ? *c : XlaComputation();
}

XlaOp PerReplica(XlaBuilder* b, int64_t replicas, int64_t n) {
  return ReplicaRow(b, Parameter(b, 0, Shape::Array(F32, {replicas, n}), "per_replica"));
}

void AllGatherTwoReplicas(XlaBuilder* b) { AllGather(PerReplica(b, 2, 2), 0, 2); }

void AllReduceTwoReplicas(XlaBuilder* b) { AllReduce(PerReplica(b, 2, 2), ScalarAdd(b)); }

void ReduceScatterTwoReplicas(XlaBuilder* b) { ReduceScatter(PerReplica(b, 2, 2), ScalarAdd(b), 0, 2); }

// The document's AllToAll(x, split 1, concat 0, split_count 4) on
// x: f32[4,16]; replica r holds x + 100 r.
void AllToAllFourReplicas(XlaBuilder* b) {
  XlaOp x = Parameter(b, 0, Shape::Array(F32, {4, 16}), "x");
  XlaOp mine = Add(x, Mul(ConvertElementType(ReplicaId(b), F32), ConstantR0<float>(b, 100)));
  AllToAll(mine, /*split_dimension=*/1, /*concat_dimension=*/0, /*split_count=*/4);
}

void CollectivePermuteSwap(XlaBuilder* b) { CollectivePermute(PerReplica(b, 2, 2), {{0, 1}, {1, 0}}); }

void SendRecvSelf(XlaBuilder* b) {
  XlaOp x = Parameter(b, 0, Shape::Array(F32, {3}), "x");
  const ChannelHandle channel = b->CreateChannelHandle();
  XlaOp sent = SendWithToken(x, CreateToken(b), channel);
  GetTupleElement(RecvWithToken(sent, Shape::Array(F32, {3}), channel), 0);
}

// Replicas 0 and 1 swap their rows through one channel: the send and the
// recv carry the pairs as _xla_send_recv_source_target_pairs.
void SendRecvTwoReplicas(XlaBuilder* b) {
  XlaOp x = PerReplica(b, 2, 2);
  const ChannelHandle channel = b->CreateChannelHandle();
  const std::vector<std::pair<int64_t, int64_t>> swap = {{0, 1}, {1, 0}};
  XlaOp sent = SendWithToken(x, CreateToken(b), channel, swap);
  GetTupleElement(RecvWithToken(sent, Shape::Array(F32, {2}), channel, swap), 0);
}

void InfeedPlusOne(XlaBuilder* b) { Add(Infeed(b, Shape::Array(F32, {3})), ConstantR0<float>(b, 1)); }

void CustomCallSharding(XlaBuilder* b) {
  XlaOp x = Parameter(b, 0, Shape::Array(F32, {2}), "x");
  CustomCall(b, "Sharding", {x}, Shape::Array(F32, {2}));
}

void RfftOfFour(XlaBuilder* b) { Fft(Parameter(b, 0, Shape::Array(F32, {4}), "x"), FftType::RFFT, {4}); }

void CholeskyLower(XlaBuilder* b) { Cholesky(Parameter(b, 0, Shape::Array(F32, {2, 2}), "a"), /*lower=*/true); }

void TriangularSolveLeftLower(XlaBuilder* b) {
  XlaOp a = Parameter(b, 0, Shape::Array(F32, {2, 2}), "a");
  XlaOp rhs = Parameter(b, 1, Shape::Array(F32, {2, 2}), "b");
  TriangularSolve(a, rhs, /*left_side=*/true, /*lower=*/true, /*unit_diagonal=*/false,
                  TriangularSolveOptions::NO_TRANSPOSE);
}

// Each feature's batch variance is 1; epsilon 3 makes the divisor 2.
void BatchNormTrainingExact(XlaBuilder* b) {
  XlaOp x = Parameter(b, 0, Shape::Array(F32, {2, 2}), "x");
  XlaOp scale = Parameter(b, 1, Shape::Array(F32, {2}), "scale");
  XlaOp offset = Parameter(b, 2, Shape::Array(F32, {2}), "offset");
  BatchNormTraining(x, scale, offset, /*epsilon=*/3, /*feature_index=*/1);
}

void TopKDocument(XlaBuilder* b) { TopK(Parameter(b, 0, Shape::Array(F32, {2, 3}), "operand"), 1); }

void GetDimensionSizeOfOne(XlaBuilder* b) { GetDimensionSize(Parameter(b, 0, Shape::Array(F32, {2, 3}), "x"), 1); }

// x of the AllToAll example: 0..63 row-major.
std::string Iota4x16() {
  std::string s = "f32[4,16] {";
  for (int r = 0; r < 4; ++r) {
    s += r ? ", {" : "{";
    for (int c = 0; c < 16; ++c) s += (c ? ", " : "") + std::to_string(r * 16 + c);
    s += "}";
  }
  return s + "}";
}

// Device 0's AllToAll result: block 0 (columns 0..3) of every replica's
// x + 100 r, stacked in replica order.
std::string AllToAllDevice0() {
  std::string s = "f32[16,4] {";
  for (int r = 0; r < 4; ++r)
    for (int row = 0; row < 4; ++row) {
      s += (r || row) ? ", {" : "{";
      for (int c = 0; c < 4; ++c) s += (c ? ", " : "") + std::to_string(100 * r + row * 16 + c);
      s += "}";
    }
  return s + "}";
}

}  // namespace

std::vector<GoldenExample> DeviceGoldenExamples() {
  std::vector<GoldenExample> v = {
      {"all_gather_two_replicas", "operation semantics, AllGather: [1.0, 2.5] and [3.0, 5.25] on two replicas",
       AllGatherTwoReplicas, {"f32[2,2] {{1, 2.5}, {3, 5.25}}"}, "f32[4] {1, 2.5, 3, 5.25}", 2},
      {"all_reduce_two_replicas", "operation semantics, AllReduce: a sum over two replicas", AllReduceTwoReplicas,
       {"f32[2,2] {{1, 2.5}, {3, 5.25}}"}, "f32[2] {4, 7.75}", 2},
      {"reduce_scatter_two_replicas", "operation semantics, ReduceScatter: replica 0 receives [4.0]",
       ReduceScatterTwoReplicas, {"f32[2,2] {{1, 2.25}, {3, 5.25}}"}, "f32[1] {4}", 2},
      {"all_to_all_four_replicas",
       "operation semantics, AllToAll: f32[4,16] split along 1 and concatenated along 0 over 4 replicas",
       AllToAllFourReplicas, {Iota4x16()}, AllToAllDevice0(), 4},
      {"collective_permute_swap", "operation semantics, CollectivePermute: replicas 0 and 1 swap",
       CollectivePermuteSwap, {"f32[2,2] {{1, 2}, {3, 4}}"}, "f32[2] {3, 4}", 2},
      {"send_recv_self", "operation semantics, Send/Recv: one channel, sent and received in order",
       SendRecvSelf, {"f32[3] {1, 2, 3}"}, "f32[3] {1, 2, 3}"},
      {"send_recv_two_replicas",
       "operation semantics, Send/Recv: replicas 0 and 1 swap rows through one channel (source-target pairs)",
       SendRecvTwoReplicas, {"f32[2,2] {{1, 2}, {3, 4}}"}, "f32[2] {3, 4}", 2},
      {"infeed_plus_one", "operation semantics, Infeed: one f32[3] read from the infeed", InfeedPlusOne, {},
       "f32[3] {2, 3, 4}", 1, {"f32[3] {1, 2, 3}"}},
      {"custom_call_sharding", "operation semantics, CustomCall: a target this backend runs (an annotation)",
       CustomCallSharding, {"f32[2] {5, 6}"}, "f32[2] {5, 6}"},
      {"fft_rfft_4", "operation semantics, Fft: RFFT keeps fft_length / 2 + 1 outputs", RfftOfFour,
       {"f32[4] {1, 2, 3, 4}"}, "c64[3] {(10, 0), (-2, 2), (-2, 0)}"},
      {"cholesky_lower", "operation semantics, Cholesky: a = l l^T", CholeskyLower, {"f32[2,2] {{4, 2}, {2, 10}}"},
       "f32[2,2] {{2, 0}, {1, 3}}"},
      {"triangular_solve_left_lower", "operation semantics, TriangularSolve: a x = b with a lower-triangular",
       TriangularSolveLeftLower, {"f32[2,2] {{2, 0}, {1, 1}}", "f32[2,2] {{2, 4}, {3, 5}}"},
       "f32[2,2] {{1, 2}, {2, 3}}"},
      {"batch_norm_training", "operation semantics, BatchNormTraining: (normalized, mean, variance)",
       BatchNormTrainingExact, {"f32[2,2] {{1, 5}, {3, 7}}", "f32[2] {2, 4}", "f32[2] {0, 1}"},
       "(f32[2,2] {{-1, -1}, {1, 3}}, f32[2] {2, 6}, f32[2] {1, 1})"},
      {"top_k_document", "operation semantics, TopK: k=1 of the document's f32[2,3]", TopKDocument,
       {"f32[2,3] {{0.1, 0.3, 0.1}, {0.7, 0.2, -0.1}}"}, "(f32[2,1] {{0.3}, {0.7}}, s32[2,1] {{1}, {0}})"},
      {"get_dimension_size", "operation semantics, GetDimensionSize: dimension 1 of f32[2,3]",
       GetDimensionSizeOfOne, {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}"}, "s32[] 3"},
  };
  return v;
}

}  // namespace hlo::client
