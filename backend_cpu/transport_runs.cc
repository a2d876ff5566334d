#include "backend_cpu/transport_runs.h"

#include "absl/strings/str_cat.h"
#include "backend_cpu/collectives.h"
#include "backend_cpu/literal_wire.h"

namespace hlo::cpu {
namespace {

constexpr int64_t kCollective = 1, kChannel = 2, kFailure = 3, kReducePart = 4;

}  // namespace

WireBuffer EncodeContributions(int64_t run, const std::string& key, int64_t execution,
                                int64_t first_device,
                                const std::vector<std::pair<int64_t, const Literal*>>& values) {
  WireWriter w;
  w.Int(kCollective);
  w.Int(run);
  w.Bytes(key);
  w.Int(execution);
  w.Int(first_device);
  w.Int(static_cast<int64_t>(values.size()));
  for (const auto& [position, value] : values) {
    w.Int(position);
    w.Put(*value);
  }
  return std::move(w.buffer());
}

WireBuffer EncodeReducePart(int64_t run, const std::string& key, int64_t execution,
                             int64_t first_device, int64_t phase,
                             const std::function<void(WireWriter&)>& write) {
  WireWriter w;
  w.Int(kReducePart);
  w.Int(run);
  w.Bytes(key);
  w.Int(execution);
  w.Int(first_device);
  w.Int(phase);
  write(w);
  return std::move(w.buffer());
}

WireBuffer EncodeChannelMessage(int64_t run, int64_t channel, int64_t target,
                                 const Literal& value) {
  WireWriter w;
  w.Int(kChannel);
  w.Int(run);
  w.Int(channel);
  w.Int(target);
  w.Put(value);
  return std::move(w.buffer());
}

WireBuffer EncodeFailure(int process, absl::string_view message) {
  WireWriter w;
  w.Int(kFailure);
  w.Int(process);
  w.Bytes(message);
  return std::move(w.buffer());
}

std::string ChannelTrafficKey(int64_t channel) { return absl::StrCat("channel ", channel); }

void RunDesk::CountSent(int64_t run, const std::string& what, size_t bytes) {
  Traffic& t = traffic_[{run, what}];
  t.sent_bytes += static_cast<int64_t>(bytes);
  ++t.sent_messages;
}

int64_t RunDesk::Attach(CollectiveHub* collectives, ChannelHub* channels) {
  const int64_t run = next_run_++;
  Hubs& hubs = attached_[run];
  hubs.collectives = collectives;
  hubs.channels = channels;
  if (!failure_.ok()) {
    collectives->Abort(failure_);
    channels->Abort(failure_);
  }
  auto early = early_.find(run);
  if (early != early_.end()) {
    for (auto& [from, bytes] : early->second) Deliver(hubs, from, std::move(bytes));
    early_.erase(early);
  }
  return run;
}

void RunDesk::Detach(int64_t run) { attached_.erase(run); }

void RunDesk::Fail(absl::Status status) {
  if (failure_.ok()) failure_ = std::move(status);
  for (auto& [run, hubs] : attached_) {
    hubs.collectives->Abort(failure_);
    hubs.channels->Abort(failure_);
  }
}

void RunDesk::Received(int from, WireBuffer bytes) {
  WireReader r(absl::string_view(bytes.data(), bytes.size()));
  absl::StatusOr<int64_t> kind = r.Int();
  absl::StatusOr<int64_t> second = r.Int();  // the run, or the failed process
  if (!kind.ok() || !second.ok())
    return Fail(absl::DataLossError(absl::StrCat("aborted because a message from process ", from,
                                                 " (host ", host_(from), ") is unreadable")));
  if (*kind == kFailure) {
    absl::StatusOr<std::string> why = r.Bytes();
    const int who = static_cast<int>(*second);
    return Fail(absl::AbortedError(absl::StrCat("aborted because process ", who, " (host ",
                                                host_(who), ") failed: ",
                                                why.ok() ? *why : std::string("?"))));
  }
  auto it = attached_.find(*second);
  if (it != attached_.end()) {
    Deliver(it->second, from, std::move(bytes));
  } else if (*second >= next_run_) {
    early_[*second].emplace_back(from, std::move(bytes));
  }
}

void RunDesk::Deliver(Hubs& hubs, int from, WireBuffer bytes) {
  WireReader r(absl::string_view(bytes.data(), bytes.size()));
  auto corrupt = [&](const absl::Status& st) {
    Fail(absl::DataLossError(absl::StrCat("aborted because a message from process ", from,
                                          " (host ", host_(from), ") is unreadable: ",
                                          st.message())));
  };
  const int64_t kind = *r.Int();  // both checked by Received
  const int64_t run = *r.Int();
  const size_t size = bytes.size();
  auto tally = [&](const std::string& what) {
    Traffic& t = traffic_[{run, what}];
    t.received_bytes += static_cast<int64_t>(size);
    ++t.received_messages;
  };
  if (kind == kChannel) {
    absl::StatusOr<int64_t> channel = r.Int();
    absl::StatusOr<int64_t> target = r.Int();
    if (!channel.ok() || !target.ok()) return corrupt(absl::DataLossError("bad channel header"));
    absl::StatusOr<Literal> value = r.Get();
    if (!value.ok()) return corrupt(value.status());
    tally(ChannelTrafficKey(*channel));
    hubs.channels->DeliverRemote(*channel, *target, *std::move(value));
    return;
  }
  absl::StatusOr<std::string> key = r.Bytes();
  absl::StatusOr<int64_t> execution = r.Int();
  absl::StatusOr<int64_t> first = r.Int();
  if (kind == kReducePart) {
    absl::StatusOr<int64_t> phase = r.Int();
    if (!key.ok() || !execution.ok() || !first.ok() || !phase.ok())
      return corrupt(absl::DataLossError("bad all-reduce part header"));
    // The hub reads the payload in place.
    const size_t payload = bytes.size() - r.left();
    tally(*key);
    hubs.collectives->DeliverPart(*key, *execution, *first, from, *phase, std::move(bytes),
                                  payload);
    return;
  }
  absl::StatusOr<int64_t> count = r.Int();
  if (kind != kCollective || !key.ok() || !execution.ok() || !first.ok() || !count.ok())
    return corrupt(absl::DataLossError("bad collective header"));
  std::vector<std::pair<int64_t, Literal>> values;
  for (int64_t i = 0; i < *count; ++i) {
    absl::StatusOr<int64_t> position = r.Int();
    if (!position.ok()) return corrupt(position.status());
    absl::StatusOr<Literal> value = r.Get();
    if (!value.ok()) return corrupt(value.status());
    values.emplace_back(*position, *std::move(value));
  }
  tally(*key);
  hubs.collectives->DeliverRemote(*key, *execution, *first, from, std::move(values));
}

}  // namespace hlo::cpu
