// Process set-up of the heap for big modules. Parsing a large module
// allocates hundreds of MB in small pieces; on virtual machines each first
// touch of a 4 KiB page is a costly fault (measured: a 50 MB module parses
// about 1.5x faster on 2 MiB pages, docs/performance.md).
//
// Release builds link mimalloc (HLO_HAVE_MIMALLOC; CMake option
// HLO_USE_MIMALLOC): it replaces malloc/new for the whole process, and its
// large-OS-page option is switched on here at run time. Builds without it
// (sanitizers, fuzzing, -DHLO_USE_MIMALLOC=OFF) fall back to glibc's own
// huge-page heap, which glibc only reads from the GLIBC_TUNABLES variable at
// start-up: the program re-executes itself once with
// `glibc.malloc.hugetlb=1` added.
#pragma once

namespace hlo {

// Sets the heap up for huge pages when THP is not disabled on the system,
// HLO_HUGEPAGE_HEAP is not "0", and either `always` is true or one of the
// non-flag arguments names a regular file of at least 8 MiB. Without
// mimalloc this may re-execute the program (and then does not return).
void ConfigureHeapForInput(int argc, char** argv, bool always = false);

// "mimalloc" or "glibc": the allocator this program runs on.
const char* HeapAllocatorName();

}  // namespace hlo
