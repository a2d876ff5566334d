#include "ir/transpose_kernels.h"

#include <cstring>

#include "ir/transpose_kernels_internal.h"

namespace hlo {
namespace {

using transpose_internal::BlockedTranspose;
using transpose_internal::MicroScalar;
using transpose_internal::ScalarRegion;

// AVX2 is chosen by a run-time check, not by ifunc clones: a plain branch
// also works under ThreadSanitizer (whose runtime is not up yet when ifunc
// resolvers run).
bool UseAvx2() {
#if defined(__x86_64__) && defined(__GNUC__) && defined(__SSE2__)
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return has;
#else
  return false;
#endif
}

}  // namespace

int64_t TransposeBlockEdge(int element_bytes) {
  switch (element_bytes) {
    case 1: case 2: case 4: case 8: case 16: return transpose_internal::kLine / element_bytes;
    default: return 1;
  }
}

int64_t TransposeBandRows(int element_bytes) {
  switch (element_bytes) {
    case 1: return transpose_internal::LinesPerVisit<1>() * 64;
    case 2: return transpose_internal::LinesPerVisit<2>() * 32;
    case 4: return transpose_internal::LinesPerVisit<4>() * 16;
    case 8: return transpose_internal::LinesPerVisit<8>() * 8;
    case 16: return transpose_internal::LinesPerVisit<16>() * 4;
    default: return 1;
  }
}

const char* TransposeKernelIsa() {
#if defined(__SSE2__)
  return UseAvx2() ? "avx2" : "sse2";
#else
  return "scalar";
#endif
}

void TransposeCopy(int eb, uint8_t* dst, int64_t dst_ld, const uint8_t* src, int64_t src_ld,
                   int64_t rows, int64_t cols, bool streaming) {
  if (rows <= 0 || cols <= 0) return;
#if defined(__SSE2__)
  if ((eb == 4 || eb == 8) && UseAvx2())
    return transpose_internal::TransposeCopyAvx2(eb, dst, dst_ld, src, src_ld, rows, cols,
                                                 streaming);
  using transpose_internal::MicroSse2U128;
  using transpose_internal::MicroSse2U16;
  using transpose_internal::MicroSse2U32;
  using transpose_internal::MicroSse2U64;
  using transpose_internal::MicroSse2U8;
  switch (eb) {
    case 1: return BlockedTranspose<1, MicroSse2U8>(dst, dst_ld, src, src_ld, rows, cols, streaming);
    case 2: return BlockedTranspose<2, MicroSse2U16>(dst, dst_ld, src, src_ld, rows, cols, streaming);
    case 4: return BlockedTranspose<4, MicroSse2U32>(dst, dst_ld, src, src_ld, rows, cols, streaming);
    case 8: return BlockedTranspose<8, MicroSse2U64>(dst, dst_ld, src, src_ld, rows, cols, streaming);
    case 16: return BlockedTranspose<16, MicroSse2U128>(dst, dst_ld, src, src_ld, rows, cols, streaming);
    default: break;
  }
#else
  switch (eb) {
    case 1: return BlockedTranspose<1, MicroScalar<1>>(dst, dst_ld, src, src_ld, rows, cols, streaming);
    case 2: return BlockedTranspose<2, MicroScalar<2>>(dst, dst_ld, src, src_ld, rows, cols, streaming);
    case 4: return BlockedTranspose<4, MicroScalar<4>>(dst, dst_ld, src, src_ld, rows, cols, streaming);
    case 8: return BlockedTranspose<8, MicroScalar<8>>(dst, dst_ld, src, src_ld, rows, cols, streaming);
    case 16: return BlockedTranspose<16, MicroScalar<16>>(dst, dst_ld, src, src_ld, rows, cols, streaming);
    default: break;
  }
#endif
  // Other element sizes: byte copies per element.
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(dst + (c * dst_ld + r) * eb, src + (r * src_ld + c) * eb,
                  static_cast<size_t>(eb));
}

}  // namespace hlo
