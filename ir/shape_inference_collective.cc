// Shape rules: collectives (replica groups, all-reduce/gather/to-all, permutes), send/recv, infeed/outfeed, tokens.
// Part of ir/shape_inference (see shape_inference_internal.h).
#include "ir/shape_inference_internal.h"

namespace hlo::shape_internal {
namespace {

// Collectives
// ---------------------------------------------------------------------------

// Replica-group modes, as XLA derives them from channel_id and
// use_global_device_ids.
enum class GroupMode { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattenedId };

absl::StatusOr<GroupMode> GetGroupMode(const Ctx& c, bool has_use_global) {
  const bool has_channel = c.inst.HasAttr("channel_id");
  std::optional<bool> use_global;
  if (has_use_global) use_global = c.inst.AttrOr<bool>("use_global_device_ids", false);
  if (!has_channel) {
    if (use_global && *use_global)
      return Invalid(c.name(), " with use_global_device_ids=true needs a channel_id");
    return GroupMode::kCrossReplica;
  }
  if (!use_global) return GroupMode::kCrossPartition;
  return *use_global ? GroupMode::kFlattenedId : GroupMode::kCrossReplicaAndPartition;
}

// Why an iota device list cannot be expanded, or "" if it can.
std::string IotaProblem(const IotaDeviceList& l) {
  if (l.dims.size() != 2) return "the iota form must be [G,S]";
  if (l.dims[0] < 0 || l.dims[1] < 0) return "negative group count or size";
  return l.Problem();
}

std::vector<std::vector<int64_t>> Groups(const Ctx& c) {
  const auto* g = c.inst.GetAttr<CollectiveDeviceList>("replica_groups");
  if (g == nullptr) return {};
  if (g->is_iota && !IotaProblem(g->iota).empty()) return {};
  return g->ExpandedGroups();
}

// replica_count / num_partitions of the enclosing module (1 when unknown).
std::pair<int64_t, int64_t> ModuleCounts(const Ctx& c) {
  const Computation* comp = c.inst.parent();
  const Module* m = comp != nullptr ? comp->parent() : nullptr;
  if (m == nullptr) return {1, 1};
  return {std::max<int64_t>(1, m->header().replica_count), std::max<int64_t>(1, m->header().num_partitions)};
}

// XLA's replica-group rules: no empty group, no repeated id, ids 0..n-1 with
// n matching the participant count of the mode (unless that count is 1),
// uniform sizes (except all-reduce), and explicit groups in flattened-id mode.
absl::Status CheckReplicaGroups(const Ctx& c, GroupMode mode, bool uniform) {
  const auto* g = c.inst.GetAttr<CollectiveDeviceList>("replica_groups");
  if (g != nullptr && g->is_iota) {
    std::string problem = IotaProblem(g->iota);
    if (!problem.empty()) return Invalid(c.name(), " has invalid replica_groups: ", problem);
  }
  if (g != nullptr && g->is_mesh) {
    std::string problem = g->mesh.Problem();
    if (!problem.empty()) return Invalid(c.name(), " has invalid replica_groups: ", problem);
  }
  const auto groups = Groups(c);
  if (groups.empty()) {
    if (mode == GroupMode::kFlattenedId)
      return Invalid(c.name(), " needs explicit replica_groups when use_global_device_ids=true");
    return absl::OkStatus();
  }
  std::set<int64_t> seen;
  for (const auto& grp : groups) {
    if (grp.empty()) return Invalid(c.name(), " has an empty replica group");
    for (int64_t id : grp)
      if (!seen.insert(id).second)
        return Invalid("replica ", id, " is repeated in the replica_groups of ", c.name());
  }
  const int64_t n = static_cast<int64_t>(seen.size());
  for (int64_t i = 0; i < n; ++i)
    if (!seen.count(i)) return Invalid("replica ", i, " is not named in the replica_groups of ", c.name());
  auto [replicas, partitions] = ModuleCounts(c);
  int64_t want = 1;
  absl::string_view what = "replicas";
  switch (mode) {
    case GroupMode::kCrossReplica:
    case GroupMode::kCrossReplicaAndPartition:
      want = replicas;
      break;
    case GroupMode::kCrossPartition:
      want = partitions;
      what = "partitions";
      break;
    case GroupMode::kFlattenedId:
      want = replicas * partitions;
      what = "flattened ids (replicas x partitions)";
      break;
  }
  if (want != 1 && n != want)
    return Invalid(c.name(), " replica_groups name ", n, " ids but the module has ", want, " ", what);
  if (uniform)
    for (const auto& grp : groups)
      if (grp.size() != groups[0].size())
        return Invalid(c.name(), " replica groups must all have the same size");
  return absl::OkStatus();
}

// Number of participants in each group (XLA's GetSubgroupSize).
int64_t SubgroupSize(const Ctx& c, GroupMode mode) {
  const auto groups = Groups(c);
  auto [replicas, partitions] = ModuleCounts(c);
  const int64_t first = groups.empty() ? 0 : static_cast<int64_t>(groups[0].size());
  switch (mode) {
    case GroupMode::kCrossReplica:
      return groups.empty() ? replicas : first;
    case GroupMode::kCrossReplicaAndPartition:
      return (groups.empty() ? replicas : first) * partitions;
    case GroupMode::kFlattenedId:
      return std::max<int64_t>(first, 1);
    case GroupMode::kCrossPartition:
      return groups.empty() ? partitions : first;
  }
  return 1;
}

// The written counterpart of result `i` of a collective with `n` results.
const Shape* WrittenResult(const Shape& w, int64_t n, int64_t i) {
  if (n == 1 && !w.IsTuple()) return &w;
  if (w.IsTuple() && w.tuple_size() == n) return &w.tuple_shape(i);
  return nullptr;
}

int64_t CeilDiv(int64_t a, int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

// all-gather (gather=true) and reduce-scatter: the shard count comes from
// the written result (operand 0, gather dimension), as in XLA, and must
// equal the group size when that is known (!= 1).
absl::StatusOr<std::vector<Shape>> ScaledCollective(const Ctx& c, const Shape& written, bool gather) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntList(c, "dimensions"));
  if (dims.size() != 1) return Invalid(c.name(), " expects exactly one dimension, got ", L(dims));
  HLO_ASSIGN_OR_RETURN(GroupMode mode, GetGroupMode(c, /*has_use_global=*/true));
  HLO_RETURN_IF_ERROR(CheckReplicaGroups(c, mode, /*uniform=*/true));
  const int64_t d = dims[0];
  for (int64_t i = 0; i < c.n(); ++i) HLO_RETURN_IF_ERROR(CheckDims(c, dims, c.op(i).rank(), "dimensions"));
  const int64_t subgroup = SubgroupSize(c, mode);
  int64_t shards = subgroup;
  const Shape* w0 = WrittenResult(written, c.n(), 0);
  if (w0 != nullptr && w0->IsArray() && w0->rank() > d && !IsUnbounded(*w0, d) && !IsUnbounded(c.op(0), d)) {
    const int64_t in = c.op(0).dim(d), out = w0->dim(d);
    int64_t from_shapes = gather ? CeilDiv(out, in) : CeilDiv(in, out);
    if ((gather ? in : out) > 0) shards = from_shapes;
  }
  if (shards <= 0) shards = 1;
  if (subgroup != 1 && shards != subgroup)
    return Invalid(c.name(), " shard count ", shards, " (from the operand and result sizes in dimension ", d,
                   ") differs from the replica group size ", subgroup);
  std::vector<Shape> out;
  for (int64_t i = 0; i < c.n(); ++i) {
    const Shape& in = c.op(i);
    DimVector od = in.dims();
    if (!IsUnbounded(in, d)) {
      if (gather) {
        od[d] = SatMul(in.dim(d), shards);
      } else {
        if (in.dim(d) % shards != 0)
          return Invalid(c.name(), " dimension ", d, " of operand ", i, " ", S(in),
                         " is not divisible by the shard count ", shards);
        od[d] = in.dim(d) / shards;
      }
    }
    out.push_back(MakeArray(in.element_type(), od, in.dynamic_dims()));
  }
  return out;
}

bool CollectivePermuteInPlace(const Ctx& c) {
  return c.n() == 4 && (c.inst.HasAttr("slice_sizes") || c.op(2).IsTuple() || c.op(3).IsTuple());
}

}  // namespace

absl::StatusOr<Shape> AllGather(const Ctx& c) {
  const Shape& w = c.inst.shape();
  if (c.inst.opcode() == Opcode::kAllGatherStart) {
    // (operand(s), result(s))
    Shape result_written;
    if (w.IsTuple() && w.tuple_size() == 2) result_written = w.tuple_shape(1);
    HLO_ASSIGN_OR_RETURN(std::vector<Shape> res, ScaledCollective(c, result_written, true));
    if (c.n() == 1) return Shape::Tuple({c.op(0), res[0]});
    return Shape::Tuple({Shape::Tuple(OperandShapes(c)), Shape::Tuple(res)});
  }
  HLO_ASSIGN_OR_RETURN(std::vector<Shape> res, ScaledCollective(c, w, true));
  return TupleOrSingle(res);
}

absl::StatusOr<Shape> ReduceScatter(const Ctx& c) {
  HLO_ASSIGN_OR_RETURN(std::vector<Shape> res, ScaledCollective(c, c.inst.shape(), false));
  HLO_RETURN_IF_ERROR(Comp(c, "to_apply").status());
  return TupleOrSingle(res);
}

absl::StatusOr<Shape> AllReduce(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  for (int64_t i = 0; i < c.n(); ++i) HLO_RETURN_IF_ERROR(ExpectArray(c, i));
  HLO_ASSIGN_OR_RETURN(GroupMode mode, GetGroupMode(c, /*has_use_global=*/true));
  HLO_RETURN_IF_ERROR(CheckReplicaGroups(c, mode, /*uniform=*/false));
  if (const int64_t* ch = c.inst.GetAttr<int64_t>("channel_id"))
    if (*ch <= 0) return Invalid(c.name(), " channel_id must be greater than 0, got ", *ch);
  HLO_RETURN_IF_ERROR(Comp(c, "to_apply").status());
  return TupleOrSingle(OperandShapes(c));
}

absl::StatusOr<Shape> AllToAll(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntListOr(c, "dimensions", {}));
  if (dims.size() > 1) return Invalid("all-to-all expects at most one dimension, got ", L(dims));
  HLO_ASSIGN_OR_RETURN(GroupMode mode, GetGroupMode(c, /*has_use_global=*/false));
  HLO_RETURN_IF_ERROR(CheckReplicaGroups(c, mode, /*uniform=*/true));
  const int64_t split_count = SubgroupSize(c, mode);
  if (dims.empty()) {
    // Tuple form: one operand per participant, all of one shape.
    if (c.n() != split_count)
      return Invalid("all-to-all without a split dimension expects one operand per participant (",
                     split_count, "), got ", c.n());
    for (int64_t i = 1; i < c.n(); ++i)
      if (!ShapesCompatible(c.op(i), c.op(0)))
        return Invalid("all-to-all operands must all have the same shape: operand 0 is ", S(c.op(0)),
                       ", operand ", i, " is ", S(c.op(i)));
    return Shape::Tuple(OperandShapes(c));
  }
  if (c.n() != 1) return Invalid("all-to-all with a split dimension expects 1 operand, got ", c.n());
  HLO_RETURN_IF_ERROR(CheckDims(c, dims, c.op(0).rank(), "dimensions"));
  const int64_t sz = c.op(0).dim(dims[0]);
  if (split_count > 0 && sz != Shape::kUnboundedSize && sz % split_count != 0)
    return Invalid("all-to-all split dimension ", dims[0], " of size ", sz,
                   " is not divisible by the split count ", split_count);
  return c.op(0);
}

absl::StatusOr<Shape> CollectivePermute(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  if (!c.inst.GetAttr<std::vector<std::vector<int64_t>>>("source_target_pairs"))
    return Invalid(c.name(), " is missing required attribute source_target_pairs");
  const auto& pairs = *c.inst.GetAttr<std::vector<std::vector<int64_t>>>("source_target_pairs");
  for (const auto& p : pairs)
    if (p.size() != 2) return Invalid(c.name(), " source_target_pairs entries must be {source,target} pairs");
  const bool inplace = CollectivePermuteInPlace(c);
  {
    // Ids in range of the participants; each source/target used once (the
    // in-place form may repeat them once per buffer offset).
    auto [replicas, partitions] = ModuleCounts(c);
    const int64_t limit = c.inst.HasAttr("channel_id") ? partitions : replicas;
    size_t allowed = 1;
    if (c.n() == 4 && c.op(2).IsTuple()) {
      if (c.op(0).IsArray())
        allowed = std::max<size_t>(1, c.op(2).tuple_shapes().size());
      else if (c.op(2).tuple_size() > 0)
        allowed = std::max<size_t>(1, c.op(2).tuple_shape(0).tuple_shapes().size());
    }
    std::map<int64_t, size_t> sources, targets;
    for (const auto& p : pairs) {
      for (int k = 0; k < 2; ++k) {
        const int64_t id = p[k];
        const char* role = k == 0 ? "source" : "target";
        if (id < 0 || (limit != 1 && id >= limit))
          return Invalid(c.name(), " ", role, " ", id, " in source_target_pairs is out of range [0, ", limit,
                         ")");
        size_t& n = (k == 0 ? sources : targets)[id];
        if (++n > allowed)
          return Invalid(c.name(), " ", role, " ", id, " appears more than ",
                         allowed == 1 ? "once" : "allowed", " in source_target_pairs");
      }
    }
  }
  Shape result;
  if (inplace) {
    // XLA's in-place rules: buffers both arrays (offsets: a tuple of rank
    // scalars, or a tuple of such tuples) or both tuples of equal size.
    auto check_offset = [&](const Shape& buffer, const Shape& offset) -> absl::Status {
      if (!offset.IsTuple()) return Invalid(c.name(), " buffer offset ", S(offset), " is not a tuple");
      bool all_array = true, all_tuple = true;
      for (const Shape& e : offset.tuple_shapes()) {
        all_array = all_array && !e.IsTuple();
        all_tuple = all_tuple && e.IsTuple();
      }
      if (!all_array && !all_tuple)
        return Invalid(c.name(), " buffer offset must be a tuple of arrays or a tuple of tuples, got ",
                       S(offset));
      if (all_tuple && offset.tuple_size() > 0) {
        for (const Shape& e : offset.tuple_shapes())
          if (e.tuple_size() != buffer.rank())
            return Invalid(c.name(), " buffer offset ", S(e), " needs one index per dimension of ",
                           S(buffer));
      } else if (offset.tuple_size() != buffer.rank()) {
        return Invalid(c.name(), " buffer offset ", S(offset), " needs one index per dimension of ",
                       S(buffer));
      }
      return absl::OkStatus();
    };
    const Shape& in = c.op(0);
    const Shape& out = c.op(1);
    if (!in.IsTuple() && !out.IsTuple()) {
      HLO_RETURN_IF_ERROR(check_offset(in, c.op(2)));
      HLO_RETURN_IF_ERROR(check_offset(out, c.op(3)));
    } else if (in.IsTuple() && out.IsTuple()) {
      if (in.tuple_size() != out.tuple_size())
        return Invalid(c.name(), " in-place input ", S(in), " and output ", S(out),
                       " have different buffer counts");
      for (int k = 2; k < 4; ++k) {
        const Shape& off = c.op(k);
        if (!off.IsTuple() || off.tuple_size() != in.tuple_size())
          return Invalid(c.name(), " operand ", k, " ", S(off), " needs one offset per buffer");
        for (int64_t b = 0; b < in.tuple_size(); ++b)
          HLO_RETURN_IF_ERROR(check_offset((k == 2 ? in : out).tuple_shape(b), off.tuple_shape(b)));
      }
    } else {
      return Invalid(c.name(), " in-place input ", S(in), " and output ", S(out), " do not match");
    }
    result = c.op(1);
  } else {
    result = TupleOrSingle(OperandShapes(c));
  }
  if (c.inst.opcode() == Opcode::kCollectivePermute) return result;
  // -start: (input, output, context...)
  const Shape& w = c.inst.shape();
  if (!w.IsTuple() || w.tuple_size() < 2)
    return Invalid("collective-permute-start must produce a tuple (input, output, contexts...), got ", S(w));
  std::vector<Shape> elems{inplace ? c.op(0) : result, result};
  for (int64_t i = 2; i < w.tuple_size(); ++i) {
    const Shape& ctx = w.tuple_shape(i);
    if (!ctx.IsScalar() ||
        (ctx.element_type() != PrimitiveType::U32 && ctx.element_type() != PrimitiveType::S32))
      return Invalid("collective-permute-start context element ", i, " must be u32[], got ", S(ctx));
    elems.push_back(ctx);
  }
  return Shape::Tuple(elems);
}

absl::StatusOr<Shape> RaggedAllToAll(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 6));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_ASSIGN_OR_RETURN(GroupMode mode, GetGroupMode(c, /*has_use_global=*/false));
  HLO_RETURN_IF_ERROR(CheckReplicaGroups(c, mode, /*uniform=*/true));
  const Shape& in = c.op(0);
  const Shape& out = c.op(1);
  if (!SameTypeIgnoringFp(in.element_type(), out.element_type()) || in.rank() != out.rank())
    return Invalid("ragged-all-to-all input ", S(in), " and output ", S(out),
                   " must have the same element type and rank");
  for (int64_t i = 2; i < 6; ++i)
    if (!IsInteger(c.op(i).element_type()))
      return Invalid("ragged-all-to-all offsets/sizes (operand ", i, ") must be integers, got ", S(c.op(i)));
  return out;
}

absl::StatusOr<Shape> DoneOf(const Ctx& c, int64_t index) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  const Shape& s = c.op(0);
  if (!s.IsTuple() || s.tuple_size() <= index)
    return Invalid(c.name(), " operand must be a tuple with at least ", index + 1, " elements, got ", S(s));
  return s.tuple_shape(index);
}


absl::Status ExpectToken(const Ctx& c, int64_t i) {
  if (!c.op(i).IsToken()) return Invalid(c.name(), " operand ", i, " must be a token, got ", S(c.op(i)));
  return absl::OkStatus();
}

Shape U32() { return Shape::Scalar(PrimitiveType::U32); }

absl::StatusOr<Shape> Send(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectToken(c, 1));
  return Shape::Tuple({c.op(0), U32(), Shape::Token()});
}

absl::StatusOr<Shape> Recv(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectToken(c, 0));
  const Shape& w = c.inst.shape();
  if (!w.IsTuple() || w.tuple_size() != 3)
    return Invalid("recv must produce a tuple (data, u32[], token[]), got ", S(w));
  return Shape::Tuple({w.tuple_shape(0), U32(), Shape::Token()});
}

absl::StatusOr<Shape> RecvDone(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  const Shape& s = c.op(0);
  if (!s.IsTuple() || s.tuple_size() < 1)
    return Invalid("recv-done needs a recv operand of shape (data, u32[], token[]), got ", S(s));
  return Shape::Tuple({s.tuple_shape(0), Shape::Token()});
}

absl::StatusOr<Shape> SendDone(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  return Shape::Token();
}

absl::StatusOr<Shape> Infeed(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectToken(c, 0));
  const Shape& w = c.inst.shape();
  if (!w.IsTuple() || w.tuple_size() != 2 || !w.tuple_shape(1).IsToken())
    return Invalid("infeed must have a non-empty tuple shape (data, token[]), got ", S(w));
  return w;
}

absl::StatusOr<Shape> Outfeed(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectToken(c, 1));
  if (const Shape* os = c.inst.GetAttr<Shape>("outfeed_shape"))
    if (!ShapesCompatible(*os, c.op(0)))
      return Invalid("outfeed_shape ", S(*os), " does not match the outfed operand ", S(c.op(0)));
  return Shape::Token();
}

// XLA accepts non-token operands here too (they only order the token after
// their producers), so operands are not type-checked.
absl::StatusOr<Shape> AfterAll(const Ctx&) { return Shape::Token(); }

}  // namespace hlo::shape_internal
