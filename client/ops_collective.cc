// Collectives (all-gather, all-reduce, reduce-scatter, all-to-all,
// collective-permute), replica ids, tokens, send/recv and infeed/outfeed.
#include <set>

#include "absl/strings/str_cat.h"
#include "client/ops_internal.h"
#include "ir/shape_inference.h"

namespace hlo::client {
namespace {

// The frontend attribute by which XLA (and backend_cpu/ops_collective.cc)
// pairs the send and recv of a channel across devices.
constexpr char kSendRecvPairsKey[] = "_xla_send_recv_source_target_pairs";

// replica_groups (when given) and channel_id (when given).
Attrs CollectiveAttrs(absl::Span<const ReplicaGroup> groups, const std::optional<ChannelHandle>& channel) {
  Attrs attrs;
  if (channel.has_value()) attrs.emplace_back("channel_id", channel->handle);
  if (!groups.empty()) {
    CollectiveDeviceList list;
    list.groups.assign(groups.begin(), groups.end());
    attrs.emplace_back("replica_groups", Boxed<CollectiveDeviceList>(std::move(list)));
  }
  return attrs;
}

// The operand's shape with dimension `d` multiplied (gather) or divided by
// `n`, after checking `d` and `n`; or records the error.
std::optional<Shape> ScaledShape(XlaBuilder* b, absl::string_view op_name, XlaOp operand, int64_t d, int64_t n,
                                 bool gather) {
  const Shape& s = ShapeOf(operand);
  if (!internal::IsArrayShape(s)) {
    Fail(b, op_name, absl::StrCat("the operand must be an array, got ", ShapeToMessageString(s)));
    return std::nullopt;
  }
  if (d < 0 || d >= s.rank()) {
    Fail(b, op_name, absl::StrCat("dimension ", d, " is out of range for ", ShapeToMessageString(s)));
    return std::nullopt;
  }
  if (n <= 0) {
    Fail(b, op_name, absl::StrCat("the shard count must be positive, got ", n));
    return std::nullopt;
  }
  std::vector<int64_t> dims(s.dims().begin(), s.dims().end());
  if (gather) {
    dims[d] *= n;
  } else {
    if (dims[d] % n != 0) {
      Fail(b, op_name, absl::StrCat("dimension ", d, " of ", ShapeToMessageString(s),
                                    " is not divisible by the shard count ", n));
      return std::nullopt;
    }
    dims[d] /= n;
  }
  return Shape::Array(s.element_type(), dims);
}

}  // namespace

XlaOp ReplicaId(XlaBuilder* b) { return b->AddInstruction("ReplicaId", Opcode::kReplicaId, {}); }

XlaOp PartitionId(XlaBuilder* b) { return b->AddInstruction("PartitionId", Opcode::kPartitionId, {}); }

XlaOp AllGather(XlaOp operand, int64_t all_gather_dimension, int64_t shard_count,
                absl::Span<const ReplicaGroup> replica_groups, const std::optional<ChannelHandle>& channel_id) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr || !b->CheckOperands("AllGather", {operand})) return XlaOp();
  std::optional<Shape> out = ScaledShape(b, "AllGather", operand, all_gather_dimension, shard_count, true);
  if (!out.has_value()) return XlaOp();
  Attrs attrs = CollectiveAttrs(replica_groups, channel_id);
  attrs.emplace_back("dimensions", IntList({all_gather_dimension}));
  return b->AddInstruction("AllGather", Opcode::kAllGather, {operand}, std::move(attrs), *out);
}

XlaOp AllReduce(XlaOp operand, const XlaComputation& computation, absl::Span<const ReplicaGroup> replica_groups,
                const std::optional<ChannelHandle>& channel_id) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr || !b->CheckOperands("AllReduce", {operand})) return XlaOp();
  Computation* comp = internal::Use(b, "AllReduce", computation);
  if (comp == nullptr) return XlaOp();
  Attrs attrs = CollectiveAttrs(replica_groups, channel_id);
  attrs.emplace_back("to_apply", comp);
  return b->AddInstruction("AllReduce", Opcode::kAllReduce, {operand}, std::move(attrs));
}

XlaOp CrossReplicaSum(XlaOp operand, absl::Span<const ReplicaGroup> replica_groups) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr || !b->CheckOperands("CrossReplicaSum", {operand})) return XlaOp();
  const Shape& s = ShapeOf(operand);
  if (!internal::IsArrayShape(s))
    return Fail(b, "CrossReplicaSum", absl::StrCat("the operand must be an array, got ", ShapeToMessageString(s)));
  // The sum of two scalars of the operand's type (the document: an
  // AllReduce that adds).
  const Shape scalar = Shape::Scalar(s.element_type());
  std::unique_ptr<XlaBuilder> sub = b->CreateSubBuilder("sum");
  XlaOp x = Parameter(sub.get(), 0, scalar, "x");
  XlaOp y = Parameter(sub.get(), 1, scalar, "y");
  if (s.element_type() == PrimitiveType::PRED) {
    Or(x, y);
  } else {
    Add(x, y);
  }
  absl::StatusOr<XlaComputation> sum = sub->Build();
  if (!sum.ok()) return Fail(b, "CrossReplicaSum", sum.status().message());
  return AllReduce(operand, *sum, replica_groups);
}

XlaOp ReduceScatter(XlaOp operand, const XlaComputation& computation, int64_t scatter_dimension,
                    int64_t shard_count, absl::Span<const ReplicaGroup> replica_groups,
                    const std::optional<ChannelHandle>& channel_id) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr || !b->CheckOperands("ReduceScatter", {operand})) return XlaOp();
  std::optional<Shape> out = ScaledShape(b, "ReduceScatter", operand, scatter_dimension, shard_count, false);
  if (!out.has_value()) return XlaOp();
  Computation* comp = internal::Use(b, "ReduceScatter", computation);
  if (comp == nullptr) return XlaOp();
  Attrs attrs = CollectiveAttrs(replica_groups, channel_id);
  attrs.emplace_back("dimensions", IntList({scatter_dimension}));
  attrs.emplace_back("to_apply", comp);
  return b->AddInstruction("ReduceScatter", Opcode::kReduceScatter, {operand}, std::move(attrs), *out);
}

XlaOp AllToAll(XlaOp operand, int64_t split_dimension, int64_t concat_dimension, int64_t split_count,
               absl::Span<const ReplicaGroup> replica_groups) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr || !b->CheckOperands("AllToAll", {operand})) return XlaOp();
  const Shape& s = ShapeOf(operand);
  if (!ScaledShape(b, "AllToAll", operand, split_dimension, split_count, false).has_value()) return XlaOp();
  if (concat_dimension < 0 || concat_dimension >= s.rank())
    return Fail(b, "AllToAll",
                absl::StrCat("concat_dimension ", concat_dimension, " is out of range for ", ShapeToMessageString(s)));
  auto all_to_all = [&](XlaOp x, int64_t dim) {
    Attrs attrs = CollectiveAttrs(replica_groups, std::nullopt);
    attrs.emplace_back("dimensions", IntList({dim}));
    return b->AddInstruction("AllToAll", Opcode::kAllToAll, {x}, std::move(attrs));
  };
  if (split_dimension == concat_dimension) return all_to_all(operand, split_dimension);
  // The blocks of split_dimension become a new leading dimension, which one
  // all-to-all exchanges; the received blocks then go in front of
  // concat_dimension and merge with it.
  const int64_t rank = s.rank(), n = split_count;
  std::vector<int64_t> split_dims;  // [.., n, size/n, ..] at split_dimension
  for (int64_t i = 0; i < rank; ++i) {
    if (i == split_dimension) {
      split_dims.push_back(n);
      split_dims.push_back(s.dim(i) / n);
    } else {
      split_dims.push_back(s.dim(i));
    }
  }
  XlaOp x = b->AddInstruction("AllToAll", Opcode::kReshape, {operand}, {},
                              Shape::Array(s.element_type(), split_dims));
  std::vector<int64_t> to_front = {split_dimension};  // original dim k is then at k + 1
  for (int64_t i = 0; i <= rank; ++i)
    if (i != split_dimension) to_front.push_back(i);
  x = b->AddInstruction("AllToAll", Opcode::kTranspose, {x}, {{"dimensions", IntList(to_front)}});
  x = all_to_all(x, 0);
  std::vector<int64_t> to_concat, out_dims;
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t size = k == split_dimension ? s.dim(k) / n : s.dim(k);
    if (k == concat_dimension) {
      to_concat.push_back(0);
      out_dims.push_back(n * size);
    } else {
      out_dims.push_back(size);
    }
    to_concat.push_back(k + 1);
  }
  bool identity = true;  // concat_dimension 0: the blocks are in front already
  for (size_t i = 0; i < to_concat.size(); ++i) identity = identity && to_concat[i] == static_cast<int64_t>(i);
  if (!identity) x = b->AddInstruction("AllToAll", Opcode::kTranspose, {x}, {{"dimensions", IntList(to_concat)}});
  return b->AddInstruction("AllToAll", Opcode::kReshape, {x}, {}, Shape::Array(s.element_type(), out_dims));
}

XlaOp CollectivePermute(XlaOp operand, absl::Span<const std::pair<int64_t, int64_t>> source_target_pairs,
                        const std::optional<ChannelHandle>& channel_id) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  std::vector<std::vector<int64_t>> pairs;
  for (const auto& [source, target] : source_target_pairs) pairs.push_back({source, target});
  Attrs attrs = CollectiveAttrs({}, channel_id);
  attrs.emplace_back("source_target_pairs", std::move(pairs));
  return b->AddInstruction("CollectivePermute", Opcode::kCollectivePermute, {operand}, std::move(attrs));
}

XlaOp CreateToken(XlaBuilder* b) { return b->AddInstruction("CreateToken", Opcode::kAfterAll, {}); }

XlaOp AfterAll(XlaBuilder* b, absl::Span<const XlaOp> tokens) {
  return b->AddInstruction("AfterAll", Opcode::kAfterAll, tokens);
}

XlaOp SendWithToken(XlaOp operand, XlaOp token, const ChannelHandle& handle) {
  XlaBuilder* b = BuilderOf({operand, token});
  if (b == nullptr) return XlaOp();
  const Attrs channel = {{"channel_id", handle.handle}};
  XlaOp send = b->AddInstruction("Send", Opcode::kSend, {operand, token}, channel);
  if (!send.valid()) return send;
  return b->AddInstruction("Send", Opcode::kSendDone, {send}, channel);
}

XlaOp RecvWithToken(XlaOp token, const Shape& shape, const ChannelHandle& handle) {
  XlaBuilder* b = token.builder();
  if (b == nullptr) return XlaOp();
  if (!internal::IsArrayShape(shape))
    return Fail(b, "Recv", absl::StrCat("the received shape must be an array, got ", ShapeToMessageString(shape)));
  const Attrs channel = {{"channel_id", handle.handle}};
  Shape data = shape;
  data.FillDefaultLayoutIfMissing();
  XlaOp recv = b->AddInstruction("Recv", Opcode::kRecv, {token}, channel,
                                 Shape::Tuple({data, Shape::Scalar(PrimitiveType::U32), Shape::Token()}));
  if (!recv.valid()) return recv;
  return b->AddInstruction("Recv", Opcode::kRecvDone, {recv}, channel);
}

XlaOp Send(XlaOp operand, const ChannelHandle& handle) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return SendWithToken(operand, CreateToken(b), handle);
}

XlaOp Recv(XlaBuilder* b, const Shape& shape, const ChannelHandle& handle) {
  XlaOp done = RecvWithToken(CreateToken(b), shape, handle);
  if (!done.valid()) return done;
  return GetTupleElement(done, 0);
}

FrontendAttributes SendRecvSourceTargetPairs(SourceTargetPairs pairs) {
  std::string text = "{";
  for (size_t i = 0; i < pairs.size(); ++i)
    absl::StrAppend(&text, i ? "," : "", "{", pairs[i].first, ",", pairs[i].second, "}");
  text += "}";
  FrontendAttributes attrs;
  attrs[kSendRecvPairsKey] = StringOrDict{text, /*is_dict=*/false};
  return attrs;
}

namespace {

// Ids non-negative, each source and each target once; else the error.
absl::Status CheckSendRecvPairs(SourceTargetPairs pairs) {
  std::set<int64_t> sources, targets;
  for (const auto& [source, target] : pairs) {
    if (source < 0 || target < 0)
      return absl::InvalidArgumentError(
          absl::StrCat("source_target_pairs ids must be >= 0, got {", source, ",", target, "}"));
    if (!sources.insert(source).second)
      return absl::InvalidArgumentError(absl::StrCat("source_target_pairs: source ", source, " appears more than once"));
    if (!targets.insert(target).second)
      return absl::InvalidArgumentError(absl::StrCat("source_target_pairs: target ", target, " appears more than once"));
  }
  return absl::OkStatus();
}

// The builder's frontend attributes with the pairs added, for one call.
FrontendAttributes WithPairs(const XlaBuilder& b, SourceTargetPairs pairs) {
  FrontendAttributes attrs = b.frontend_attributes();
  for (auto& [key, value] : SendRecvSourceTargetPairs(pairs)) attrs[key] = value;
  return attrs;
}

}  // namespace

XlaOp SendWithToken(XlaOp operand, XlaOp token, const ChannelHandle& handle, SourceTargetPairs source_target_pairs) {
  XlaBuilder* b = BuilderOf({operand, token});
  if (b == nullptr) return XlaOp();
  if (absl::Status st = CheckSendRecvPairs(source_target_pairs); !st.ok()) return Fail(b, "Send", st.message());
  XlaScopedFrontendAttributesAssignment scope(b, WithPairs(*b, source_target_pairs));
  return SendWithToken(operand, token, handle);
}

XlaOp RecvWithToken(XlaOp token, const Shape& shape, const ChannelHandle& handle,
                    SourceTargetPairs source_target_pairs) {
  XlaBuilder* b = token.builder();
  if (b == nullptr) return XlaOp();
  if (absl::Status st = CheckSendRecvPairs(source_target_pairs); !st.ok()) return Fail(b, "Recv", st.message());
  XlaScopedFrontendAttributesAssignment scope(b, WithPairs(*b, source_target_pairs));
  return RecvWithToken(token, shape, handle);
}

XlaOp Send(XlaOp operand, const ChannelHandle& handle, SourceTargetPairs source_target_pairs) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return SendWithToken(operand, CreateToken(b), handle, source_target_pairs);
}

XlaOp Recv(XlaBuilder* b, const Shape& shape, const ChannelHandle& handle, SourceTargetPairs source_target_pairs) {
  XlaOp done = RecvWithToken(CreateToken(b), shape, handle, source_target_pairs);
  if (!done.valid()) return done;
  return GetTupleElement(done, 0);
}

XlaOp InfeedWithToken(XlaOp token, const Shape& shape, const std::string& config) {
  XlaBuilder* b = token.builder();
  if (b == nullptr) return XlaOp();
  Attrs attrs;
  if (!config.empty()) attrs.emplace_back("infeed_config", config);
  Shape data = shape;
  data.FillDefaultLayoutIfMissing();
  return b->AddInstruction("Infeed", Opcode::kInfeed, {token}, std::move(attrs),
                           Shape::Tuple({data, Shape::Token()}));
}

XlaOp Infeed(XlaBuilder* b, const Shape& shape, const std::string& config) {
  XlaOp infeed = InfeedWithToken(CreateToken(b), shape, config);
  if (!infeed.valid()) return infeed;
  return GetTupleElement(infeed, 0);
}

XlaOp OutfeedWithToken(XlaOp operand, XlaOp token, const Shape& shape_with_layout,
                       const std::string& outfeed_config) {
  XlaBuilder* b = BuilderOf({operand, token});
  if (b == nullptr) return XlaOp();
  Shape shape = shape_with_layout;
  shape.FillDefaultLayoutIfMissing();
  Attrs attrs = {{"outfeed_shape", Boxed<Shape>(std::move(shape))}};
  if (!outfeed_config.empty()) attrs.emplace_back("outfeed_config", outfeed_config);
  return b->AddInstruction("Outfeed", Opcode::kOutfeed, {operand, token}, std::move(attrs));
}

XlaOp Outfeed(XlaOp operand, const Shape& shape_with_layout, const std::string& outfeed_config) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return OutfeedWithToken(operand, CreateToken(b), shape_with_layout, outfeed_config);
}

}  // namespace hlo::client
