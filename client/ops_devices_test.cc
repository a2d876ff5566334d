// The builder calls of ops_collective.cc and ops_linalg.cc beyond their
// golden examples (client/golden_examples_devices.cc): the other forms and
// options, by value, and their errors.
#include "client/client_test_util.h"
#include "gmock/gmock.h"

namespace hlo::client {
namespace {

// The helpers of client_test_util.h are testing::X (hlo::client::testing),
// gmock's matchers ::testing::X.
constexpr PrimitiveType F32 = PrimitiveType::F32;

cpu::RunOptions Replicas(int64_t n) {
  cpu::RunOptions o;
  o.replica_count = n;
  return o;
}

// x + 10 * replica id: every replica's own operand.
XlaOp PlusReplica(XlaBuilder* b, XlaOp x) {
  return Add(x, Mul(ConvertElementType(ReplicaId(b), F32), ConstantR0<float>(b, 10)));
}

// The builder's recorded error (Build() fails with it).
std::string ErrorOf(XlaBuilder& b) {
  absl::StatusOr<XlaComputation> c = b.Build();
  return c.ok() ? "" : std::string(c.status().message());
}

TEST(CollectiveCalls, AllToAllSplitAndConcatInDifferentDimensions) {
  // Two replicas, split dimension 0 into 2 blocks, concatenate along 1:
  // replica 0 gets [row 0 of replica 0 | row 0 of replica 1].
  XlaBuilder b("a2a");
  XlaOp x = PlusReplica(&b, ConstantR2<float>(&b, {{1, 2}, {3, 4}}));
  AllToAll(x, /*split_dimension=*/0, /*concat_dimension=*/1, /*split_count=*/2);
  absl::StatusOr<Literal> r = testing::BuildAndRun(b, {}, Replicas(2));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(testing::LiteralIs(*r, "f32[1,4] {{1, 2, 11, 12}}"));
}

TEST(CollectiveCalls, ReplicaGroupsAndChannels) {
  // Groups {0,2} and {1,3}: replica 0 gathers replicas 0 and 2.
  XlaBuilder b("groups");
  XlaOp x = PlusReplica(&b, ConstantR1<float>(&b, {1}));
  XlaOp gathered = AllGather(x, 0, 2, {{0, 2}, {1, 3}});
  XlaOp summed = AllReduce(x, testing::ScalarBinary(b, "add", F32, Add), {{0, 2}, {1, 3}}, b.CreateChannelHandle());
  Tuple(&b, {gathered, summed});
  absl::StatusOr<std::shared_ptr<Module>> m = testing::BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  const std::string text = PrintModule(**m);
  EXPECT_THAT(text, ::testing::HasSubstr("replica_groups={{0,2},{1,3}}"));
  EXPECT_THAT(text, ::testing::HasSubstr("channel_id=1"));
  absl::StatusOr<Literal> r = testing::RunWithArgs(**m, {}, Replicas(4));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(testing::LiteralIs(*r, "(f32[2] {1, 21}, f32[1] {22})"));
}

TEST(CollectiveCalls, CrossReplicaSumAddsOrOrs) {
  // Groups {0,2} and {1,3}: replica 0 sums replicas 0 and 2; pred ors.
  XlaBuilder b("crs");
  XlaOp x = PlusReplica(&b, ConstantR1<float>(&b, {1, 2}));
  XlaOp all = CrossReplicaSum(x);
  XlaOp grouped = CrossReplicaSum(x, {{0, 2}, {1, 3}});
  XlaOp is_two = Eq(ReplicaId(&b), ConstantR0<uint32_t>(&b, 2));
  XlaOp any = CrossReplicaSum(Broadcast(is_two, {1}));
  Tuple(&b, {all, grouped, any});
  absl::StatusOr<std::shared_ptr<Module>> m = testing::BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(PrintModule(**m), ::testing::HasSubstr("or(%x."));
  absl::StatusOr<Literal> r = testing::RunWithArgs(**m, {}, Replicas(4));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(testing::LiteralIs(*r, "(f32[2] {64, 68}, f32[2] {22, 24}, pred[1] {1})"));
  XlaBuilder bad("crs_tuple");
  CrossReplicaSum(Tuple(&bad, {ConstantR0<float>(&bad, 1)}));
  EXPECT_THAT(ErrorOf(bad), ::testing::HasSubstr("CrossReplicaSum: the operand must be an array, got (f32[])"));
}

TEST(ControlCalls, OptimizationBarrierPassesItsOperandThrough) {
  XlaBuilder b("barrier");
  XlaOp x = Parameter(&b, 0, Shape::Array(F32, {2}), "x");
  XlaOp kept = OptimizationBarrier(Tuple(&b, {x, Neg(x)}));
  Add(GetTupleElement(kept, 0), GetTupleElement(kept, 1));
  Mul(GetTupleElement(kept, 1), ConstantR0<float>(&b, 3));
  absl::StatusOr<std::shared_ptr<Module>> m = testing::BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(PrintModule(**m), ::testing::HasSubstr("(f32[2]{0}, f32[2]{0}) opt-barrier(%tuple."));
  absl::StatusOr<Literal> r = testing::RunWithArgs(**m, {"f32[2] {1, -4}"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(testing::LiteralIs(*r, "f32[2] {-3, 12}"));
}

TEST(CollectiveCalls, OutfeedAndTokens) {
  XlaBuilder b("outfeed");
  XlaOp x = ConstantR1<float>(&b, {1, 2});
  XlaOp token = AfterAll(&b, {CreateToken(&b), CreateToken(&b)});
  OutfeedWithToken(x, token, Shape::Array(F32, {2}), "cfg");
  Outfeed(Mul(x, x), Shape::Array(F32, {2}));
  absl::StatusOr<XlaComputation> built = b.Build(x);
  ASSERT_TRUE(built.ok()) << built.status();
  const std::string text = PrintModule(built->module());
  EXPECT_THAT(text, ::testing::HasSubstr("outfeed_shape=f32[2]{0}"));
  EXPECT_THAT(text, ::testing::HasSubstr("outfeed_config=\"cfg\""));
  absl::StatusOr<cpu::RunResult> r = cpu::RunModule(built->module(), {});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->outfeed().size(), 2u);
  EXPECT_TRUE(testing::LiteralIs(r->outfeed()[0], "f32[2] {1, 2}"));
  EXPECT_TRUE(testing::LiteralIs(r->outfeed()[1], "f32[2] {1, 4}"));
}

TEST(CollectiveCalls, OutfeedOfEveryDevice) {
  // RunResult::outfeeds holds each device's values; outfeed stays device 0's.
  XlaBuilder b("outfeed_devices");
  XlaOp x = PlusReplica(&b, ConstantR1<float>(&b, {1, 2}));
  Outfeed(x, Shape::Array(F32, {2}));
  absl::StatusOr<std::shared_ptr<Module>> m = testing::BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<cpu::RunResult> r = cpu::RunModule(**m, {}, Replicas(2));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->outfeeds.size(), 2u);
  ASSERT_EQ(r->outfeeds[0].size(), 1u);
  ASSERT_EQ(r->outfeeds[1].size(), 1u);
  EXPECT_TRUE(testing::LiteralIs(r->outfeeds[0][0], "f32[2] {1, 2}"));
  EXPECT_TRUE(testing::LiteralIs(r->outfeeds[1][0], "f32[2] {11, 12}"));
  ASSERT_EQ(r->outfeed().size(), 1u);
  EXPECT_TRUE(testing::LiteralIs(r->outfeed()[0], "f32[2] {1, 2}"));
}

// Device d's result of a multi-device run.
Literal DeviceResult(const Module& m, const cpu::RunOptions& o, size_t d) {
  absl::StatusOr<cpu::RunResult> r = cpu::RunModule(m, {}, o);
  if (!r.ok() || r->results.size() <= d) {
    ADD_FAILURE() << (r.ok() ? "too few devices" : r.status().ToString());
    return Literal();
  }
  return std::move(r->results[d]);
}

TEST(SendRecvPairs, ReplicasSwapThroughOneChannel) {
  XlaBuilder b("swap");
  const ChannelHandle ch = b.CreateChannelHandle();
  const std::vector<std::pair<int64_t, int64_t>> swap = {{0, 1}, {1, 0}};
  XlaOp x = PlusReplica(&b, ConstantR1<float>(&b, {1, 2}));
  XlaOp sent = Send(x, ch, swap);
  XlaOp got = GetTupleElement(RecvWithToken(sent, Shape::Array(F32, {2}), ch, swap), 0);
  Tuple(&b, {x, got});
  absl::StatusOr<std::shared_ptr<Module>> m = testing::BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  // send, send-done, recv and recv-done carry the pairs; the token does not.
  const std::string text = PrintModule(**m);
  const std::string attr = "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}";
  size_t count = 0;
  for (size_t at = text.find(attr); at != std::string::npos; at = text.find(attr, at + 1)) ++count;
  EXPECT_EQ(count, 4u) << text;
  EXPECT_THAT(text, ::testing::Not(::testing::HasSubstr("after-all(), frontend_attributes")));
  EXPECT_TRUE(testing::LiteralIs(DeviceResult(**m, Replicas(2), 0), "(f32[2] {1, 2}, f32[2] {11, 12})"));
  EXPECT_TRUE(testing::LiteralIs(DeviceResult(**m, Replicas(2), 1), "(f32[2] {11, 12}, f32[2] {1, 2})"));
}

TEST(SendRecvPairs, AShiftLeavesTheFirstReplicaWithZeros) {
  // 0 -> 1 -> 2 on three replicas: replica 0 is nobody's target.
  XlaBuilder b("shift");
  const ChannelHandle ch = b.CreateChannelHandle();
  const std::vector<std::pair<int64_t, int64_t>> shift = {{0, 1}, {1, 2}};
  Send(PlusReplica(&b, ConstantR1<float>(&b, {1})), ch, shift);
  Recv(&b, Shape::Array(F32, {1}), ch, shift);
  absl::StatusOr<std::shared_ptr<Module>> m = testing::BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(testing::LiteralIs(DeviceResult(**m, Replicas(3), 0), "f32[1] {0}"));
  EXPECT_TRUE(testing::LiteralIs(DeviceResult(**m, Replicas(3), 1), "f32[1] {1}"));
  EXPECT_TRUE(testing::LiteralIs(DeviceResult(**m, Replicas(3), 2), "f32[1] {11}"));
}

TEST(SendRecvPairs, PartitionIdsWhenTheRunHasPartitions) {
  // One replica, two partitions: the pairs name partitions.
  XlaBuilder b("partitions");
  const ChannelHandle ch = b.CreateChannelHandle();
  XlaOp x = Add(ConstantR1<float>(&b, {5}), ConvertElementType(PartitionId(&b), F32));
  Send(x, ch, {{1, 0}});
  Recv(&b, Shape::Array(F32, {1}), ch, {{1, 0}});
  absl::StatusOr<std::shared_ptr<Module>> m = testing::BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  cpu::RunOptions o;
  o.replica_count = 1;
  o.partition_count = 2;
  EXPECT_TRUE(testing::LiteralIs(DeviceResult(**m, o, 0), "f32[1] {6}"));
  EXPECT_TRUE(testing::LiteralIs(DeviceResult(**m, o, 1), "f32[1] {0}"));
}

TEST(SendRecvPairs, Errors) {
  {
    XlaBuilder b("twice");
    Recv(&b, Shape::Array(F32, {1}), b.CreateChannelHandle(), {{0, 1}, {2, 1}});
    EXPECT_THAT(ErrorOf(b), ::testing::HasSubstr("Recv: source_target_pairs: target 1 appears more than once"));
  }
  {
    XlaBuilder b("negative");
    Send(ConstantR1<float>(&b, {1}), b.CreateChannelHandle(), {{0, -1}});
    EXPECT_THAT(ErrorOf(b), ::testing::HasSubstr("Send: source_target_pairs ids must be >= 0, got {0,-1}"));
  }
  {
    XlaBuilder b("source_twice");
    Send(ConstantR1<float>(&b, {1}), b.CreateChannelHandle(), {{0, 1}, {0, 2}});
    EXPECT_THAT(ErrorOf(b), ::testing::HasSubstr("Send: source_target_pairs: source 0 appears more than once"));
  }
}

TEST(FrontendAttributes, EveryOpGetsTheBuildersAndItsOwnWin) {
  XlaBuilder b("attrs");
  FrontendAttributes attrs;
  attrs["stage"] = StringOrDict{"one", false};
  XlaOp p = Parameter(&b, 0, Shape::Array(F32, {2}), "p");
  {
    XlaScopedFrontendAttributesAssignment scope(&b, attrs);
    XlaOp c = ConstantR0<float>(&b, 2);
    // A send with pairs keeps the builder's attributes beside the pairs.
    Send(Mul(p, c), b.CreateChannelHandle(), {{0, 0}});
  }
  EXPECT_TRUE(b.frontend_attributes().empty());  // the scope restored them
  XlaOp plain = Neg(p);
  absl::StatusOr<XlaComputation> c = b.Build(plain);
  ASSERT_TRUE(c.ok()) << c.status();
  const std::string text = PrintModule(c->module());
  EXPECT_THAT(text, ::testing::HasSubstr("constant(2), frontend_attributes={stage=\"one\"}"));
  EXPECT_THAT(text, ::testing::HasSubstr(
                        "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,0}}\",stage=\"one\"}"));
  EXPECT_THAT(text, ::testing::HasSubstr("parameter(0)\n"));
  EXPECT_THAT(text, ::testing::HasSubstr("negate(%p.1)\n"));
}

TEST(CollectiveCalls, TokenlessSendRecvAndInfeed) {
  XlaBuilder b("tokenless");
  const ChannelHandle ch = b.CreateChannelHandle();
  EXPECT_EQ(b.CreateChannelHandle().handle, ch.handle + 1);
  XlaOp in = Infeed(&b, Shape::Array(F32, {2}), "config");
  Send(in, ch);
  Add(Recv(&b, Shape::Array(F32, {2}), ch), in);
  cpu::RunOptions o;
  o.infeed.push_back(LiteralR1<float>({3, 4}));
  absl::StatusOr<Literal> r = testing::BuildAndRun(b, {}, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(testing::LiteralIs(*r, "f32[2] {6, 8}"));
}

TEST(CollectiveCalls, Errors) {
  {
    XlaBuilder b("e1");
    AllGather(ConstantR1<float>(&b, {1}), 0, 0);
    EXPECT_THAT(ErrorOf(b), ::testing::HasSubstr("AllGather: the shard count must be positive, got 0"));
  }
  {
    XlaBuilder b("e2");
    ReduceScatter(ConstantR1<float>(&b, {1, 2, 3}), testing::ScalarBinary(b, "add", F32, Add), 0, 2);
    EXPECT_THAT(ErrorOf(b),
                ::testing::HasSubstr("ReduceScatter: dimension 0 of f32[3] is not divisible by the shard count 2"));
  }
  {
    XlaBuilder b("e3");
    AllToAll(ConstantR1<float>(&b, {1, 2}), 0, 1, 2);
    EXPECT_THAT(ErrorOf(b), ::testing::HasSubstr("AllToAll: concat_dimension 1 is out of range for f32[2]"));
  }
  {
    XlaBuilder b("e4");
    CollectivePermute(ConstantR1<float>(&b, {1}), {{0, 1}, {0, 2}});
    EXPECT_THAT(ErrorOf(b), ::testing::HasSubstr("CollectivePermute:"));
    EXPECT_THAT(ErrorOf(b), ::testing::HasSubstr("source 0 appears more than once"));
  }
  {
    XlaBuilder b("e5");
    AllGather(ConstantR1<float>(&b, {1}), 0, 3, {{0, 1}});
    EXPECT_THAT(ErrorOf(b), ::testing::HasSubstr("AllGather:"));
  }
  {
    XlaBuilder b("e6");
    Recv(&b, Shape::Tuple({Shape::Array(F32, {1})}), b.CreateChannelHandle());
    EXPECT_THAT(ErrorOf(b), ::testing::HasSubstr("Recv: the received shape must be an array"));
  }
}

TEST(LinalgCalls, TriangularSolveTransposedAndCholeskyUpper) {
  XlaBuilder b("linalg");
  XlaOp a = ConstantR2<float>(&b, {{2, 0}, {1, 1}});
  // a^T x = b with a lower: x = (1.5, 1).
  XlaOp x = TriangularSolve(a, ConstantR2<float>(&b, {{4}, {1}}), true, true, false,
                            TriangularSolveOptions::TRANSPOSE);
  // Upper: a = u^T u; the lower triangle is unspecified, so only u's
  // upper entries are compared.
  XlaOp u = Cholesky(ConstantR2<float>(&b, {{4, 2}, {2, 10}}), /*lower=*/false);
  Tuple(&b, {x, Slice(u, {0, 0}, {1, 2}, {1, 1}), Slice(u, {1, 1}, {2, 2}, {1, 1})});
  EXPECT_BUILDS_TO(b, {}, "(f32[2,1] {{1.5}, {1}}, f32[1,2] {{2, 1}}, f32[1,1] {{3}})");
}

TEST(LinalgCalls, BatchNormInferenceAndGrad) {
  XlaBuilder b("bn");
  XlaOp x = ConstantR2<float>(&b, {{1, 5}, {3, 7}});
  XlaOp scale = ConstantR1<float>(&b, {2, 4});
  XlaOp mean = ConstantR1<float>(&b, {2, 6});
  XlaOp var = ConstantR1<float>(&b, {1, 1});
  XlaOp y = BatchNormInference(x, scale, ConstantR1<float>(&b, {0, 1}), mean, var, 3, 1);
  // dy = 1: grad offset = sum(dy) = 2; grad scale = sum(dy * x_hat) = 0;
  // grad x = scale / 2 * (dy - mean(dy) - x_hat mean(dy x_hat)) = 0.
  XlaOp grads = BatchNormGrad(x, scale, mean, var, ConstantR2<float>(&b, {{1, 1}, {1, 1}}), 3, 1);
  Tuple(&b, {y, grads});
  EXPECT_BUILDS_TO(b, {},
                   "(f32[2,2] {{-1, -1}, {1, 3}}, (f32[2,2] {{0, 0}, {0, 0}}, f32[2] {0, 0}, f32[2] {2, 2}))");
}

TEST(LinalgCalls, TopKSmallestFftRoundTripAndDimensionSizes) {
  XlaBuilder b("misc");
  XlaOp v = ConstantR1<float>(&b, {3, 1, 2});
  XlaOp smallest = TopK(v, 2, /*largest=*/false);
  XlaOp c = ConvertElementType(ConstantR1<float>(&b, {1, 2, 3, 4}), PrimitiveType::C64);
  XlaOp back = Real(Fft(Fft(c, FftType::FFT, {4}), FftType::IFFT, {4}));
  XlaOp irfft = Fft(Fft(ConstantR1<float>(&b, {1, 2, 3, 4}), FftType::RFFT, {4}), FftType::IRFFT, {4});
  Tuple(&b, {smallest, back, irfft, GetDimensionSize(v, 0)});
  EXPECT_BUILDS_TO(b, {},
                   "((f32[2] {1, 2}, s32[2] {1, 2}), f32[4] {1, 2, 3, 4}, f32[4] {1, 2, 3, 4}, s32[] 3)");

  XlaBuilder d("set_size");
  XlaOp p = Parameter(&d, 0, Shape::Array(F32, {3}), "p");
  SetDimensionSize(p, ConstantR0<int32_t>(&d, 2), 0);
  absl::StatusOr<std::shared_ptr<Module>> m = testing::BuildChecked(d);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(ShapeToString((*m)->entry()->root()->shape(), false), "f32[<=3]");
}

TEST(LinalgCalls, RngBitGeneratorIsAFunctionOfItsState) {
  XlaBuilder b("bits");
  XlaOp state = ConstantR1<uint64_t>(&b, {1, 2});
  XlaOp first = RngBitGenerator(RandomAlgorithm::RNG_THREE_FRY, state, Shape::Array(PrimitiveType::U32, {2, 3}));
  XlaOp again = RngBitGenerator(RandomAlgorithm::RNG_THREE_FRY, state, Shape::Array(PrimitiveType::U32, {2, 3}));
  XlaOp next = RngBitGenerator(RandomAlgorithm::RNG_THREE_FRY, GetTupleElement(first, 0),
                               Shape::Array(PrimitiveType::U32, {2, 3}));
  XlaOp same = Eq(GetTupleElement(first, 1), GetTupleElement(again, 1));
  XlaOp differs = Ne(GetTupleElement(first, 1), GetTupleElement(next, 1));
  XlaComputation and_ = testing::ScalarBinary(b, "and", PrimitiveType::PRED, And);
  XlaComputation or_ = testing::ScalarBinary(b, "or", PrimitiveType::PRED, Or);
  Tuple(&b, {ReduceAll(same, ConstantR0<bool>(&b, true), and_), ReduceAll(differs, ConstantR0<bool>(&b, false), or_)});
  absl::StatusOr<std::shared_ptr<Module>> m = testing::BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(PrintModule(**m), ::testing::HasSubstr("(u64[2]{0}, u32[2,3]{1,0}) rng-bit-generator(%constant.1), "
                                          "algorithm=rng_three_fry"));
  absl::StatusOr<Literal> r = testing::RunWithArgs(**m, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(testing::LiteralIs(*r, "(pred[] true, pred[] true)"));
}

TEST(LinalgCalls, CustomCallAttributesAndErrors) {
  XlaBuilder b("cc");
  XlaOp x = ConstantR1<float>(&b, {1, 2});
  CustomCall(&b, "Sharding", {x}, Shape::Array(F32, {2}), "opaque \"data\"", /*has_side_effect=*/true);
  absl::StatusOr<std::shared_ptr<Module>> m = testing::BuildChecked(b);
  ASSERT_TRUE(m.ok()) << m.status();
  const std::string text = PrintModule(**m);
  EXPECT_THAT(text, ::testing::HasSubstr("custom_call_target=\"Sharding\""));
  EXPECT_THAT(text, ::testing::HasSubstr("custom_call_has_side_effect=true"));
  EXPECT_THAT(text, ::testing::HasSubstr("backend_config=\"opaque \\\"data\\\"\""));

  XlaBuilder e("cc_errors");
  CustomCall(&e, "", {}, Shape::Array(F32, {2}));
  EXPECT_THAT(ErrorOf(e), ::testing::HasSubstr("CustomCall: the call target name is empty"));
  XlaBuilder k("topk_errors");
  TopK(ConstantR1<float>(&k, {1, 2}), 3);
  EXPECT_THAT(ErrorOf(k), ::testing::HasSubstr("TopK: "));
  EXPECT_THAT(ErrorOf(k), ::testing::HasSubstr("k=3"));
  XlaBuilder f("fft_errors");
  Fft(ConstantR1<float>(&f, {1, 2}), FftType::FFT, {2});
  EXPECT_THAT(ErrorOf(f), ::testing::HasSubstr("Fft: "));
}

}  // namespace
}  // namespace hlo::client
