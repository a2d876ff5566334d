// hlo-run's second line of defence against the kernel's out-of-memory
// killer. The estimate checked before a run (backend_cpu/memory_estimate.h)
// walks the module's values; what it cannot see (library scratch space,
// allocator slack, a schedule that keeps more alive than the estimate's)
// can still push a run past the machine's memory, and then the kernel
// kills the process with no message. The watchdog polls the process's
// resident memory while the run goes on and, when the run has added more
// than the limit to it, ends the process at once with a clear error and
// exit status 1 (before any output file is written: the caller stops it
// before writing).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace hlo {

// Resident memory of this process in bytes (/proc/self/statm); -1 when
// it cannot be read.
int64_t ResidentBytes();

class MemoryWatchdog {
 public:
  // Polls every `period_ms`. When the resident memory has grown by more
  // than `limit_bytes` plus kSlack since construction (what the process
  // held before, its code, libraries and parsed module, is not the run's),
  // writes "<program>: error: <prefix>out of memory: ..." naming the
  // growth, the limit and `hint`, to stderr and calls _exit(1). A limit
  // <= 0 or of INT64_MAX (no limit known) starts no thread.
  MemoryWatchdog(const std::string& program, const std::string& prefix, int64_t limit_bytes,
                 const std::string& hint, int period_ms = 10);
  ~MemoryWatchdog();
  MemoryWatchdog(const MemoryWatchdog&) = delete;
  MemoryWatchdog& operator=(const MemoryWatchdog&) = delete;

  // Libraries' scratch space (BLAS, oneDNN, thread stacks) the estimate
  // does not count: a run is not stopped for that alone.
  static constexpr int64_t kSlack = int64_t{256} << 20;

  // Stops polling (idempotent); after it returns the watchdog cannot fire.
  void Stop();

 private:
  void Poll();

  std::string message_head_;  // "<program>: error: <prefix>out of memory: "
  std::string hint_;
  int64_t limit_;
  int64_t baseline_ = 0;  // resident bytes at construction
  int period_ms_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace hlo
