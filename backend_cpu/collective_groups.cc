// Participant groups and the rendezvous of collectives (XLA's
// CollectiveOpGroupMode rules). Rules and choices: docs/collectives.md.
#include "backend_cpu/collective_groups.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hlo::cpu {

int64_t DeviceOf(const OpContext& ctx) {
  return ctx.replica_id * ctx.partition_count + ctx.partition_id;
}

std::string DeviceText(const OpContext& ctx) {
  return absl::StrCat("device ", DeviceOf(ctx), " (replica ", ctx.replica_id, ", partition ",
                      ctx.partition_id, ")");
}

namespace {

enum class GroupMode { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattenedId };

// Opcodes that carry use_global_device_ids (XLA: all-reduce base and
// all-gather instructions).
bool HasUseGlobalDeviceIds(Opcode op) {
  switch (op) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kReduceScatter:
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<GroupMode> ModeOf(const Instruction& instr) {
  const bool has_channel = instr.HasAttr("channel_id");
  const bool has_global = HasUseGlobalDeviceIds(instr.opcode());
  const bool use_global = has_global && instr.AttrOr<bool>("use_global_device_ids", false);
  if (!has_channel) {
    if (use_global) return OpError(instr, "use_global_device_ids=true needs a channel_id");
    return GroupMode::kCrossReplica;
  }
  if (!has_global) return GroupMode::kCrossPartition;
  return use_global ? GroupMode::kFlattenedId : GroupMode::kCrossReplicaAndPartition;
}

absl::StatusOr<Group> ParticipantsOf(const Instruction& instr, const OpContext& ctx,
                                     GroupMode mode) {
  const int64_t replicas = ctx.replica_count, partitions = ctx.partition_count;
  std::vector<std::vector<int64_t>> groups;
  if (const auto* list = instr.GetAttr<CollectiveDeviceList>("replica_groups"))
    groups = list->ExpandedGroups();
  // Ids named by the groups, and the id of this device among them.
  int64_t id_limit = 0, my_id = 0;
  const char* what = "replica";
  switch (mode) {
    case GroupMode::kCrossReplica:
    case GroupMode::kCrossReplicaAndPartition:
      id_limit = replicas;
      my_id = ctx.replica_id;
      break;
    case GroupMode::kCrossPartition:
      id_limit = partitions;
      my_id = ctx.partition_id;
      what = "partition";
      break;
    case GroupMode::kFlattenedId:
      id_limit = replicas * partitions;
      my_id = DeviceOf(ctx);
      what = "flattened device";
      break;
  }
  std::vector<int64_t> ids;
  if (groups.empty()) {
    if (mode == GroupMode::kFlattenedId)
      return OpError(instr, "use_global_device_ids=true needs explicit replica_groups");
    for (int64_t i = 0; i < id_limit; ++i) ids.push_back(i);
  } else {
    for (const auto& g : groups) {
      for (int64_t id : g)
        if (id < 0 || id >= id_limit)
          return OpError(instr, absl::StrCat("replica_groups name ", what, " id ", id,
                                             ", out of range for ", id_limit, " ", what,
                                             id_limit == 1 ? "" : "s", " in this run"));
      if (std::find(g.begin(), g.end(), my_id) != g.end()) {
        if (!ids.empty())
          return OpError(instr, absl::StrCat(what, " id ", my_id, " is in two replica groups"));
        ids = g;
      }
    }
    if (ids.empty())
      return OpError(instr, absl::StrCat(DeviceText(ctx), " (", what, " id ", my_id,
                                         ") is in no replica group"));
  }
  Group out;
  for (int64_t id : ids) {
    switch (mode) {
      case GroupMode::kCrossReplica:
        out.devices.push_back(id * partitions + ctx.partition_id);
        break;
      case GroupMode::kCrossPartition:
        out.devices.push_back(ctx.replica_id * partitions + id);
        break;
      case GroupMode::kCrossReplicaAndPartition:
        for (int64_t p = 0; p < partitions; ++p) out.devices.push_back(id * partitions + p);
        break;
      case GroupMode::kFlattenedId:
        out.devices.push_back(id);
        break;
    }
  }
  const int64_t me = DeviceOf(ctx);
  auto it = std::find(out.devices.begin(), out.devices.end(), me);
  if (it == out.devices.end())
    return absl::InternalError(absl::StrCat("%", instr.name(), ": device not in its own group"));
  out.position = it - out.devices.begin();
  return out;
}

}  // namespace

absl::StatusOr<Group> GroupOf(const Instruction& instr, const OpContext& ctx) {
  absl::StatusOr<GroupMode> mode = ModeOf(instr);
  if (!mode.ok()) return mode.status();
  return ParticipantsOf(instr, ctx, *mode);
}

Group LineOf(const OpContext& ctx, bool cross_partition) {
  Group g;
  if (cross_partition) {
    for (int64_t p = 0; p < ctx.partition_count; ++p)
      g.devices.push_back(ctx.replica_id * ctx.partition_count + p);
    g.position = ctx.partition_id;
  } else {
    for (int64_t r = 0; r < ctx.replica_count; ++r)
      g.devices.push_back(r * ctx.partition_count + ctx.partition_id);
    g.position = ctx.replica_id;
  }
  return g;
}

absl::StatusOr<CollectiveHub::Contributions> Exchange(const Instruction& instr, OpContext& ctx,
                                                      const Group& g, Literal value) {
  if (g.size() == 1) {
    auto single = std::make_shared<std::vector<Literal>>();
    single->push_back(std::move(value));
    return CollectiveHub::Contributions(std::move(single));
  }
  if (ctx.collectives == nullptr)
    return OpError(instr, "no collective hub in this run (several devices need one)");
  return ctx.collectives->Exchange(instr, g.devices, g.position, std::move(value));
}

absl::StatusOr<std::shared_ptr<const Literal>> ExchangeAndCombine(
    const Instruction& instr, OpContext& ctx, const Group& g, Literal value,
    const CollectiveHub::Combine& combine, const CollectiveHub::Sliced* sliced, bool* sole) {
  if (g.size() == 1) {
    if (sole != nullptr) *sole = true;
    std::vector<Literal> one;
    one.push_back(std::move(value));
    absl::StatusOr<Literal> r = combine(one);
    if (!r.ok()) return r.status();
    return std::make_shared<Literal>(*std::move(r));
  }
  if (ctx.collectives == nullptr)
    return OpError(instr, "no collective hub in this run (several devices need one)");
  return ctx.collectives->ExchangeAndCombine(instr, g.devices, g.position, std::move(value),
                                             combine, sliced, sole);
}

}  // namespace hlo::cpu
