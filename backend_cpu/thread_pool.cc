#include "backend_cpu/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "backend_cpu/float_mode.h"

namespace hlo::cpu {
namespace {

thread_local bool tls_in_parallel_region = false;

struct RegionGuard {
  bool saved;
  RegionGuard() : saved(tls_in_parallel_region) { tls_in_parallel_region = true; }
  ~RegionGuard() { tls_in_parallel_region = saved; }
};

// One ParallelFor in flight; lives on the caller's stack.
struct Job {
  int64_t n = 0;
  int64_t block = 1;
  int64_t num_blocks = 0;
  const absl::FunctionRef<void(int64_t, int64_t)>* fn = nullptr;
  // The caller's floating-point mode (float_mode.h): a worker runs the
  // blocks in it, so that results do not depend on which thread ran them.
  uint32_t float_mode = 0;
  std::atomic<int64_t> next{0};       // next block to claim
  std::atomic<int64_t> remaining{0};  // blocks not yet finished
  // Workers inside RunBlocks: raised under Pool::mu_ (so a worker never
  // joins a job the caller has already left), lowered under it too; read
  // without the lock while the caller spins.
  std::atomic<int> users{0};

  void RunBlocks() {
    int64_t done = 0;
    for (;;) {
      int64_t b = next.fetch_add(1, std::memory_order_relaxed);
      if (b >= num_blocks) break;
      int64_t begin = b * block;
      int64_t end = std::min(n, begin + block);
      (*fn)(begin, end);
      ++done;
    }
    if (done) remaining.fetch_sub(done, std::memory_order_acq_rel);
  }
};

// How long an idle worker, or a caller waiting for its job's last blocks,
// polls before it sleeps on a condition variable. The ops of a model come a
// few microseconds apart, and a futex wake-up of a sleeping worker costs
// about as much as a small op: a small model ran slower on 2 threads than
// on 1 (docs/performance.md, "Waking the pool's workers"). Polling yields
// the core on every clock check, so it never holds a core another thread
// wants, and it stops after this long, so an idle process stays idle.
constexpr std::chrono::microseconds kSpinBeforeSleep{100};

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Polls done() until it holds or the spin time is over; true if it held.
template <typename Done>
bool SpinUntil(Done done) {
  const auto deadline = std::chrono::steady_clock::now() + kSpinBeforeSleep;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      CpuRelax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return done();
    std::this_thread::yield();
  }
}

int DefaultWidth() {
  if (const char* env = std::getenv("HLO_CPU_THREADS")) {
    int v = std::atoi(env);
    if (v > 0) return v;
  }
  unsigned hc = std::thread::hardware_concurrency();
  return hc == 0 ? 1 : static_cast<int>(hc);
}

class Pool {
 public:
  Pool() { Start(DefaultWidth()); }
  ~Pool() { Stop(); }

  int width() const { return width_; }

  void SetWidth(int width) {
    std::lock_guard<std::mutex> owner(owner_mu_);
    Stop();
    Start(std::max(1, width));
  }

  void SetTeamRunner(TeamRunner runner) { team_runner_.store(runner, std::memory_order_release); }

  // Runs the job on the pool if the pool is free; false if it is busy.
  bool TryRun(Job& job) {
    std::unique_lock<std::mutex> owner(owner_mu_, std::try_to_lock);
    if (!owner.owns_lock() || workers_.empty()) return false;
    if (TeamRunner runner = team_runner_.load(std::memory_order_acquire)) {
      // Every team thread (the caller is one) claims blocks until none is
      // left; the runner returns after all of them.
      runner(&RunOnTeamThread, &job, static_cast<unsigned>(width_));
      return true;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      job_ = &job;
      generation_.fetch_add(1, std::memory_order_release);
    }
    cv_work_.notify_all();  // cheap when every worker is spinning, not waiting
    {
      RegionGuard guard;
      job.RunBlocks();
    }
    auto finished = [&] {
      return job.remaining.load(std::memory_order_acquire) == 0 &&
             job.users.load(std::memory_order_acquire) == 0;
    };
    SpinUntil(finished);
    // Checked again under the lock: a worker may have joined the job
    // (users raised under mu_) between the unlocked check and here.
    std::unique_lock<std::mutex> lock(mu_);
    cv_done_.wait(lock, finished);
    job_ = nullptr;
    return true;
  }

 private:
  void Start(int width) {
    width_ = width;
    stop_ = false;
    stopping_.store(false, std::memory_order_relaxed);
    // The generation is read here, not by the new thread: a thread that
    // starts late must still take the jobs posted after Start returned.
    const uint64_t seen = generation_.load(std::memory_order_acquire);
    for (int i = 1; i < width; ++i) workers_.emplace_back([this, seen] { WorkerLoop(seen); });
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      stopping_.store(true, std::memory_order_relaxed);
    }
    cv_work_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
  }

  void WorkerLoop(uint64_t seen) {
    tls_in_parallel_region = true;
    for (;;) {
      SpinUntil([&] {
        return generation_.load(std::memory_order_acquire) != seen ||
               stopping_.load(std::memory_order_relaxed);
      });
      Job* job = nullptr;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_work_.wait(lock, [&] { return stop_ || generation_.load(std::memory_order_relaxed) != seen; });
        if (stop_) return;
        seen = generation_.load(std::memory_order_relaxed);
        job = job_;
        if (job == nullptr) continue;
        job->users.fetch_add(1, std::memory_order_relaxed);
      }
      {
        ScopedFloatMode mode(job->float_mode);
        job->RunBlocks();
      }
      std::lock_guard<std::mutex> lock(mu_);
      // Last touch of the job: once users is 0 the caller may return.
      if (job->users.fetch_sub(1, std::memory_order_acq_rel) == 1) cv_done_.notify_all();
    }
  }

  static void RunOnTeamThread(void* data) {
    Job* job = static_cast<Job*>(data);
    RegionGuard guard;
    ScopedFloatMode mode(job->float_mode);
    job->RunBlocks();
  }

  std::atomic<TeamRunner> team_runner_{nullptr};
  std::mutex owner_mu_;  // held by the thread that owns the pool for one job
  std::mutex mu_;
  std::condition_variable cv_work_;
  std::condition_variable cv_done_;
  std::vector<std::thread> workers_;
  Job* job_ = nullptr;
  std::atomic<uint64_t> generation_{0};  // raised under mu_; polled without it
  bool stop_ = false;
  std::atomic<bool> stopping_{false};  // stop_, for spinning workers
  int width_ = 1;
};

Pool& GlobalPool() {
  static Pool* pool = new Pool();  // never destroyed: workers may outlive statics
  return *pool;
}

}  // namespace

int64_t ParallelForBlockSize(int64_t n, int64_t min_block) {
  int64_t block = std::max<int64_t>(min_block, 1);
  if (n > 0) {
    int64_t needed = (n + kMaxParallelForBlocks - 1) / kMaxParallelForBlocks;
    block = std::max(block, needed);
  }
  return block;
}

int64_t ParallelForNumBlocks(int64_t n, int64_t min_block) {
  if (n <= 0) return 0;
  int64_t block = ParallelForBlockSize(n, min_block);
  return (n + block - 1) / block;
}

int ThreadPoolWidth() { return GlobalPool().width(); }
void SetThreadPoolWidth(int width) { GlobalPool().SetWidth(width); }
bool InParallelRegion() { return tls_in_parallel_region; }
void SetTeamRunner(TeamRunner runner) { GlobalPool().SetTeamRunner(runner); }

void ParallelFor(int64_t n, int64_t min_block, absl::FunctionRef<void(int64_t, int64_t)> fn) {
  if (n <= 0) return;
  Job job;
  job.n = n;
  job.block = ParallelForBlockSize(n, min_block);
  job.num_blocks = (n + job.block - 1) / job.block;
  job.fn = &fn;
  job.float_mode = CurrentFloatMode();
  job.remaining.store(job.num_blocks, std::memory_order_relaxed);
  if (job.num_blocks > 1 && !tls_in_parallel_region && GlobalPool().width() > 1 &&
      GlobalPool().TryRun(job)) {
    return;
  }
  // Inline: same blocks, in order.
  RegionGuard guard;
  for (int64_t b = 0; b < job.num_blocks; ++b) {
    int64_t begin = b * job.block;
    fn(begin, std::min(n, begin + job.block));
  }
}

}  // namespace hlo::cpu
