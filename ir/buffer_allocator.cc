#include "ir/buffer_allocator.h"

#include <sys/mman.h>

namespace hlo {
namespace {
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeThreshold = size_t{1} << 20;
}  // namespace

void* AllocateBuffer(size_t bytes) {
  if (bytes < kHugeThreshold) {
    void* p = std::malloc(bytes == 0 ? 1 : bytes);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
  madvise(p, rounded, MADV_HUGEPAGE);  // a hint: failure only costs speed
  return p;
}

void FreeBuffer(void* p, size_t) { std::free(p); }

}  // namespace hlo
