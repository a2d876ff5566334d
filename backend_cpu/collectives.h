// Where the replicas/partitions of one run meet: collectives (all-reduce,
// all-gather, all-to-all, reduce-scatter, collective-permute, ...) and the
// in-process channels of send/recv and infeed/outfeed. One hub per run,
// shared by the device threads; every call blocks until its peers arrive.
//
// Devices are numbered replica-major: device = replica * partitions +
// partition. The op semantics (who takes part, what is combined how) live
// in ops_collective.cc; the hubs only move literals between threads.
// Rules: docs/collectives.md.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "backend_cpu/literal_wire.h"
#include "ir/instruction.h"
#include "ir/literal.h"

namespace hlo::cpu {

// How long a device waits in a rendezvous (or for a message) before the run
// is declared stuck, unless the run sets its own (hlo-run
// --collective-timeout). Generous: on a busy machine one device may compute
// for minutes before the others can meet it.
inline constexpr int kCollectiveTimeoutSeconds = 600;

class Transport;  // transport.h: devices in other processes

class CollectiveHub {
 public:
  CollectiveHub(int64_t replica_count, int64_t partition_count,
                double timeout_seconds = kCollectiveTimeoutSeconds);
  ~CollectiveHub();
  CollectiveHub(const CollectiveHub&) = delete;
  CollectiveHub& operator=(const CollectiveHub&) = delete;

  int64_t replica_count() const { return replica_count_; }
  int64_t partition_count() const { return partition_count_; }
  int64_t device_count() const { return replica_count_ * partition_count_; }

  // The contributions of one execution of a collective, indexed by the
  // position of each participant in the group. Immutable once returned.
  using Contributions = std::shared_ptr<const std::vector<Literal>>;

  // Device `device` (at position `position` of `group`, the devices of its
  // participant group in group order) executes `instr` and contributes
  // `value`. Blocks until every member of the group has contributed to the
  // same execution (the k-th execution of `instr` on every member meets the
  // k-th on the others) and returns all contributions in group order.
  // Errors: the hub was aborted, or the members did not all arrive within
  // kCollectiveTimeoutSeconds (which also aborts the hub).
  absl::StatusOr<Contributions> Exchange(const Instruction& instr,
                                         absl::Span<const int64_t> group, int64_t position,
                                         Literal value);

  // Like Exchange, but `combine` runs once (on the thread of the last member
  // to arrive, outside the lock) over all contributions in group order, and
  // every member gets its result (or its error). Used by all-reduce so that
  // the reduction is computed once per group instead of once per member.
  using Combine =
      std::function<absl::StatusOr<Literal>(const std::vector<Literal>& contributions)>;
  // The same reduction element range by element range, which lets the
  // processes of a group that spans several share the work: each reduces
  // one slice of every operand from all members' contributions in group
  // order, then the slices are gathered (collectives_sliced.cc), so the
  // bits are those of `combine`.
  struct Sliced {
    std::vector<Shape> shapes;  // of the operands, which are the results' (arrays)
    bool tuple = false;         // the result is a tuple (even of one array)
    // out[0, count) = inputs[0][0, count) combined with inputs[1], ... in
    // order, for operand `operand` (physical storage).
    std::function<absl::Status(size_t operand, absl::Span<const uint8_t* const> inputs,
                               int64_t count, uint8_t* out)>
        reduce;
  };
  // With `sliced`, a group with members in other processes uses it instead
  // of `combine`. The result is a non-const Literal behind the const
  // pointer; `*sole` (if given) says whether the caller is the group's
  // only member in this process, which then holds the only reference and
  // may move the value out.
  absl::StatusOr<std::shared_ptr<const Literal>> ExchangeAndCombine(
      const Instruction& instr, absl::Span<const int64_t> group, int64_t position, Literal value,
      const Combine& combine, const Sliced* sliced = nullptr, bool* sole = nullptr);

  // Wakes every waiter (now and later) with `status` (an error). Call it
  // when a device fails so that its peers do not wait for it. The first
  // status sticks.
  void Abort(absl::Status status);

  // Devices of other processes are reached through `transport` (run number
  // `run`); call before any device runs. Without it every device is local.
  void Connect(Transport* transport, int64_t run);
  // The transport hands over what another process's members contributed
  // (group position, value) to execution `execution` of the collective
  // named `key` (KeyOf) whose group starts with `first_device`.
  void DeliverRemote(const std::string& key, int64_t execution, int64_t first_device,
                     int from_process, std::vector<std::pair<int64_t, Literal>> values);
  // The transport hands over a part of a sliced all-reduce (phase 0:
  // slices to reduce, 1: a reduced slice) from `from_process`; its payload
  // starts at `payload` in `message`.
  void DeliverPart(const std::string& key, int64_t execution, int64_t first_device,
                   int from_process, int64_t phase, WireBuffer message, size_t payload);
  // The name that identifies `instr` in every process (instruction names are
  // unique in a module; the computation keeps it readable).
  static std::string KeyOf(const Instruction& instr);

 private:
  struct Rendezvous {
    std::vector<Literal> values;
    std::vector<bool> arrived;
    int64_t arrived_count = 0;
    // Members in this process; the other processes with members (sorted)
    // and whether this process's contributions went out to them.
    int64_t local_count = 0;
    std::vector<int> remote_processes;
    bool sent = false;
    bool send_done = false;  // the values may be moved only after the send
    bool finalizing = false;
    bool complete = false;
    std::shared_ptr<std::vector<Literal>> result;
    // ExchangeAndCombine: the combined value (or error) once complete.
    std::shared_ptr<const Literal> combined;
    absl::Status combine_status;
  };
  // (instruction, execution number on each member, first member of the group)
  using Key = std::tuple<const Instruction*, int64_t, int64_t>;
  // (KeyOf, execution, first member of the group, sending process)
  using RemoteKey = std::tuple<std::string, int64_t, int64_t, int>;

  // (KeyOf, execution, first member of the group, sending process, phase)
  using PartKey = std::tuple<std::string, int64_t, int64_t, int, int64_t>;
  struct Part {
    WireBuffer message;
    size_t payload = 0;
  };
  static WireReader PayloadOf(const Part& part);

  // Shared by Exchange and ExchangeAndCombine: returns the completed
  // rendezvous (with `combine` or `sliced`, if given, already applied).
  absl::StatusOr<std::shared_ptr<Rendezvous>> Meet(const Instruction& instr,
                                                   absl::Span<const int64_t> group,
                                                   int64_t position, Literal value,
                                                   const Combine* combine,
                                                   const Sliced* sliced = nullptr);
  // collectives_sliced.cc: the all-reduce of `r` (every local member has
  // arrived) computed together with the other processes of the group.
  // Called without the lock.
  absl::StatusOr<Literal> ReduceAcrossProcesses(const Instruction& instr, const Rendezvous& r,
                                                absl::Span<const int64_t> group,
                                                const std::string& key, int64_t execution,
                                                const Sliced& sliced);
  // Waits (lock not held) for the `phase` parts of every process in
  // `from` and takes them, or fails (abort, timeout naming the devices of
  // the processes that sent nothing).
  absl::StatusOr<std::vector<Part>> TakeParts(const Instruction& instr,
                                              absl::Span<const int64_t> group,
                                              const std::string& key, int64_t execution,
                                              int64_t phase, const std::vector<int>& from);
  // With the lock held: whether every remote contribution of `r` is here.
  bool RemoteComplete(const Rendezvous& r, const std::string& key, int64_t execution,
                      int64_t first_device);
  // Sends this process's contributions of `r` to its other processes.
  void SendLocal(const Rendezvous& r, absl::Span<const int64_t> group, const std::string& key,
                 int64_t execution);
  int ProcessOf(int64_t device) const;

  int64_t replica_count_;
  int64_t partition_count_;
  double timeout_seconds_;
  Transport* transport_ = nullptr;
  int64_t run_ = 0;
  // Remote contributions that arrived (possibly before the local members).
  std::map<RemoteKey, std::vector<std::pair<int64_t, Literal>>> inbox_;
  std::map<PartKey, Part> parts_;
  std::mutex mu_;
  std::condition_variable cv_;
  absl::Status aborted_;
  std::map<Key, std::shared_ptr<Rendezvous>> pending_;
  // Executions so far of each instruction on each device.
  std::map<std::pair<const Instruction*, int64_t>, int64_t> executions_;
};

class ChannelHub {
 public:
  explicit ChannelHub(std::vector<Literal> infeed,
                      std::function<Literal(const Shape&, int64_t)> infeed_fallback = nullptr,
                      double timeout_seconds = kCollectiveTimeoutSeconds);
  ~ChannelHub();
  ChannelHub(const ChannelHub&) = delete;
  ChannelHub& operator=(const ChannelHub&) = delete;

  // Everything outfeed sent on device 0, in order.
  std::vector<Literal> TakeOutfeed();
  // Everything outfeed sent on `device`, in order (tests).
  std::vector<Literal> TakeOutfeed(int64_t device);

  // The next infeed literal of `device`: every device reads the same
  // sequence (the run's infeed list) with its own cursor. When the list is
  // exhausted the fallback (if any) makes the next value of `shape` and
  // appends it to the list; otherwise that is an error.
  absl::StatusOr<Literal> NextInfeed(int64_t device, const Shape& shape);
  // Number of infeed literals given to the run.
  int64_t infeed_size() const { return static_cast<int64_t>(infeed_.size()); }
  void Outfeed(int64_t device, Literal value);

  // send: queues `value` for `target` on `channel` (never blocks).
  void Send(int64_t channel, int64_t target, Literal value);
  // recv: records that `device` expects its next message on `channel` from
  // `source` (-1: nobody sends to it; recv-done then yields zeros).
  void PostRecv(int64_t channel, int64_t device, int64_t source);
  // recv-done: takes the pending recv of `device` on `channel` and waits for
  // its message (zeros of `data_shape` when no source). A message this
  // device sends to itself must have been sent before (else error, never a
  // hang).
  absl::StatusOr<Literal> FinishRecv(int64_t channel, int64_t device, const Shape& data_shape,
                                     absl::string_view name);

  // Wakes every waiting recv-done with `status` (first status sticks).
  void Abort(absl::Status status);

  // Messages for devices of other processes (of `device_count` devices in
  // all) go through `transport` (run number `run`); call before any device
  // runs. DeliverRemote queues a message another process sent to `target`.
  void Connect(Transport* transport, int64_t run, int64_t device_count);
  void DeliverRemote(int64_t channel, int64_t target, Literal value);

 private:
  double timeout_seconds_;
  Transport* transport_ = nullptr;
  int64_t run_ = 0;
  int64_t device_count_ = 1;
  std::mutex mu_;
  std::condition_variable cv_;
  absl::Status aborted_;
  std::vector<Literal> infeed_;
  std::function<Literal(const Shape&, int64_t)> infeed_fallback_;
  std::map<int64_t, size_t> infeed_cursor_;
  std::map<int64_t, std::vector<Literal>> outfeed_;
  // (channel, target) -> messages in send order.
  std::map<std::pair<int64_t, int64_t>, std::deque<Literal>> messages_;
  // (channel, device) -> sources of the recvs posted and not yet finished.
  std::map<std::pair<int64_t, int64_t>, std::deque<int64_t>> pending_recvs_;
};

}  // namespace hlo::cpu
