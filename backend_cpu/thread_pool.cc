#include "backend_cpu/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

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
  std::atomic<int64_t> next{0};       // next block to claim
  std::atomic<int64_t> remaining{0};  // blocks not yet finished
  int users = 0;                      // workers inside RunBlocks (guarded by Pool::mu_)

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

  // Runs the job on the pool if the pool is free; false if it is busy.
  bool TryRun(Job& job) {
    std::unique_lock<std::mutex> owner(owner_mu_, std::try_to_lock);
    if (!owner.owns_lock() || workers_.empty()) return false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      job_ = &job;
      ++generation_;
    }
    cv_work_.notify_all();
    {
      RegionGuard guard;
      job.RunBlocks();
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_done_.wait(lock, [&] {
      return job.remaining.load(std::memory_order_acquire) == 0 && job.users == 0;
    });
    job_ = nullptr;
    return true;
  }

 private:
  void Start(int width) {
    width_ = width;
    stop_ = false;
    for (int i = 1; i < width; ++i) workers_.emplace_back([this] { WorkerLoop(); });
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_work_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
  }

  void WorkerLoop() {
    tls_in_parallel_region = true;
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mu_);
    seen = generation_;
    for (;;) {
      cv_work_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      Job* job = job_;
      if (job == nullptr) continue;
      ++job->users;
      lock.unlock();
      job->RunBlocks();
      lock.lock();
      --job->users;
      if (job->users == 0) cv_done_.notify_all();
    }
  }

  std::mutex owner_mu_;  // held by the thread that owns the pool for one job
  std::mutex mu_;
  std::condition_variable cv_work_;
  std::condition_variable cv_done_;
  std::vector<std::thread> workers_;
  Job* job_ = nullptr;
  uint64_t generation_ = 0;
  bool stop_ = false;
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

void ParallelFor(int64_t n, int64_t min_block, absl::FunctionRef<void(int64_t, int64_t)> fn) {
  if (n <= 0) return;
  Job job;
  job.n = n;
  job.block = ParallelForBlockSize(n, min_block);
  job.num_blocks = (n + job.block - 1) / job.block;
  job.fn = &fn;
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
