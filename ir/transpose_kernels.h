// Cache-blocked 2-D transpose of raw elements of 1, 2, 4, 8 or 16 bytes:
// the kernel behind the `transpose` op, layout changes (Literal::Relayout)
// and every strided copy whose source and destination are contiguous along
// different dimensions (ir/strided_copy.h).
//
// The array is cut into blocks of a few cache lines by one cache line
// (64 / element_bytes elements is one line). A block is transposed in
// registers (SSE2 shuffles; AVX2 ones for 4- and 8-byte elements when the
// CPU has them) into a line-aligned scratch tile in L1, then written out
// whole destination lines at a time, so each source and destination line
// is moved once. Results are a plain copy of the bytes: the same on every CPU
// and for every split of the work.
#pragma once

#include <cstdint>

namespace hlo {

// Edge of a block in elements (64 / element_bytes; 1 for other sizes).
int64_t TransposeBlockEdge(int element_bytes);
// Source rows the kernel takes at a time (a few blocks, so that each
// destination row gets several consecutive lines per visit): a split of
// the rows at multiples of it keeps every band whole.
int64_t TransposeBandRows(int element_bytes);

// dst[c * dst_ld + r] = src[r * src_ld + c] for r in [0, rows), c in
// [0, cols): `rows` source rows (contiguous along c) become `cols`
// destination rows (contiguous along r). Strides are in elements of
// `element_bytes` (1, 2, 4, 8 or 16; other sizes copy element by element)
// and positive; the two regions must not overlap. `streaming`: the
// destination is far larger than the caches and not read again soon, so
// whole aligned lines go out with non-temporal stores (no read for
// ownership); the call ends with a store fence.
void TransposeCopy(int element_bytes, uint8_t* dst, int64_t dst_ld, const uint8_t* src,
                   int64_t src_ld, int64_t rows, int64_t cols, bool streaming);

// Which register kernels TransposeCopy uses on this CPU ("avx2", "sse2" or
// "scalar"), for benchmarks and tests.
const char* TransposeKernelIsa();

}  // namespace hlo
