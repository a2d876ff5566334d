#include "tools/memory_watchdog.h"

#include <chrono>
#include <cstring>
#include <limits>
#include <memory>
#include <thread>

#include "gtest/gtest.h"

namespace hlo {
namespace {

TEST(MemoryWatchdogTest, ResidentBytesIsPositive) { EXPECT_GT(ResidentBytes(), 0); }

// Touching 512 MB where the limit and the slack allow 320 MB ends the
// process with exit 1 and the message, within a few polls.
TEST(MemoryWatchdogDeathTest, EndsTheProcessPastTheLimit) {
  EXPECT_EXIT(
      {
        MemoryWatchdog dog("test", "", int64_t{64} << 20, "the hint", 1);
        const size_t bytes = size_t{512} << 20;
        std::unique_ptr<char[]> block(new char[bytes]);
        std::memset(block.get(), 1, bytes);
        std::this_thread::sleep_for(std::chrono::seconds(5));
        std::exit(block[bytes / 2] == 1 ? 0 : 2);  // not reached when the watchdog works
      },
      ::testing::ExitedWithCode(1), "test: error: out of memory: the run's resident memory reached .*over the memory limit .*; the hint");
}

// Under the limit, or stopped, it never fires.
TEST(MemoryWatchdogTest, QuietUnderTheLimitAndAfterStop) {
  MemoryWatchdog dog("test", "", int64_t{1} << 30, "", 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  dog.Stop();
  dog.Stop();  // idempotent
  MemoryWatchdog unlimited("test", "", std::numeric_limits<int64_t>::max(), "");
  SUCCEED();
}

}  // namespace
}  // namespace hlo
