#include "tools/memory_watchdog.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hlo {
namespace {

std::string Gigabytes(int64_t bytes) {
  return absl::StrFormat("%.2f GB (%d bytes)", static_cast<double>(bytes) / 1e9, bytes);
}

}  // namespace

int64_t ResidentBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%lld %lld", &size, &resident);
  std::fclose(f);
  if (n != 2) return -1;
  return static_cast<int64_t>(resident) * sysconf(_SC_PAGESIZE);
}

MemoryWatchdog::MemoryWatchdog(const std::string& program, const std::string& prefix,
                               int64_t limit_bytes, const std::string& hint, int period_ms)
    : message_head_(absl::StrCat(program, ": error: ", prefix, "out of memory: ")),
      hint_(hint),
      limit_(limit_bytes),
      period_ms_(period_ms < 1 ? 1 : period_ms) {
  baseline_ = ResidentBytes();
  if (limit_ <= 0 || limit_ > std::numeric_limits<int64_t>::max() - kSlack || baseline_ < 0) return;
  thread_ = std::thread([this] { Poll(); });
}

MemoryWatchdog::~MemoryWatchdog() { Stop(); }

void MemoryWatchdog::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void MemoryWatchdog::Poll() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, std::chrono::milliseconds(period_ms_), [this] { return stop_; })) {
    const int64_t grown = ResidentBytes() - baseline_;
    if (grown <= limit_ + kSlack) continue;
    // Still under the lock: Stop() cannot return (and the caller cannot
    // start writing outputs) between this check and the exit.
    std::string msg = absl::StrCat(message_head_, "the run's resident memory reached ",
                                   Gigabytes(grown), ", over the memory limit ", Gigabytes(limit_),
                                   hint_.empty() ? "" : "; ", hint_, "\n");
    std::fwrite(msg.data(), 1, msg.size(), stderr);
    std::fflush(stderr);
    _exit(1);
  }
}

}  // namespace hlo
