#include "backend_cpu/mpi_transport.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"

#ifdef HLO_WITH_MPI
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "backend_cpu/collectives.h"
#include "backend_cpu/transport_runs.h"
#endif

namespace hlo::cpu {

bool LaunchedByMpi() {
  // OpenMPI's mpirun, PMIx launchers, MPICH's hydra (PMI).
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(var) != nullptr) return true;
  return false;
}

#ifndef HLO_WITH_MPI

bool MpiBuilt() { return false; }

absl::StatusOr<std::unique_ptr<MpiProcesses>> StartMpi(int*, char***) {
  return absl::UnimplementedError(
      "this hlo-run was built without MPI (configure with -DHLO_WITH_MPI=ON and "
      "libopenmpi-dev installed): it cannot run under mpirun");
}

#else

bool MpiBuilt() { return true; }

namespace {

// Every logical message is a header (its size in bytes) then the bytes in
// chunks below MPI's int count limit; MPI keeps messages between two
// processes in order, so the chunks follow their header.
constexpr int kTagHeader = 1;
constexpr int kTagChunk = 2;
constexpr int64_t kChunkBytes = int64_t{1} << 30;

struct Outgoing {
  int to = 0;
  WireBuffer bytes;
};

struct InFlight {
  std::unique_ptr<Outgoing> message;
  int64_t header = 0;
  std::vector<MPI_Request> requests;
};

class MpiProcessesImpl final : public MpiProcesses {
 public:
  MpiProcessesImpl(int rank, int size, std::vector<std::string> hosts)
      : rank_(rank),
        size_(size),
        hosts_(std::move(hosts)),
        desk_([this](int p) { return host(p); }) {
    thread_ = std::thread([this] { Progress(); });
  }
  // Finish is the way out; a process that skips it still must not hang.
  ~MpiProcessesImpl() override {
    if (!finished_) Finish(/*failed=*/true, kCollectiveTimeoutSeconds).IgnoreError();
  }

  int process() const override { return rank_; }
  int process_count() const override { return size_; }
  std::string host(int process) const override {
    return process >= 0 && process < size_ ? hosts_[process] : std::string("?");
  }

  int64_t Attach(CollectiveHub* collectives, ChannelHub* channels) override {
    std::lock_guard<std::mutex> lock(mu_);
    return desk_.Attach(collectives, channels);
  }

  void Detach(int64_t run) override {
    std::lock_guard<std::mutex> lock(mu_);
    desk_.Detach(run);
  }

  void SendContributions(int64_t run, int to_process, const std::string& key, int64_t execution,
                         int64_t first_device,
                         const std::vector<std::pair<int64_t, const Literal*>>& values) override {
    Queue(to_process, EncodeContributions(run, key, execution, first_device, values), run, key);
  }

  void SendReducePart(int64_t run, int to_process, const std::string& key, int64_t execution,
                      int64_t first_device, int64_t phase,
                      const std::function<void(WireWriter&)>& write) override {
    Queue(to_process, EncodeReducePart(run, key, execution, first_device, phase, write), run,
          key);
  }

  void SendChannelMessage(int64_t run, int to_process, int64_t channel, int64_t target,
                          const Literal& value) override {
    Queue(to_process, EncodeChannelMessage(run, channel, target, value), run,
          ChannelTrafficKey(channel));
  }

  void ReportFailure(const absl::Status& status) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (reported_ || !desk_.failure().ok()) return;
      reported_ = true;
    }
    for (int p = 0; p < size_; ++p)
      if (p != rank_) Queue(p, EncodeFailure(rank_, status.message()));
  }

  absl::Status remote_failure() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return desk_.failure();
  }

  int64_t runs() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return desk_.runs();
  }

  TrafficLog traffic() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return desk_.traffic();
  }

  absl::Status Finish(bool failed, double timeout_seconds) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      finish_requested_ = true;
      local_failed_ = failed;
      finish_timeout_ = timeout_seconds;
      cv_.notify_all();
    }
    StopThread();
    finished_ = true;
    absl::Status remote = remote_failure();
    MPI_Finalize();
    if (!remote.ok()) return remote;
    if (any_failed_ && !failed)
      return absl::AbortedError("aborted because another process failed (its message says why)");
    return absl::OkStatus();
  }

 private:
  // `run` and `what` name the traffic (run < 0: not counted, a failure).
  void Queue(int to, WireBuffer bytes, int64_t run = -1, const std::string& what = "") {
    auto m = std::make_unique<Outgoing>();
    m->to = to;
    m->bytes = std::move(bytes);
    std::lock_guard<std::mutex> lock(mu_);
    if (run >= 0) desk_.CountSent(run, what, m->bytes.size());
    outgoing_.push_back(std::move(m));
    cv_.notify_all();
  }

  void StopThread() {
    if (thread_.joinable()) thread_.join();
  }

  // A complete message from process `from`.
  void Received(int from, WireBuffer bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    desk_.Received(from, std::move(bytes));
  }

  // Posts the sends of one message.
  void Post(std::unique_ptr<Outgoing> m) {
    auto f = std::make_unique<InFlight>();
    f->header = static_cast<int64_t>(m->bytes.size());
    f->message = std::move(m);
    const int to = f->message->to;
    f->requests.emplace_back();
    MPI_Isend(&f->header, 1, MPI_INT64_T, to, kTagHeader, MPI_COMM_WORLD, &f->requests.back());
    for (int64_t off = 0; off < f->header; off += kChunkBytes) {
      const int n = static_cast<int>(std::min(kChunkBytes, f->header - off));
      f->requests.emplace_back();
      MPI_Isend(f->message->bytes.data() + off, n, MPI_BYTE, to, kTagChunk, MPI_COMM_WORLD,
                &f->requests.back());
    }
    in_flight_.push_back(std::move(f));
  }

  // Receives one message if a header is waiting; true if it did.
  bool Poll() {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagHeader, MPI_COMM_WORLD, &flag, &status);
    if (!flag) return false;
    const int from = status.MPI_SOURCE;
    int64_t size = 0;
    MPI_Recv(&size, 1, MPI_INT64_T, from, kTagHeader, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    WireBuffer bytes(static_cast<size_t>(size));
    for (int64_t off = 0; off < size; off += kChunkBytes) {
      const int n = static_cast<int>(std::min(kChunkBytes, size - off));
      MPI_Recv(bytes.data() + off, n, MPI_BYTE, from, kTagChunk, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    }
    Received(from, std::move(bytes));
    return true;
  }

  // Completes finished sends; true if one finished.
  bool TestSends() {
    bool any = false;
    for (auto it = in_flight_.begin(); it != in_flight_.end();) {
      int done = 0;
      MPI_Testall(static_cast<int>((*it)->requests.size()), (*it)->requests.data(), &done,
                  MPI_STATUSES_IGNORE);
      if (done) {
        it = in_flight_.erase(it);
        any = true;
      } else {
        ++it;
      }
    }
    return any;
  }

  // The progress thread: the only thread that calls MPI after start-up.
  void Progress() {
    using Clock = std::chrono::steady_clock;
    int idle = 0;
    bool reduce_posted = false;
    MPI_Request reduce;
    int mine = 0, any = 0;
    // The finish timeout counts from when this process is finishing and
    // knows of a failure, whichever comes last.
    Clock::time_point failure_seen{};
    bool failure_known = false;
    while (true) {
      bool progressed = false;
      std::deque<std::unique_ptr<Outgoing>> posts;
      bool finishing = false;
      double timeout = 0;
      {
        std::lock_guard<std::mutex> lock(mu_);
        posts.swap(outgoing_);
        finishing = finish_requested_;
        timeout = finish_timeout_;
        mine = local_failed_ ? 1 : 0;
        if (!failure_known && finishing && (local_failed_ || !desk_.failure().ok())) {
          failure_known = true;
          failure_seen = Clock::now();
        }
      }
      for (auto& m : posts) Post(std::move(m));
      progressed |= !posts.empty();
      progressed |= TestSends();
      while (Poll()) progressed = true;
      if (finishing && !reduce_posted && in_flight_.empty()) {
        // Every send of this process has completed: join the others. The
        // reduction also tells everyone whether some process failed.
        MPI_Iallreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &reduce);
        reduce_posted = true;
      }
      if (reduce_posted) {
        int done = 0;
        MPI_Test(&reduce, &done, MPI_STATUS_IGNORE);
        if (done) {
          // Messages sent before the others joined (an abort notice) are
          // read before leaving.
          while (Poll()) {
          }
          any_failed_ = any != 0;
          return;
        }
      }
      if (finishing && failure_known && timeout > 0 &&
          Clock::now() - failure_seen > std::chrono::duration<double>(timeout)) {
        std::string line = absl::StrCat(
            "hlo-run: error: process ", rank_, " of ", size_, " (host ", host(rank_),
            "): the other processes did not finish within ", timeout,
            " s after a failure; ending them all (MPI_Abort)\n");
        fwrite(line.data(), 1, line.size(), stderr);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      if (progressed) {
        idle = 0;
        continue;
      }
      // Idle: poll fast right after traffic (a collective's replies come
      // soon) and while sends are in flight (a large message moves only as
      // fast as both sides drive it), then back off so the device threads
      // get the cores.
      ++idle;
      if (idle < 200 || !in_flight_.empty()) {
        std::this_thread::yield();
      } else {
        const int us = std::min(1000, 10 << std::min(7, (idle - 200) / 50));
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait_for(lock, std::chrono::microseconds(us),
                     [&] { return !outgoing_.empty() || finish_requested_ != finishing; });
      }
    }
  }

  const int rank_;
  const int size_;
  const std::vector<std::string> hosts_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<Outgoing>> outgoing_;
  RunDesk desk_;
  bool reported_ = false;
  bool finish_requested_ = false;
  bool local_failed_ = false;
  double finish_timeout_ = 0;
  // Progress thread only.
  std::list<std::unique_ptr<InFlight>> in_flight_;
  bool any_failed_ = false;  // read after the thread ended
  bool finished_ = false;
  std::thread thread_;
};

// The process count the launcher announced (OpenMPI's mpirun:
// OMPI_COMM_WORLD_SIZE; MPICH's hydra: PMI_SIZE), or 0 when it says none.
int LauncherProcessCount() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* text = std::getenv(var);
    if (text == nullptr) continue;
    char* end = nullptr;
    const long n = std::strtol(text, &end, 10);
    if (end != text && *end == '\0' && n > 0 && n < (1L << 30)) return static_cast<int>(n);
  }
  return 0;
}

// The first line of MPI_Get_library_version, tabs as spaces: "Open MPI
// v4.1.4, ..." or "MPICH Version: 4.0.2".
std::string LibraryName() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string name(text, strnlen(text, sizeof(text)));
  name = name.substr(0, name.find('\n'));
  std::replace(name.begin(), name.end(), '\t', ' ');
  return name;
}

}  // namespace

absl::StatusOr<std::unique_ptr<MpiProcesses>> StartMpi(int* argc, char*** argv) {
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    return absl::InternalError("MPI_Init_thread failed");
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    return absl::FailedPreconditionError(
        "the MPI library does not support MPI_THREAD_SERIALIZED (needed: one progress thread "
        "makes the MPI calls)");
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // A launcher of another MPI installation (OpenMPI's mpirun for an MPICH
  // build, or the reverse) starts processes that each initialize alone:
  // every one would run all devices and print, without a word. Say so.
  if (const int launched = LauncherProcessCount(); launched > 1 && size != launched) {
    const std::string library = LibraryName();
    MPI_Finalize();
    return absl::FailedPreconditionError(absl::StrCat(
        "the launcher started ", launched, " processes but the MPI library of this hlo-run (",
        library, ") sees ", size,
        ": the launcher belongs to another MPI installation (e.g. OpenMPI's mpirun for a "
        "build with MPICH); start hlo-run with the launcher of the library it was built with "
        "(Debian: mpirun.openmpi for OpenMPI, mpiexec.mpich for MPICH)"));
  }
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  std::vector<char> all(static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> hosts;
  for (int p = 0; p < size; ++p) {
    const char* h = all.data() + static_cast<size_t>(p) * MPI_MAX_PROCESSOR_NAME;
    hosts.emplace_back(h, strnlen(h, MPI_MAX_PROCESSOR_NAME));
  }
  return std::unique_ptr<MpiProcesses>(new MpiProcessesImpl(rank, size, std::move(hosts)));
}

#endif  // HLO_WITH_MPI

}  // namespace hlo::cpu
