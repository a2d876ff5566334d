#include "ir/buffer_allocator.h"

#include <sys/mman.h>

#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace hlo {
namespace {
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeThreshold = size_t{1} << 20;

// Freed large buffers kept for reuse by a request of the same rounded size.
// A program that runs a module repeatedly (hlo-run --iterations, the
// benchmarks, while loops) would otherwise get a fresh mapping for every
// big value and pay the kernel's page faults and zeroing each time. The
// cache is bounded; beyond the bound buffers go back to the system.
class LargeBufferCache {
 public:
  static LargeBufferCache& Get() {
    static auto* cache = new LargeBufferCache();  // never destroyed: used until exit
    return *cache;
  }
  void* Take(size_t rounded) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].first != rounded) continue;
      void* p = entries_[i].second;
      entries_[i] = entries_.back();
      entries_.pop_back();
      cached_bytes_ -= rounded;
      return p;
    }
    return nullptr;
  }
  bool Keep(void* p, size_t rounded) {
    std::lock_guard<std::mutex> lock(mu_);
    if (entries_.size() >= kMaxEntries || cached_bytes_ + rounded > kMaxBytes) return false;
    entries_.emplace_back(rounded, p);
    cached_bytes_ += rounded;
    return true;
  }

 private:
#if defined(__SANITIZE_ADDRESS__)
  static constexpr size_t kMaxEntries = 0;  // keep AddressSanitizer's use-after-free checks
#else
  static constexpr size_t kMaxEntries = 16;
#endif
  static constexpr size_t kMaxBytes = size_t{1} << 30;
  std::mutex mu_;
  std::vector<std::pair<size_t, void*>> entries_;
  size_t cached_bytes_ = 0;
};

// Sizes are rounded to whole small pages, not huge ones: the start is 2 MiB
// aligned, so every whole 2 MiB of the buffer can be a huge page, while its
// tail stays in small pages. Rounding the size up to 2 MiB made the kernel
// back the tail with a whole huge page once touched: a 2.4 MB weight took
// 4 MB of resident memory (gpt2 decode step: 339 MB resident for 228 MB of
// inputs and outputs, docs/performance.md).
constexpr size_t kSmallPage = 4096;
size_t RoundToPage(size_t bytes) { return (bytes + kSmallPage - 1) / kSmallPage * kSmallPage; }

#if defined(__SANITIZE_ADDRESS__)
// Under AddressSanitizer large buffers stay on its heap, so that overflows
// and uses after free are still caught.
// (posix_memalign: aligned_alloc wants the size to be a multiple of the
// alignment, which page-rounded sizes are not.)
void* MapLarge(size_t rounded) {
  void* p = nullptr;
  return posix_memalign(&p, kHugePage, rounded) == 0 ? p : nullptr;
}
void UnmapLarge(void* p, size_t) { std::free(p); }
#else
// Large buffers come straight from the kernel, not from malloc: the kernel's
// overcommit check then refuses a request no machine could hold (a value of
// hundreds of GB) with a clean "out of memory", whatever allocator the
// program runs on (mimalloc reserves address space with MAP_NORESERVE,
// which skips that check and leaves the failure to the OOM killer).
void* MapLarge(size_t rounded) {
  // Over-map by one huge page and trim, for a 2 MiB aligned start.
  const size_t span = rounded + kHugePage;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) munmap(raw, aligned - start);
  const uintptr_t end = start + span;
  if (end > aligned + rounded) munmap(reinterpret_cast<void*>(aligned + rounded), end - aligned - rounded);
  return reinterpret_cast<void*>(aligned);
}
void UnmapLarge(void* p, size_t rounded) { munmap(p, rounded); }
#endif

}  // namespace

void* AllocateBuffer(size_t bytes) {
  if (bytes < kHugeThreshold) {
    void* p = std::malloc(bytes == 0 ? 1 : bytes);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  const size_t rounded = RoundToPage(bytes);
  if (rounded < bytes) throw std::bad_alloc();  // size_t overflow
  if (void* cached = LargeBufferCache::Get().Take(rounded)) return cached;
  void* p = MapLarge(rounded);
  if (p == nullptr) throw std::bad_alloc();
  madvise(p, rounded, MADV_HUGEPAGE);  // a hint: failure only costs speed
  return p;
}

void FreeBuffer(void* p, size_t bytes) {
  if (p == nullptr) return;
  if (bytes < kHugeThreshold) {
    std::free(p);
    return;
  }
  const size_t rounded = RoundToPage(bytes);
  if (LargeBufferCache::Get().Keep(p, rounded)) return;
  UnmapLarge(p, rounded);
}

}  // namespace hlo
