// The large-buffer heap: freed pages serve later values of any size, runs
// that repeat get the same addresses, resident memory follows the live
// values. Resident memory is read from /proc/self/smaps, the kernel's own
// account.
#include "ir/buffer_allocator.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <algorithm>

#include "gtest/gtest.h"

namespace hlo {
namespace {

// Sum of the resident KiB of the distinct mappings holding `buffers`.
int64_t ResidentKibOfMappings(const std::vector<void*>& buffers) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  int64_t total = 0;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = false;
      for (void* p : buffers) {
        const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
        inside = inside || (lo <= addr && addr < hi);
      }
      continue;
    }
    if (inside && line.rfind("Rss:", 0) == 0) total += std::stoll(line.substr(4));
  }
  return total;
}

constexpr size_t kMiB = size_t{1} << 20;

// A run's values in order: each made, then read by the next and freed, so
// at most two are live at once; sizes all differ, as in a real model.
std::vector<void*> RunValueSequence(const std::vector<size_t>& sizes) {
  std::vector<void*> addresses;
  void* previous = nullptr;
  size_t previous_bytes = 0;
  for (size_t bytes : sizes) {
    void* p = AllocateBuffer(bytes);
    std::memset(p, 1, bytes);
    addresses.push_back(p);
    FreeBuffer(previous, previous_bytes);
    previous = p;
    previous_bytes = bytes;
  }
  FreeBuffer(previous, previous_bytes);
  return addresses;
}

const std::vector<size_t> kSizes = {3 * kMiB + 4096, 5 * kMiB, 1 * kMiB + 123, 6 * kMiB - 4096,
                                    2 * kMiB + 77, 4 * kMiB, 7 * kMiB / 2, 5 * kMiB / 2,
                                    6 * kMiB, 3 * kMiB / 2};

// The process-wide account: bytes held, and the most held at once since the
// last reset, for small (malloc) and large (heap, page-rounded) buffers.
TEST(BufferAllocatorTest, PeakOfHeldBytesSinceReset) {
  const size_t base = BufferBytesHeld();
  ResetPeakBufferBytes();
  EXPECT_EQ(PeakBufferBytes(), base);
  void* small = AllocateBuffer(1000);
  EXPECT_EQ(BufferBytesHeld(), base + 1000);
  void* large = AllocateBuffer((size_t{4} << 20) + 5);  // rounded to whole pages
  const size_t large_bytes = BufferBytesHeld() - base - 1000;
  EXPECT_GE(large_bytes, (size_t{4} << 20) + 5);
  EXPECT_LT(large_bytes, (size_t{4} << 20) + 5 + 4096 * 512);
  FreeBuffer(large, (size_t{4} << 20) + 5);
  FreeBuffer(small, 1000);
  EXPECT_EQ(BufferBytesHeld(), base);
  EXPECT_EQ(PeakBufferBytes(), base + 1000 + large_bytes);
  ResetPeakBufferBytes();
  EXPECT_EQ(PeakBufferBytes(), base);
  // A vector through BufferAllocator is counted the same way.
  {
    std::vector<float, BufferAllocator<float>> v(300);
    EXPECT_EQ(BufferBytesHeld(), base + 300 * sizeof(float));
  }
  EXPECT_EQ(BufferBytesHeld(), base);
  EXPECT_EQ(PeakBufferBytes(), base + 300 * sizeof(float));
}

TEST(BufferAllocatorTest, FreedPagesServeLaterValuesOfOtherSizes) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "under AddressSanitizer large buffers come from its heap";
#else
  const std::vector<void*> first = RunValueSequence({kMiB});  // maps a segment if none yet
  const int64_t before = ResidentKibOfMappings(first);
  const std::vector<void*> addresses = RunValueSequence(kSizes);
  const int64_t after = ResidentKibOfMappings(addresses);
  // Two values of at most 7 MiB live at once: their pages plus a huge
  // page at each end, not the 40 MiB of all sizes (a cache of freed
  // buffers by exact size kept every one).
  EXPECT_LE(after - before, int64_t{(2 * 7 + 2 * 2) * 1024}) << "before " << before << " KiB";
  EXPECT_EQ(GetLargeBufferStats().live_bytes, 0u);
#endif
}

TEST(BufferAllocatorTest, RepeatedRunsGetTheSameAddressesAndMapNothingNew) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "under AddressSanitizer large buffers come from its heap";
#else
  const std::vector<void*> first = RunValueSequence(kSizes);
  const size_t mapped = GetLargeBufferStats().mapped_bytes;
  for (int run = 0; run < 3; ++run) {
    EXPECT_EQ(RunValueSequence(kSizes), first) << "run " << run;
    EXPECT_EQ(GetLargeBufferStats().mapped_bytes, mapped) << "run " << run;
  }
#endif
}

TEST(BufferAllocatorTest, FreedNeighboursMergeIntoOneRange) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "under AddressSanitizer large buffers come from its heap";
#else
  // Three adjacent 2 MiB buffers, freed middle, last, first: the 6 MiB that
  // follows must fit in their place without a new mapping.
  void* a = AllocateBuffer(2 * kMiB);
  void* b = AllocateBuffer(2 * kMiB);
  void* c = AllocateBuffer(2 * kMiB);
  const uintptr_t lowest = std::min({reinterpret_cast<uintptr_t>(a), reinterpret_cast<uintptr_t>(b),
                                     reinterpret_cast<uintptr_t>(c)});
  FreeBuffer(b, 2 * kMiB);
  FreeBuffer(c, 2 * kMiB);
  FreeBuffer(a, 2 * kMiB);
  const size_t mapped = GetLargeBufferStats().mapped_bytes;
  void* whole = AllocateBuffer(6 * kMiB);
  EXPECT_LE(reinterpret_cast<uintptr_t>(whole), lowest);
  EXPECT_EQ(GetLargeBufferStats().mapped_bytes, mapped);
  FreeBuffer(whole, 6 * kMiB);
#endif
}

TEST(BufferAllocatorTest, ValuesLargerThanASegmentGetTheirOwnMapping) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "under AddressSanitizer large buffers come from its heap";
#else
  const size_t bytes = 100 * kMiB + 4096;
  const LargeBufferStats before = GetLargeBufferStats();
  void* p = AllocateBuffer(bytes);
  static_cast<char*>(p)[bytes - 1] = 1;  // the last byte is writable
  const LargeBufferStats during = GetLargeBufferStats();
  EXPECT_EQ(during.live_bytes, before.live_bytes + bytes);
  EXPECT_GE(during.mapped_bytes, before.mapped_bytes + bytes);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (uintptr_t{2} << 20), 0u);  // huge-page aligned
  FreeBuffer(p, bytes);
  EXPECT_EQ(GetLargeBufferStats().live_bytes, before.live_bytes);
#endif
}

}  // namespace
}  // namespace hlo
