// Time a device thread spends blocked until its peers arrive: in a
// collective's rendezvous, at a recv-done for a message, or for another
// process's part of an all-reduce. hlo-run --profile reports it as waiting
// (docs/hlo-run.md), not as the op's own time: with several devices the
// first to arrive at a collective otherwise shows the others' work as its
// own.
#pragma once

#include <chrono>

namespace hlo::cpu {

// Seconds this thread has spent blocked so far (only grows).
double CollectiveWaitSeconds();

// Adds the time from construction to destruction to this thread's total;
// put around each blocking wait on a condition variable.
class ScopedCollectiveWait {
 public:
  ScopedCollectiveWait() : start_(std::chrono::steady_clock::now()) {}
  ~ScopedCollectiveWait();
  ScopedCollectiveWait(const ScopedCollectiveWait&) = delete;
  ScopedCollectiveWait& operator=(const ScopedCollectiveWait&) = delete;

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace hlo::cpu
