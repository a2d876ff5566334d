// How the hubs of one run reach devices that live in other processes
// (hlo-run under mpirun: the R x Q devices split in contiguous blocks over
// P processes). The hubs keep their in-memory path for the devices of this
// process and call a Transport only for the others; the transport delivers
// what other processes send back into the hubs (DeliverRemote).
// Implementation: mpi_transport.h. Design: docs/mpi.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "backend_cpu/literal_wire.h"
#include "ir/literal.h"

namespace hlo::cpu {

class CollectiveHub;
class ChannelHub;

// The process that runs `device` when `devices` are split in contiguous
// blocks over `processes` (which divides `devices`).
inline int ProcessOfDevice(int64_t device, int64_t devices, int processes) {
  return static_cast<int>(device / (devices / processes));
}

// What crossed between this process and the others for one collective
// instruction (CollectiveHub::KeyOf) or channel ("channel N") in one run:
// whole messages, headers included (hlo-run --profile).
struct Traffic {
  int64_t sent_bytes = 0;
  int64_t received_bytes = 0;
  int64_t sent_messages = 0;
  int64_t received_messages = 0;
};
// (run number, instruction key or channel) -> traffic.
using TrafficLog = std::map<std::pair<int64_t, std::string>, Traffic>;

class Transport {
 public:
  virtual ~Transport() = default;

  // This process (0-based) and the number of processes.
  virtual int process() const = 0;
  virtual int process_count() const = 0;
  // Host name of a process, for messages.
  virtual std::string host(int process) const = 0;

  // Attaches the hubs of a new run and returns its number. Every process
  // makes the same runs in the same order, so run numbers agree and
  // messages of one run never meet another. Messages that arrived for the
  // run before it was attached are delivered now; if another process
  // already failed, both hubs are aborted at once.
  virtual int64_t Attach(CollectiveHub* collectives, ChannelHub* channels) = 0;
  // Messages for a detached run are dropped. Call before the hubs die.
  virtual void Detach(int64_t run) = 0;

  // The contributions of this process's members (group position, value) of
  // one execution of a collective, for `to_process`. Never blocks on the
  // receiver; `values` may be released when the call returns.
  virtual void SendContributions(int64_t run, int to_process, const std::string& key,
                                 int64_t execution, int64_t first_device,
                                 const std::vector<std::pair<int64_t, const Literal*>>& values) = 0;
  // One part of an all-reduce that the processes of its group compute
  // together (collectives_sliced.cc): `phase` 0 carries slices to the
  // process that reduces them, 1 a reduced slice back. `write` appends the
  // payload to the message (so slices are copied once, into the message).
  virtual void SendReducePart(int64_t run, int to_process, const std::string& key,
                              int64_t execution, int64_t first_device, int64_t phase,
                              const std::function<void(WireWriter&)>& write) = 0;
  // A send/recv message for device `target` on `channel`.
  virtual void SendChannelMessage(int64_t run, int to_process, int64_t channel, int64_t target,
                                  const Literal& value) = 0;

  // Tells every other process that this one failed with `status` (their
  // hubs are aborted with a message naming this process and host). Only the
  // first call sends.
  virtual void ReportFailure(const absl::Status& status) = 0;
  // The failure another process reported (OK if none).
  virtual absl::Status remote_failure() const = 0;

  // Runs attached so far (the next run's number) and the traffic of every
  // run.
  virtual int64_t runs() const = 0;
  virtual TrafficLog traffic() const = 0;
};

}  // namespace hlo::cpu
