// Allocator of literal storage. Large buffers are 2 MiB aligned and marked
// MADV_HUGEPAGE: on this class of machine (virtualised, THP in madvise
// mode) first-touch page faults of 4 KiB pages dominate the cost of big
// intermediate values; huge pages cut that by over an order of magnitude.
// Small buffers use plain malloc.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

namespace hlo {

void* AllocateBuffer(size_t bytes);
void FreeBuffer(void* p, size_t bytes);

template <typename T>
struct BufferAllocator {
  using value_type = T;
  BufferAllocator() = default;
  template <typename U>
  BufferAllocator(const BufferAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(AllocateBuffer(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { FreeBuffer(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const BufferAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const BufferAllocator<U>&) const { return false; }
};

}  // namespace hlo
