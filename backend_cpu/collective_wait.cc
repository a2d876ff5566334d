#include "backend_cpu/collective_wait.h"

namespace hlo::cpu {
namespace {

thread_local double wait_seconds = 0;

}  // namespace

double CollectiveWaitSeconds() { return wait_seconds; }

ScopedCollectiveWait::~ScopedCollectiveWait() {
  wait_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace hlo::cpu
