// Process set-up of the heap. Release builds link mimalloc (HLO_HAVE_MIMALLOC;
// CMake option HLO_USE_MIMALLOC): it replaces malloc/new for the whole
// process, and is about 1.5x faster than glibc's malloc at the millions of
// small objects a big module is parsed into.
//
// mimalloc can also back its heap with 2 MiB pages. That is off by default:
// on this class of virtual machine (transparent huge pages in `madvise`
// mode with direct compaction) hlo-opt on a 50 MB module took 0.58 to 1.30 s
// with them and a steady 0.72 to 1.00 s without (docs/performance.md).
// HLO_HUGEPAGE_HEAP=1 turns them on.
#pragma once

namespace hlo {

// Switches mimalloc's large OS pages on when HLO_HUGEPAGE_HEAP=1 and
// transparent huge pages are not disabled on the system. No effect in a
// build without mimalloc.
void ConfigureHeap();

// "mimalloc" or "glibc": the allocator this program runs on.
const char* HeapAllocatorName();

}  // namespace hlo
