// Process set-up for big modules: back the malloc heap with transparent huge
// pages. Parsing a large module allocates hundreds of MB in small pieces;
// on virtual machines each first touch of a 4 KiB page is a costly fault
// (measured: a 50 MB module parses 2x faster on 2 MiB pages). glibc
// (2.35+) can madvise its heap for THP, but only when told at start-up by
// the GLIBC_TUNABLES variable, so the tool re-executes itself once with
// `glibc.malloc.hugetlb=1` added.
#pragma once

namespace hlo {

// Re-executes the program with the tunable when it is not already set,
// THP is not disabled on the system, HLO_HUGEPAGE_HEAP is not "0", and
// either `always` is true or one of the non-flag arguments names a regular
// file of at least 8 MiB. Returns normally when it does not (or cannot)
// re-execute; on success it does not return.
void MaybeReexecWithHugePageHeap(int argc, char** argv, bool always = false);

}  // namespace hlo
