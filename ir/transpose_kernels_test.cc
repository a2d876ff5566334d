// The blocked transpose kernel and StridedCopy against naive element loops:
// every element size, odd sizes (partial blocks), leading dims larger than
// the extents, streaming stores, every permutation of ranks 2-4, splits of
// the work in any order, and Literal::Relayout between untiled and tiled
// layouts.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "ir/literal.h"
#include "ir/strided_copy.h"
#include "ir/transpose_kernels.h"

namespace hlo {
namespace {

// Distinct, deterministic bytes (no two neighbouring elements alike).
void FillBytes(uint8_t* p, size_t n, uint32_t seed) {
  uint32_t s = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<uint8_t>(s >> 24);
  }
}

// A 64-byte aligned buffer (the streaming path needs aligned lines).
struct Buffer {
  explicit Buffer(size_t n) : raw(n + 64) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(raw.data());
    data = raw.data() + (64 - a % 64) % 64;
  }
  std::vector<uint8_t> raw;
  uint8_t* data;
};

void CheckTranspose(int eb, int64_t rows, int64_t cols, int64_t src_ld, int64_t dst_ld,
                    bool streaming, size_t dst_offset = 0) {
  Buffer src(static_cast<size_t>(rows * src_ld * eb));
  const size_t dst_bytes = static_cast<size_t>(cols * dst_ld * eb) + dst_offset;
  Buffer got(dst_bytes), want(dst_bytes);
  FillBytes(src.data, src.raw.size() - 64, static_cast<uint32_t>(rows * 31 + cols + eb));
  // Bytes between the rows (ld > extent) must stay as they were.
  std::memset(got.data, 0xA5, dst_bytes);
  std::memset(want.data, 0xA5, dst_bytes);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(want.data + dst_offset + (c * dst_ld + r) * eb, src.data + (r * src_ld + c) * eb,
                  eb);
  TransposeCopy(eb, got.data + dst_offset, dst_ld, src.data, src_ld, rows, cols, streaming);
  ASSERT_EQ(std::memcmp(got.data, want.data, dst_bytes), 0)
      << "eb=" << eb << " rows=" << rows << " cols=" << cols << " src_ld=" << src_ld
      << " dst_ld=" << dst_ld << " streaming=" << streaming << " offset=" << dst_offset;
}

TEST(TransposeKernel, EveryElementSizeAndShape) {
  for (int eb : {1, 2, 4, 8, 16, 3, 12}) {
    const int64_t edge = TransposeBlockEdge(eb);
    for (int64_t rows : {int64_t{1}, int64_t{7}, edge, edge + 1, 2 * edge + 3, int64_t{70},
                         5 * edge + 3}) {
      for (int64_t cols : {int64_t{1}, int64_t{5}, edge, 3 * edge - 1, int64_t{67}}) {
        for (bool streaming : {false, true}) {
          CheckTranspose(eb, rows, cols, cols, rows, streaming);
          CheckTranspose(eb, rows, cols, cols + 3, rows + 5, streaming);  // padded rows
        }
      }
    }
  }
}

TEST(TransposeKernel, StreamingAlignedAndNot) {
  // Destination rows a whole number of lines (non-temporal stores) and
  // not, destination start aligned and not: same bytes either way.
  for (int eb : {1, 2, 4, 8, 16}) {
    const int64_t edge = TransposeBlockEdge(eb);
    for (size_t offset : {size_t{0}, static_cast<size_t>(eb)}) {
      CheckTranspose(eb, 4 * edge, 3 * edge, 3 * edge, 4 * edge, true, offset);
      CheckTranspose(eb, 4 * edge, 3 * edge + 2, 3 * edge + 2, 4 * edge + 1, true, offset);
    }
  }
}

TEST(TransposeKernel, ReportsIsa) {
  const std::string isa = TransposeKernelIsa();
  EXPECT_TRUE(isa == "avx2" || isa == "sse2" || isa == "scalar") << isa;
}

// A runner that calls the blocks in reverse order, as threads might finish.
void ReverseRunner(int64_t n, int64_t min_block, absl::FunctionRef<void(int64_t, int64_t)> fn) {
  const int64_t block = std::max<int64_t>(1, min_block);
  for (int64_t end = n; end > 0; end -= block) fn(std::max<int64_t>(0, end - block), end);
}

// Copies a row-major array of `dims` into the row-major array of the
// permuted dims (result dim i = operand dim perm[i]) with StridedCopy, and
// element by element; compares the bytes (serial and split runs).
void CheckPermutation(int eb, const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> in_strides(rank, 1);
  for (int64_t i = rank - 2; i >= 0; --i) in_strides[i] = in_strides[i + 1] * dims[i + 1];
  std::vector<int64_t> out_dims(rank), src_strides(rank), out_strides(rank, 1);
  for (int64_t i = 0; i < rank; ++i) {
    out_dims[i] = dims[perm[i]];
    src_strides[i] = in_strides[perm[i]];
  }
  for (int64_t i = rank - 2; i >= 0; --i) out_strides[i] = out_strides[i + 1] * out_dims[i + 1];
  const int64_t n = std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
  std::vector<uint8_t> src(static_cast<size_t>(n * eb)), want(src.size());
  FillBytes(src.data(), src.size(), static_cast<uint32_t>(n + eb));
  std::vector<int64_t> idx(rank, 0);
  for (int64_t k = 0; k < n; ++k) {  // k: row-major index of the result
    int64_t off = 0;
    for (int64_t i = 0; i < rank; ++i) off += idx[i] * src_strides[i];
    std::memcpy(want.data() + k * eb, src.data() + off * eb, eb);
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++idx[i] < out_dims[i]) break;
      idx[i] = 0;
    }
  }
  const StridedCopy plan(eb, out_dims, out_strides, src_strides);
  std::vector<uint8_t> got(src.size(), 0);
  plan.Run(got.data(), src.data());
  ASSERT_EQ(got, want) << "eb=" << eb << " rank=" << rank;
  std::vector<uint8_t> split(src.size(), 0);
  plan.RunParallel(split.data(), src.data(), ReverseRunner);
  ASSERT_EQ(split, want) << "eb=" << eb << " rank=" << rank << " (split)";
}

TEST(StridedCopy, EveryPermutationOfRanksTwoToFour) {
  const std::vector<std::vector<int64_t>> shapes = {
      {37, 45}, {17, 1, 33}, {9, 20, 19}, {3, 18, 5, 21}, {16, 16, 2, 16}};
  for (const std::vector<int64_t>& dims : shapes) {
    std::vector<int64_t> perm(dims.size());
    std::iota(perm.begin(), perm.end(), 0);
    do {
      for (int eb : {1, 2, 4, 8, 16})
        ASSERT_NO_FATAL_FAILURE(CheckPermutation(eb, dims, perm));
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

TEST(StridedCopy, Rank5AndLargeStreaming) {
  CheckPermutation(4, {3, 4, 5, 6, 7}, {4, 2, 0, 3, 1});
  CheckPermutation(2, {2, 33, 3, 40, 2}, {3, 0, 4, 1, 2});
  // Over 16 MiB of destination: the non-temporal store path, in blocks.
  CheckPermutation(4, {2100, 2100}, {1, 0});
  EXPECT_TRUE(StridedCopy(4, {2100, 2100}, {2100, 1}, {1, 2100}).transposing());
}

// Relayout between untiled and tiled layouts, checked by logical index.
Layout MakeLayout(std::vector<int64_t> m2m, std::vector<std::vector<int64_t>> tiles = {}) {
  Layout l;
  l.minor_to_major.assign(m2m.begin(), m2m.end());
  for (auto& t : tiles) l.tiles.push_back(Tile{t});
  return l;
}

void CheckRelayout(PrimitiveType type, const std::vector<int64_t>& dims, const Layout& from,
                   const Layout& to) {
  Shape shape = Shape::Array(type, dims);
  shape.set_layout(from);
  Literal src(shape);
  FillBytes(src.data(), src.size_bytes(), static_cast<uint32_t>(src.size_bytes()));
  const Literal dst = src.Relayout(to);
  const Literal split = src.Relayout(to, ReverseRunner);
  ASSERT_EQ(dst.shape().layout(), to);
  const int eb = src.element_bytes();
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> idx(rank, 0);
  const int64_t n = shape.ElementCount();
  for (int64_t k = 0; k < n; ++k) {
    const uint8_t* want = src.data() + src.Slot(idx) * eb;
    ASSERT_EQ(std::memcmp(dst.data() + dst.Slot(idx) * eb, want, eb), 0) << k;
    ASSERT_EQ(std::memcmp(split.data() + split.Slot(idx) * eb, want, eb), 0) << k;
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++idx[i] < dims[i]) break;
      idx[i] = 0;
    }
  }
  EXPECT_TRUE(dst.LogicallyEqual(src));
}

TEST(StridedCopy, RelayoutUntiledAndTiled) {
  using PT = PrimitiveType;
  for (PT t : {PT::S8, PT::S16, PT::F32, PT::F64, PT::C128, PT::PRED, PT::S4}) {
    CheckRelayout(t, {37, 45}, MakeLayout({1, 0}), MakeLayout({0, 1}));
    CheckRelayout(t, {5, 33, 19}, MakeLayout({2, 1, 0}), MakeLayout({0, 2, 1}));
    CheckRelayout(t, {5, 33, 19}, MakeLayout({1, 0, 2}), MakeLayout({2, 0, 1}));
    CheckRelayout(t, {37, 45}, MakeLayout({1, 0}), MakeLayout({1, 0}, {{8, 16}}));
    CheckRelayout(t, {37, 45}, MakeLayout({0, 1}, {{4, 4}}), MakeLayout({1, 0}));
    CheckRelayout(t, {9, 130}, MakeLayout({0, 1}), MakeLayout({1, 0}, {{8, 128}, {2, 1}}));
  }
}

}  // namespace
}  // namespace hlo
