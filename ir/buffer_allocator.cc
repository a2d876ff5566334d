#include "ir/buffer_allocator.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace hlo {
namespace {
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeThreshold = size_t{1} << 20;

// Sizes are rounded to whole small pages, not huge ones: segments start 2
// MiB aligned, so their whole 2 MiB spans can be huge pages, while the
// tail of a segment sized for one big value stays in small pages (and a
// value inside a shared segment leaves the rest of its huge page to its
// neighbours). Rounding sizes up to 2 MiB made the kernel
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


#if !defined(__SANITIZE_ADDRESS__)
// Large buffers are carved from segments (big kernel mappings) by best
// fit, and freed ranges go back to their segment, merged with free
// neighbours. A run that frees a value before the next one is made reuses
// its pages whatever the sizes: resident memory follows the peak of live
// values (resnet34's block: 24.6 MB of segment pages for 19.4 MB of
// inputs and live values), where a cache of freed buffers by exact size
// kept every size a run had ever used (92 -> 55 MB resident there). Runs that
// repeat the same requests (hlo-run --iterations, while loops, services)
// get the same addresses back, so pages are faulted in once. A segment with
// nothing in it is kept while idle segments stay under kMaxIdleBytes.
class LargeBufferHeap {
 public:
  static LargeBufferHeap& Get() {
    static auto* heap = new LargeBufferHeap();  // never destroyed: used until exit
    return *heap;
  }

  void* Allocate(size_t rounded) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& segment : segments_) {
      if (void* p = segment.Carve(rounded)) return Track(rounded, p);
    }
    const size_t segment_bytes = rounded > kSegmentBytes ? rounded : kSegmentBytes;
    void* base = MapLarge(segment_bytes);
    if (base == nullptr) return nullptr;
    madvise(base, segment_bytes, MADV_HUGEPAGE);  // a hint: failure only costs speed
    segments_.emplace_back(reinterpret_cast<uintptr_t>(base), segment_bytes);
    mapped_bytes_ += segment_bytes;
    return Track(rounded, segments_.back().Carve(rounded));
  }

  void Free(void* p, size_t rounded) {
    std::lock_guard<std::mutex> lock(mu_);
    const uintptr_t at = reinterpret_cast<uintptr_t>(p);
    for (size_t i = 0; i < segments_.size(); ++i) {
      Segment& segment = segments_[i];
      if (at < segment.base || at >= segment.base + segment.bytes) continue;
      segment.Return(at, rounded);
      live_bytes_ -= rounded;
      if (segment.used == 0) ReleaseIfTooManyIdle(i);
      return;
    }
  }

  LargeBufferStats Stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return {mapped_bytes_, live_bytes_, segments_.size()};
  }

 private:
  static constexpr size_t kSegmentBytes = size_t{64} << 20;
  static constexpr size_t kMaxIdleBytes = size_t{1} << 30;

  struct Segment {
    Segment(uintptr_t b, size_t n) : base(b), bytes(n) { free_ranges.emplace(b, n); }
    // Best fit: the smallest free range that holds `rounded` (the lowest
    // of equals), so big free ranges stay whole for big values.
    void* Carve(size_t rounded) {
      auto best = free_ranges.end();
      for (auto it = free_ranges.begin(); it != free_ranges.end(); ++it) {
        if (it->second >= rounded && (best == free_ranges.end() || it->second < best->second)) best = it;
      }
      if (best == free_ranges.end()) return nullptr;
      const uintptr_t at = best->first;
      const size_t rest = best->second - rounded;
      free_ranges.erase(best);
      if (rest > 0) free_ranges.emplace(at + rounded, rest);
      used += rounded;
      return reinterpret_cast<void*>(at);
    }
    void Return(uintptr_t at, size_t rounded) {
      used -= rounded;
      auto next = free_ranges.lower_bound(at);
      size_t length = rounded;
      if (next != free_ranges.end() && next->first == at + length) {
        length += next->second;
        next = free_ranges.erase(next);
      }
      if (next != free_ranges.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == at) {
          prev->second += length;
          return;
        }
      }
      free_ranges.emplace(at, length);
    }
    uintptr_t base;
    size_t bytes;
    size_t used = 0;
    std::map<uintptr_t, size_t> free_ranges;  // start -> length
  };

  void* Track(size_t rounded, void* p) {
    live_bytes_ += rounded;
    return p;
  }

  // Unmaps the segment that just became idle when idle segments hold more
  // than kMaxIdleBytes, so a process that once ran a huge module does not
  // keep all of it.
  void ReleaseIfTooManyIdle(size_t just_emptied) {
    size_t idle = 0;
    for (const Segment& segment : segments_) idle += segment.used == 0 ? segment.bytes : 0;
    if (idle <= kMaxIdleBytes) return;
    Segment& segment = segments_[just_emptied];
    UnmapLarge(reinterpret_cast<void*>(segment.base), segment.bytes);
    mapped_bytes_ -= segment.bytes;
    segments_.erase(segments_.begin() + just_emptied);
  }

  std::mutex mu_;
  std::deque<Segment> segments_;  // in the order they were mapped: older ones are tried first
  size_t mapped_bytes_ = 0;
  size_t live_bytes_ = 0;
};
#endif

}  // namespace

namespace {
std::atomic<size_t> g_held_bytes{0};
std::atomic<size_t> g_peak_bytes{0};

void NoteHeld(size_t bytes) {
  const size_t now = g_held_bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  size_t peak = g_peak_bytes.load(std::memory_order_relaxed);
  while (now > peak && !g_peak_bytes.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}
void NoteReleased(size_t bytes) { g_held_bytes.fetch_sub(bytes, std::memory_order_relaxed); }
}  // namespace

size_t BufferBytesHeld() { return g_held_bytes.load(std::memory_order_relaxed); }
size_t PeakBufferBytes() { return g_peak_bytes.load(std::memory_order_relaxed); }
void ResetPeakBufferBytes() {
  g_peak_bytes.store(g_held_bytes.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

void* AllocateBuffer(size_t bytes) {
  if (bytes < kHugeThreshold) {
    void* p = std::malloc(bytes == 0 ? 1 : bytes);
    if (p == nullptr) throw std::bad_alloc();
    NoteHeld(bytes);
    return p;
  }
  const size_t rounded = RoundToPage(bytes);
  if (rounded < bytes) throw std::bad_alloc();  // size_t overflow
#if defined(__SANITIZE_ADDRESS__)
  void* p = MapLarge(rounded);
#else
  void* p = LargeBufferHeap::Get().Allocate(rounded);
#endif
  if (p == nullptr) throw std::bad_alloc();
  NoteHeld(rounded);
  return p;
}

LargeBufferStats GetLargeBufferStats() {
#if defined(__SANITIZE_ADDRESS__)
  return {};
#else
  return LargeBufferHeap::Get().Stats();
#endif
}

void FreeBuffer(void* p, size_t bytes) {
  if (p == nullptr) return;
  if (bytes < kHugeThreshold) {
    std::free(p);
    NoteReleased(bytes);
    return;
  }
  const size_t rounded = RoundToPage(bytes);
  NoteReleased(rounded);
#if defined(__SANITIZE_ADDRESS__)
  UnmapLarge(p, rounded);
#else
  LargeBufferHeap::Get().Free(p, rounded);
#endif
}

}  // namespace hlo
