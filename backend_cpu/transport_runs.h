// What every Transport does the same way, whatever carries the bytes:
// the messages between processes (encoded with literal_wire.h) and the
// bookkeeping of one process's runs: the hubs attached to each run,
// messages that arrived before this process started their run, and the
// failure another process reported. Used by mpi_transport.cc and by the
// loopback transport of transport_test.cc.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "backend_cpu/literal_wire.h"
#include "backend_cpu/transport.h"
#include "ir/literal.h"

namespace hlo::cpu {

class CollectiveHub;
class ChannelHub;

// Messages. Each starts with its kind; collective and channel messages
// then name their run.
WireBuffer EncodeContributions(int64_t run, const std::string& key, int64_t execution,
                                int64_t first_device,
                                const std::vector<std::pair<int64_t, const Literal*>>& values);
WireBuffer EncodeReducePart(int64_t run, const std::string& key, int64_t execution,
                             int64_t first_device, int64_t phase,
                             const std::function<void(WireWriter&)>& write);
WireBuffer EncodeChannelMessage(int64_t run, int64_t channel, int64_t target,
                                 const Literal& value);
WireBuffer EncodeFailure(int process, absl::string_view message);

// The runs of one process. Not thread-safe: the transport calls it under
// its own lock (hub callbacks take only the hubs' locks).
class RunDesk {
 public:
  // `host(p)` names process p's host in failure messages.
  explicit RunDesk(std::function<std::string(int)> host) : host_(std::move(host)) {}

  // Transport::Attach / Detach.
  int64_t Attach(CollectiveHub* collectives, ChannelHub* channels);
  void Detach(int64_t run);

  // A complete message from process `from`: a failure aborts every run;
  // others go to their run's hubs, wait for a run not started yet, or are
  // dropped (their run already ended here). An unreadable message fails
  // the runs.
  void Received(int from, WireBuffer bytes);

  // The first failure another process reported (OK if none).
  const absl::Status& failure() const { return failure_; }

  // Transport::runs / traffic. Sends are counted by the transport
  // (CountSent), receipts here.
  int64_t runs() const { return next_run_; }
  const TrafficLog& traffic() const { return traffic_; }
  void CountSent(int64_t run, const std::string& what, size_t bytes);

 private:
  struct Hubs {
    CollectiveHub* collectives = nullptr;
    ChannelHub* channels = nullptr;
  };
  void Deliver(Hubs& hubs, int from, WireBuffer bytes);
  void Fail(absl::Status status);

  std::function<std::string(int)> host_;
  int64_t next_run_ = 0;
  std::map<int64_t, Hubs> attached_;
  // Messages (sender, bytes) of runs this process has not started yet.
  std::map<int64_t, std::vector<std::pair<int, WireBuffer>>> early_;
  absl::Status failure_;
  TrafficLog traffic_;
};

// The traffic key of a send/recv channel.
std::string ChannelTrafficKey(int64_t channel);

}  // namespace hlo::cpu
