// Allocator of literal storage. Large buffers come from 2 MiB aligned mappings marked
// MADV_HUGEPAGE: on this class of machine (virtualised, THP in madvise
// mode) first-touch page faults of 4 KiB pages dominate the cost of big
// intermediate values; huge pages cut that by over an order of magnitude.
// They are carved from a few big mappings by best fit (buffer_allocator.cc),
// so freed pages serve the next request of any size. Small buffers use
// plain malloc.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <utility>

namespace hlo {

void* AllocateBuffer(size_t bytes);
void FreeBuffer(void* p, size_t bytes);

// The large-buffer heap's account (all zero under AddressSanitizer, where
// large buffers come from its heap).
struct LargeBufferStats {
  size_t mapped_bytes = 0;  // segments held from the kernel
  size_t live_bytes = 0;    // handed out and not yet freed
  size_t segments = 0;
};
LargeBufferStats GetLargeBufferStats();

// Every buffer AllocateBuffer hands out (literal storage and the kernels'
// array-sized temporaries, small and large; not the libraries' own scratch:
// OpenBLAS, oneDNN, FFTW), counted process-wide: the bytes held now and the
// most held at once since the last ResetPeakBufferBytes (which starts the
// peak at what is held then). Large buffers count their page-rounded size.
size_t BufferBytesHeld();
size_t PeakBufferBytes();
void ResetPeakBufferBytes();

template <typename T>
struct BufferAllocator {
  using value_type = T;
  BufferAllocator() = default;
  template <typename U>
  BufferAllocator(const BufferAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(AllocateBuffer(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { FreeBuffer(p, n * sizeof(T)); }
  // Value-less construction default-initialises (leaves trivial types
  // unset), so resize() of a buffer that an op overwrites completely costs
  // no serial zero-fill pass; explicit values (assign(n, 0)) still apply.
  template <typename U>
  void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) { ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...); }
  template <typename U>
  bool operator==(const BufferAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const BufferAllocator<U>&) const { return false; }
};

}  // namespace hlo
