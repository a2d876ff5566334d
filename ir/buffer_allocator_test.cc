// Resident memory of large literal buffers: a buffer a little over 2 MiB
// must not take two huge pages once touched (its tail stays in small
// pages). Read from /proc/self/smaps, the kernel's own account.
#include "ir/buffer_allocator.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace hlo {
namespace {

// Resident KiB of the mapping that contains `p`, or -1 if not found.
int64_t ResidentKibOfMapping(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= addr && addr < hi;
      continue;
    }
    if (inside && line.rfind("Rss:", 0) == 0) return std::stoll(line.substr(4));
  }
  return -1;
}

TEST(BufferAllocatorTest, TailOfALargeBufferIsNotAWholeHugePage) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "under AddressSanitizer large buffers come from its heap";
#else
  const size_t bytes = (size_t{2} << 20) + 4096;  // one huge page and one small one
  void* p = AllocateBuffer(bytes);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (uintptr_t{2} << 20), 0u);  // huge-page aligned
  std::memset(p, 1, bytes);
  const int64_t rss = ResidentKibOfMapping(p);
  FreeBuffer(p, bytes);
  ASSERT_GT(rss, 0) << "no mapping of the buffer in /proc/self/smaps";
  // 2052 KiB touched; rounding the size to 4 MiB let a second huge page
  // back the 4 KiB tail (4096 KiB resident where THP is on).
  EXPECT_LE(rss, 2048 + 64);
#endif
}

}  // namespace
}  // namespace hlo
