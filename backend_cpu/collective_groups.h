// Who takes part in a collective and how the members meet: the participant
// group of a device (XLA's CollectiveOpGroupMode rules from channel_id,
// use_global_device_ids and replica_groups), the line of devices that
// collective-permute pairs name, and the rendezvous through the run's
// CollectiveHub. Shared by the collective ops (ops_collective.cc,
// ops_ragged_all_to_all.cc). Rules: docs/collectives.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backend_cpu/collectives.h"
#include "backend_cpu/op_eval.h"
#include "ir/instruction.h"
#include "ir/literal.h"

namespace hlo::cpu {

struct Group {
  std::vector<int64_t> devices;  // in group order
  int64_t position = 0;          // of this device in `devices`
  int64_t size() const { return static_cast<int64_t>(devices.size()); }
};

// The device id of this device: replica * partitions + partition.
int64_t DeviceOf(const OpContext& ctx);
// "device D (replica R, partition P)", for messages.
std::string DeviceText(const OpContext& ctx);

// The participant group of this device for `instr`.
absl::StatusOr<Group> GroupOf(const Instruction& instr, const OpContext& ctx);

// Every device that shares this device's replica (cross-partition) or
// partition (cross-replica), indexed by partition or replica id: the id space
// of collective-permute pairs.
Group LineOf(const OpContext& ctx, bool cross_partition);

// Contributes `value` and returns every member's contribution in group order
// (a group of one skips the hub).
absl::StatusOr<CollectiveHub::Contributions> Exchange(const Instruction& instr, OpContext& ctx,
                                                      const Group& g, Literal value);

// Like Exchange, but `combine` runs once over all contributions and every
// member gets its result.
absl::StatusOr<std::shared_ptr<const Literal>> ExchangeAndCombine(
    const Instruction& instr, OpContext& ctx, const Group& g, Literal value,
    const CollectiveHub::Combine& combine, const CollectiveHub::Sliced* sliced = nullptr,
    bool* sole = nullptr);

}  // namespace hlo::cpu
