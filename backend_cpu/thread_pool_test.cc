#include "backend_cpu/thread_pool.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "backend_cpu/float_mode.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

// Restores the pool width at the end of a test.
class WidthGuard {
 public:
  WidthGuard() : saved_(ThreadPoolWidth()) {}
  ~WidthGuard() { SetThreadPoolWidth(saved_); }

 private:
  int saved_;
};

// Blocked float sum: one partial per block, combined in block order.
float BlockedSum(const std::vector<float>& v, int64_t min_block) {
  int64_t n = static_cast<int64_t>(v.size());
  int64_t block = ParallelForBlockSize(n, min_block);
  std::vector<float> partial(ParallelForNumBlocks(n, min_block), 0.0f);
  ParallelFor(n, min_block, [&](int64_t b, int64_t e) {
    float s = 0;
    for (int64_t i = b; i < e; ++i) s += v[i];
    partial[b / block] = s;
  });
  float total = 0;
  for (float p : partial) total += p;
  return total;
}

TEST(ThreadPoolTest, BlockedSumIsBitIdenticalForAnyWidth) {
  WidthGuard guard;
  std::vector<float> v(1000003);
  uint32_t s = 12345;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) * 1e-3f - 8000.0f;
  }
  SetThreadPoolWidth(1);
  float one = BlockedSum(v, 1000);
  for (int w : {2, 3, 4}) {
    SetThreadPoolWidth(w);
    for (int rep = 0; rep < 3; ++rep) {
      float many = BlockedSum(v, 1000);
      uint32_t a, b;
      std::memcpy(&a, &one, 4);
      std::memcpy(&b, &many, 4);
      EXPECT_EQ(a, b) << "width " << w;
    }
  }
}

TEST(ThreadPoolTest, BlocksCoverRangeExactlyOnce) {
  WidthGuard guard;
  SetThreadPoolWidth(3);
  for (int64_t n : {0, 1, 7, 100, 4097, 100000}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    ParallelFor(n, 16, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[i].fetch_add(1);
    });
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << n << " " << i;
  }
}

TEST(ThreadPoolTest, BlockBoundariesDependOnlyOnNAndMinBlock) {
  EXPECT_EQ(ParallelForBlockSize(100, 10), 10);
  EXPECT_EQ(ParallelForNumBlocks(100, 10), 10);
  EXPECT_EQ(ParallelForNumBlocks(101, 10), 11);
  EXPECT_EQ(ParallelForNumBlocks(0, 10), 0);
  // Capped number of blocks.
  EXPECT_EQ(ParallelForNumBlocks(int64_t{1} << 30, 1), kMaxParallelForBlocks);
  WidthGuard guard;
  std::set<std::pair<int64_t, int64_t>> seen1, seen2;
  std::mutex mu;
  SetThreadPoolWidth(1);
  ParallelFor(1000, 64, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> l(mu);
    seen1.insert({b, e});
  });
  SetThreadPoolWidth(4);
  ParallelFor(1000, 64, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> l(mu);
    seen2.insert({b, e});
  });
  EXPECT_EQ(seen1, seen2);
}

TEST(ThreadPoolTest, NestedParallelForRunsInline) {
  WidthGuard guard;
  SetThreadPoolWidth(2);
  std::atomic<int> outer_threads_nested_ok{0};
  std::atomic<int64_t> total{0};
  ParallelFor(8, 1, [&](int64_t, int64_t) {
    EXPECT_TRUE(InParallelRegion());
    std::thread::id me = std::this_thread::get_id();
    ParallelFor(100, 1, [&](int64_t b, int64_t e) {
      if (std::this_thread::get_id() == me) outer_threads_nested_ok.fetch_add(1);
      total.fetch_add(e - b);
    });
  });
  EXPECT_EQ(total.load(), 800);
  EXPECT_EQ(outer_threads_nested_ok.load(), 800);  // every inner block ran on its caller
  EXPECT_FALSE(InParallelRegion());
}

TEST(ThreadPoolTest, WidthOneRunsInlineOnCaller) {
  WidthGuard guard;
  SetThreadPoolWidth(1);
  EXPECT_EQ(ThreadPoolWidth(), 1);
  std::thread::id me = std::this_thread::get_id();
  int calls = 0;
  ParallelFor(10, 1, [&](int64_t, int64_t) {
    EXPECT_EQ(std::this_thread::get_id(), me);
    ++calls;
  });
  EXPECT_EQ(calls, 10);
}

// Workers run a job's blocks in the caller's floating-point mode (denormals
// flushed during a run, float_mode.h), whatever mode they had before, and a
// later job of a caller in another mode gets that one.
TEST(ThreadPoolTest, WorkersTakeTheCallersFloatMode) {
  WidthGuard guard;
  SetThreadPoolWidth(2);
  const std::thread::id me = std::this_thread::get_id();
  auto blocks_on_workers_flushing = [&](bool* any_on_worker) {
    std::mutex mu;
    bool all_flush = true;
    *any_on_worker = false;
    ParallelFor(64, 1, [&](int64_t, int64_t) {
      volatile float tiny = 1e-39f;  // subnormal
      volatile float one = 1.0f;
      const bool flushed = tiny * one == 0.0f;
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      std::lock_guard<std::mutex> lock(mu);
      all_flush = all_flush && flushed;
      if (std::this_thread::get_id() != me) *any_on_worker = true;
    });
    return all_flush;
  };
  bool on_worker = false;
  {
    ScopedFlushDenormals flush;
    EXPECT_TRUE(blocks_on_workers_flushing(&on_worker));
    EXPECT_TRUE(on_worker) << "no block ran on a worker: the test checked nothing";
  }
#if defined(__x86_64__)
  volatile float tiny = 1e-39f;
  volatile float one = 1.0f;
  EXPECT_NE(tiny * one, 0.0f) << "the guard did not restore the caller's mode";
  std::mutex mu;
  bool any_flushed = false;
  ParallelFor(64, 1, [&](int64_t, int64_t) {
    volatile float t = 1e-39f;
    volatile float o = 1.0f;
    const bool flushed = t * o == 0.0f;
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    std::lock_guard<std::mutex> lock(mu);
    any_flushed = any_flushed || flushed;
  });
  EXPECT_FALSE(any_flushed) << "a worker kept the previous job's mode";
#endif
}

TEST(ThreadPoolTest, ConcurrentTopLevelCallers) {
  WidthGuard guard;
  SetThreadPoolWidth(2);
  std::atomic<int64_t> total{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&] {
      for (int r = 0; r < 50; ++r) {
        ParallelFor(1000, 10, [&](int64_t b, int64_t e) { total.fetch_add(e - b); });
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(total.load(), 4 * 50 * 1000);
}

// Jobs that follow each other closely find the workers still polling (not
// asleep); every block of every job must still run exactly once, and
// resizing must stop polling workers and start working ones.
TEST(ThreadPoolTest, BackToBackSmallJobsWhileWorkersPoll) {
  WidthGuard guard;
  SetThreadPoolWidth(2);
  std::atomic<int64_t> covered{0};
  for (int job = 0; job < 20000; ++job) {
    if (job % 5000 == 4999) SetThreadPoolWidth(2);  // restarts polling workers
    ParallelFor(4, 1, [&](int64_t b, int64_t e) { covered.fetch_add(e - b, std::memory_order_relaxed); });
  }
  EXPECT_EQ(covered.load(), 4 * 20000);
  // After all that a worker still takes blocks: the caller's first block
  // waits until another thread has run the second one.
  const std::thread::id me = std::this_thread::get_id();
  std::atomic<bool> second_on_worker{false};
  ParallelFor(2, 1, [&](int64_t b, int64_t) {
    if (b == 1) {
      if (std::this_thread::get_id() != me) second_on_worker.store(true);
      return;
    }
    for (int i = 0; i < 10000 && !second_on_worker.load(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  EXPECT_TRUE(second_on_worker.load());
}

// A stand-in for libgomp's GOMP_parallel: body(data) on the caller and on
// threads - 1 other threads, returning when all have returned. The other
// threads start in the float mode of the process before the test (as
// libgomp's threads keep the mode they were created in; a new thread
// would inherit the caller's).
std::atomic<int> team_calls{0};
uint32_t team_start_mode = 0;
void FakeTeam(void (*body)(void*), void* data, unsigned threads) {
  team_calls.fetch_add(1);
  std::vector<std::thread> others;
  for (unsigned t = 1; t < threads; ++t)
    others.emplace_back([=] {
      ScopedFloatMode start(team_start_mode);
      body(data);
    });
  body(data);
  for (auto& t : others) t.join();
}

// Restores the pool's own workers at the end of a test.
struct TeamGuard {
  ~TeamGuard() { SetTeamRunner(nullptr); }
};

// With a team runner installed, jobs run on its threads: the same blocks
// (so the same bits), each exactly once, in the caller's float mode, and a
// ParallelFor inside a block still runs inline.
TEST(ThreadPoolTest, JobsRunOnAnInstalledTeam) {
  WidthGuard guard;
  TeamGuard team;
  SetThreadPoolWidth(3);
  team_start_mode = CurrentFloatMode();
  std::vector<float> v(200003);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<float>(i)) * 1e3f;
  SetTeamRunner(nullptr);
  const float pool_sum = BlockedSum(v, 1000);
  SetTeamRunner(&FakeTeam);
  team_calls = 0;
  const float team_sum = BlockedSum(v, 1000);
  EXPECT_EQ(team_calls.load(), 1);
  uint32_t a, b;
  std::memcpy(&a, &pool_sum, 4);
  std::memcpy(&b, &team_sum, 4);
  EXPECT_EQ(a, b);

  std::vector<std::atomic<int>> hits(5000);
  std::atomic<int> nested_inline{0}, on_other_thread{0}, flushed{0};
  const std::thread::id me = std::this_thread::get_id();
  {
    ScopedFlushDenormals flush;
    ParallelFor(5000, 7, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[i].fetch_add(1);
      volatile float tiny = 1e-39f, one = 1.0f;
      if (tiny * one == 0.0f) flushed.fetch_add(1);
      if (std::this_thread::get_id() != me) on_other_thread.fetch_add(1);
      const std::thread::id inner = std::this_thread::get_id();
      ParallelFor(4, 1, [&](int64_t, int64_t) {
        if (std::this_thread::get_id() == inner) nested_inline.fetch_add(1);
      });
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    });
  }
  const int blocks = static_cast<int>(ParallelForNumBlocks(5000, 7));
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  EXPECT_EQ(flushed.load(), blocks);
  EXPECT_EQ(nested_inline.load(), 4 * blocks);
  EXPECT_GT(on_other_thread.load(), 0) << "no block ran on a team thread: the test checked nothing";
  EXPECT_EQ(team_calls.load(), 2);
  EXPECT_FALSE(InParallelRegion());
}

}  // namespace
}  // namespace hlo::cpu
