#include "backend_cpu/collectives.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "backend_cpu/collective_wait.h"
#include "backend_cpu/transport.h"
#include "ir/computation.h"

namespace hlo::cpu {
namespace {

std::chrono::steady_clock::time_point Deadline(double seconds) {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
             std::chrono::duration<double>(seconds));
}

// "600 s", "0.5 s" for timeout messages.
std::string SecondsText(double seconds) { return absl::StrCat(seconds, " s"); }

}  // namespace

CollectiveHub::CollectiveHub(int64_t replica_count, int64_t partition_count,
                             double timeout_seconds)
    : replica_count_(replica_count),
      partition_count_(partition_count),
      timeout_seconds_(timeout_seconds) {}
CollectiveHub::~CollectiveHub() = default;

void CollectiveHub::Connect(Transport* transport, int64_t run) {
  std::lock_guard<std::mutex> lock(mu_);
  transport_ = transport;
  run_ = run;
}

std::string CollectiveHub::KeyOf(const Instruction& instr) {
  const Computation* parent = instr.parent();
  return absl::StrCat(parent != nullptr ? parent->name() : std::string(), "/", instr.name());
}

int CollectiveHub::ProcessOf(int64_t device) const {
  if (transport_ == nullptr) return 0;
  return ProcessOfDevice(device, device_count(), transport_->process_count());
}

void CollectiveHub::DeliverRemote(const std::string& key, int64_t execution,
                                  int64_t first_device, int from_process,
                                  std::vector<std::pair<int64_t, Literal>> values) {
  std::lock_guard<std::mutex> lock(mu_);
  inbox_[RemoteKey{key, execution, first_device, from_process}] = std::move(values);
  cv_.notify_all();
}

void CollectiveHub::DeliverPart(const std::string& key, int64_t execution, int64_t first_device,
                                int from_process, int64_t phase, WireBuffer message,
                                size_t payload) {
  std::lock_guard<std::mutex> lock(mu_);
  Part& part = parts_[PartKey{key, execution, first_device, from_process, phase}];
  part.message = std::move(message);
  part.payload = payload;
  cv_.notify_all();
}

bool CollectiveHub::RemoteComplete(const Rendezvous& r, const std::string& key,
                                   int64_t execution, int64_t first_device) {
  for (int p : r.remote_processes)
    if (inbox_.count(RemoteKey{key, execution, first_device, p}) == 0) return false;
  return true;
}

void CollectiveHub::SendLocal(const Rendezvous& r, absl::Span<const int64_t> group,
                              const std::string& key, int64_t execution) {
  std::vector<std::pair<int64_t, const Literal*>> mine;
  for (size_t i = 0; i < group.size(); ++i)
    if (r.arrived[i] && ProcessOf(group[i]) == transport_->process())
      mine.emplace_back(static_cast<int64_t>(i), &r.values[i]);
  for (int p : r.remote_processes)
    transport_->SendContributions(run_, p, key, execution, group[0], mine);
}

absl::StatusOr<std::shared_ptr<CollectiveHub::Rendezvous>> CollectiveHub::Meet(
    const Instruction& instr, absl::Span<const int64_t> group, int64_t position, Literal value,
    const Combine* combine, const Sliced* sliced) {
  if (group.empty() || position < 0 || position >= static_cast<int64_t>(group.size()))
    return absl::InternalError(absl::StrCat("collective %", instr.name(), ": bad group position"));
  const int64_t device = group[position];
  const int64_t n = static_cast<int64_t>(group.size());
  std::unique_lock<std::mutex> lock(mu_);
  if (!aborted_.ok()) return aborted_;
  const int64_t execution = executions_[{&instr, device}]++;
  const Key key{&instr, execution, group[0]};
  std::shared_ptr<Rendezvous>& slot = pending_[key];
  if (slot == nullptr) {
    slot = std::make_shared<Rendezvous>();
    slot->values.resize(n);
    slot->arrived.assign(n, false);
    const int me = ProcessOf(device);
    for (int64_t i = 0; i < n; ++i) {
      const int p = ProcessOf(group[i]);
      if (p == me) {
        ++slot->local_count;
      } else if (std::find(slot->remote_processes.begin(), slot->remote_processes.end(), p) ==
                 slot->remote_processes.end()) {
        slot->remote_processes.push_back(p);
      }
    }
    std::sort(slot->remote_processes.begin(), slot->remote_processes.end());
  }
  std::shared_ptr<Rendezvous> r = slot;
  if (static_cast<int64_t>(r->values.size()) != n || r->arrived[position])
    return absl::InternalError(absl::StrCat("collective %", instr.name(),
                                            ": devices disagree on the participant group"));
  r->values[position] = std::move(value);
  r->arrived[position] = true;
  ++r->arrived_count;
  const bool remote = !r->remote_processes.empty();
  const std::string remote_key = remote ? KeyOf(instr) : std::string();
  if (remote && sliced != nullptr && r->arrived_count == r->local_count && !r->finalizing) {
    // Last local member: it computes this process's share of the
    // reduction with the other processes; the local members wait for it.
    r->finalizing = true;
    lock.unlock();
    absl::StatusOr<Literal> combined =
        ReduceAcrossProcesses(instr, *r, group, remote_key, execution, *sliced);
    lock.lock();
    if (combined.ok())
      r->combined = std::make_shared<Literal>(*std::move(combined));
    else
      r->combine_status = combined.status();
    pending_.erase(key);
    r->complete = true;
    cv_.notify_all();
    return r;
  }
  if (remote && sliced == nullptr && r->arrived_count == r->local_count && !r->sent) {
    // Last local member: this process's contributions go out once. The
    // values stay put until the rendezvous completes, so sending them
    // outside the lock is safe.
    r->sent = true;
    lock.unlock();
    SendLocal(*r, group, remote_key, execution);
    lock.lock();
    r->send_done = true;
  }
  // Completes the rendezvous on this thread: remote contributions in
  // their places, then the result (and `combine`) in group order.
  auto finalize = [&]() -> std::shared_ptr<Rendezvous> {
    r->finalizing = true;
    for (int p : r->remote_processes) {
      auto it = inbox_.find(RemoteKey{remote_key, execution, group[0], p});
      for (auto& [pos, lit] : it->second) {
        if (pos >= 0 && pos < n && !r->arrived[pos]) {
          r->values[pos] = std::move(lit);
          r->arrived[pos] = true;
          ++r->arrived_count;
        }
      }
      inbox_.erase(it);
    }
    r->result = std::make_shared<std::vector<Literal>>(std::move(r->values));
    pending_.erase(key);
    if (combine != nullptr) {
      lock.unlock();
      absl::StatusOr<Literal> combined = (*combine)(*r->result);
      lock.lock();
      if (combined.ok())
        r->combined = std::make_shared<Literal>(*std::move(combined));
      else
        r->combine_status = combined.status();
    }
    r->complete = true;
    cv_.notify_all();
    return r;
  };
  auto ready = [&] {
    // (A sliced reduction across processes completes in its last local member.)
    return !r->finalizing && r->arrived_count == r->local_count &&
           (!remote || (sliced == nullptr && r->send_done &&
                        RemoteComplete(*r, remote_key, execution, group[0])));
  };
  if (ready()) return finalize();
  const auto deadline = Deadline(timeout_seconds_);
  while (!r->complete && aborted_.ok()) {
    if (ready()) return finalize();
    // Only waiting for arrivals times out; a combine in progress does not.
    // Blocked here until the peers arrive (or the last one combines):
    // waiting, not this device's work (profile).
    if (r->finalizing) {
      ScopedCollectiveWait timed;
      cv_.wait(lock);
      continue;
    }
    std::cv_status waited;
    {
      ScopedCollectiveWait timed;
      waited = cv_.wait_until(lock, deadline);
    }
    if (waited == std::cv_status::timeout && !r->finalizing &&
        !ready() && aborted_.ok()) {
      std::vector<int64_t> missing;
      for (int64_t i = 0; i < n; ++i) {
        const int p = ProcessOf(group[i]);
        const bool here = p == ProcessOf(device);
        // A sliced reduction waits here only for local members.
        if (here ? !r->arrived[i]
                 : sliced == nullptr &&
                       inbox_.count(RemoteKey{remote_key, execution, group[0], p}) == 0)
          missing.push_back(group[i]);
      }
      absl::Status st = absl::DeadlineExceededError(absl::StrCat(
          "collective %", instr.name(), " timed out waiting for devices ",
          absl::StrJoin(missing, ", "), " after ", SecondsText(timeout_seconds_), " (device ",
          device, " arrived at its execution ", execution,
          "; a device that never reaches it, or executes it fewer times, deadlocks the run; "
          "--collective-timeout sets the limit)"));
      aborted_ = st;
      cv_.notify_all();
      return st;
    }
  }
  if (r->complete) return r;
  return aborted_;
}

absl::StatusOr<CollectiveHub::Contributions> CollectiveHub::Exchange(
    const Instruction& instr, absl::Span<const int64_t> group, int64_t position, Literal value) {
  if (group.size() == 1 && position == 0) {
    auto single = std::make_shared<std::vector<Literal>>();
    single->push_back(std::move(value));
    return Contributions(std::move(single));
  }
  absl::StatusOr<std::shared_ptr<Rendezvous>> r =
      Meet(instr, group, position, std::move(value), nullptr);
  if (!r.ok()) return r.status();
  return Contributions((*r)->result);
}

absl::StatusOr<std::shared_ptr<const Literal>> CollectiveHub::ExchangeAndCombine(
    const Instruction& instr, absl::Span<const int64_t> group, int64_t position, Literal value,
    const Combine& combine, const Sliced* sliced, bool* sole) {
  absl::StatusOr<std::shared_ptr<Rendezvous>> r =
      Meet(instr, group, position, std::move(value), &combine, sliced);
  if (!r.ok()) return r.status();
  if (!(*r)->combine_status.ok()) return (*r)->combine_status;
  if (sole != nullptr) *sole = (*r)->local_count == 1;
  return (*r)->combined;
}

void CollectiveHub::Abort(absl::Status status) {
  if (status.ok()) status = absl::AbortedError("the run was aborted");
  std::lock_guard<std::mutex> lock(mu_);
  if (aborted_.ok())
    aborted_ = absl::StartsWith(status.message(), "aborted because")
                   ? status
                   : absl::Status(status.code(), absl::StrCat("aborted because another device failed: ",
                                                              status.message()));
  cv_.notify_all();
}

ChannelHub::ChannelHub(std::vector<Literal> infeed,
                       std::function<Literal(const Shape&, int64_t)> infeed_fallback,
                       double timeout_seconds)
    : timeout_seconds_(timeout_seconds),
      infeed_(std::move(infeed)),
      infeed_fallback_(std::move(infeed_fallback)) {}
ChannelHub::~ChannelHub() = default;

void ChannelHub::Connect(Transport* transport, int64_t run, int64_t device_count) {
  std::lock_guard<std::mutex> lock(mu_);
  transport_ = transport;
  run_ = run;
  device_count_ = device_count;
}

void ChannelHub::DeliverRemote(int64_t channel, int64_t target, Literal value) {
  std::lock_guard<std::mutex> lock(mu_);
  messages_[{channel, target}].push_back(std::move(value));
  cv_.notify_all();
}

std::vector<Literal> ChannelHub::TakeOutfeed() { return TakeOutfeed(0); }

std::vector<Literal> ChannelHub::TakeOutfeed(int64_t device) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = outfeed_.find(device);
  if (it == outfeed_.end()) return {};
  std::vector<Literal> out = std::move(it->second);
  outfeed_.erase(it);
  return out;
}

absl::StatusOr<Literal> ChannelHub::NextInfeed(int64_t device, const Shape& shape) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t& cursor = infeed_cursor_[device];
  if (cursor >= infeed_.size() && infeed_fallback_)
    infeed_.push_back(infeed_fallback_(shape, static_cast<int64_t>(infeed_.size())));
  if (infeed_.empty())
    return absl::InvalidArgumentError(
        "the infeed queue is empty: no infeed literals were given (pass one per infeed "
        "execution, in order, e.g. hlo-run --infeed=LITERAL_OR_FILE; every device reads the "
        "same sequence)");
  if (cursor >= infeed_.size())
    return absl::InvalidArgumentError(absl::StrCat(
        "the infeed queue is empty: ", infeed_.size(), " infeed literal",
        infeed_.size() == 1 ? " was" : "s were", " given and device ", device,
        " has read ", infeed_.size() == 1 ? "it" : "them all",
        " (give one more infeed value per infeed execution, e.g. hlo-run --infeed=LITERAL)"));
  return infeed_[cursor++];
}

void ChannelHub::Outfeed(int64_t device, Literal value) {
  std::lock_guard<std::mutex> lock(mu_);
  outfeed_[device].push_back(std::move(value));
}

void ChannelHub::Send(int64_t channel, int64_t target, Literal value) {
  if (transport_ != nullptr) {
    const int p = ProcessOfDevice(target, device_count_, transport_->process_count());
    if (p != transport_->process()) {
      transport_->SendChannelMessage(run_, p, channel, target, value);
      return;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  messages_[{channel, target}].push_back(std::move(value));
  cv_.notify_all();
}

void ChannelHub::PostRecv(int64_t channel, int64_t device, int64_t source) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_recvs_[{channel, device}].push_back(source);
}

absl::StatusOr<Literal> ChannelHub::FinishRecv(int64_t channel, int64_t device,
                                               const Shape& data_shape, absl::string_view name) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!aborted_.ok()) return aborted_;
  auto pending = pending_recvs_.find({channel, device});
  const std::string channel_text =
      channel < 0 ? std::string("without a channel_id") : absl::StrCat("on channel ", channel);
  if (pending == pending_recvs_.end() || pending->second.empty())
    return absl::InvalidArgumentError(absl::StrCat(
        "%", name, ": recv-done ", channel_text, " has no outstanding recv on device ", device));
  const int64_t source = pending->second.front();
  pending->second.pop_front();
  if (source < 0) return Literal(data_shape);
  std::deque<Literal>& queue = messages_[{channel, device}];
  if (queue.empty() && source == device)
    return absl::InvalidArgumentError(absl::StrCat(
        "%", name, ": recv-done ", channel_text, " on device ", device,
        " waits for a send from the same device that has not run yet (sends must be "
        "scheduled before the matching recv-done)"));
  const auto deadline = Deadline(timeout_seconds_);
  while (queue.empty() && aborted_.ok()) {
    std::cv_status waited;
    {
      ScopedCollectiveWait timed;  // for the sender: waiting (profile)
      waited = cv_.wait_until(lock, deadline);
    }
    if (waited == std::cv_status::timeout && queue.empty() &&
        aborted_.ok()) {
      absl::Status st = absl::DeadlineExceededError(absl::StrCat(
          "%", name, ": recv-done ", channel_text, " on device ", device,
          " timed out waiting for the send of device ", source, " after ",
          SecondsText(timeout_seconds_), " (--collective-timeout sets the limit)"));
      aborted_ = st;
      cv_.notify_all();
      return st;
    }
  }
  if (queue.empty()) return aborted_;
  Literal out = std::move(queue.front());
  queue.pop_front();
  return out;
}

void ChannelHub::Abort(absl::Status status) {
  if (status.ok()) status = absl::AbortedError("the run was aborted");
  std::lock_guard<std::mutex> lock(mu_);
  if (aborted_.ok())
    aborted_ = absl::StartsWith(status.message(), "aborted because")
                   ? status
                   : absl::Status(status.code(), absl::StrCat("aborted because another device failed: ",
                                                              status.message()));
  cv_.notify_all();
}

}  // namespace hlo::cpu
