#include "backend_cpu/dot_skinny.h"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "backend_cpu/thread_pool.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

struct Case {
  bool ta, tb;
  int64_t m, n, k;
};

// A(i,p) = ta ? a[p*lda+i] : a[i*lda+p], with padding in the leading
// dimensions so strides are exercised too.
TEST(SkinnyGemmTest, MatchesDoubleReferenceAndIgnoresThreadCount) {
  const Case cases[] = {{true, false, 4100, 4, 300},  {false, false, 4100, 3, 300},
                        {false, false, 5, 3000, 401}, {false, true, 2, 2500, 513},
                        {true, true, 16, 1100, 1000}, {true, false, 1000, 1, 1100}};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const Case& t : cases) {
    SCOPED_TRACE(testing::Message() << "ta=" << t.ta << " tb=" << t.tb << " m=" << t.m
                                    << " n=" << t.n << " k=" << t.k);
    const int64_t lda = (t.ta ? t.m : t.k) + 3, ldb = (t.tb ? t.k : t.n) + 5, ldc = t.n + 2;
    std::vector<float> a((t.ta ? t.k : t.m) * lda), b((t.tb ? t.n : t.k) * ldb);
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    auto A = [&](int64_t i, int64_t p) { return t.ta ? a[p * lda + i] : a[i * lda + p]; };
    auto B = [&](int64_t p, int64_t j) { return t.tb ? b[j * ldb + p] : b[p * ldb + j]; };
    std::vector<float> c1(t.m * ldc, -7.0f), c2(t.m * ldc, -7.0f);
    SetThreadPoolWidth(1);
    ASSERT_TRUE(SkinnyGemm(t.ta, t.tb, t.m, t.n, t.k, a.data(), lda, b.data(), ldb, c1.data(), ldc));
    SetThreadPoolWidth(2);
    ASSERT_TRUE(SkinnyGemm(t.ta, t.tb, t.m, t.n, t.k, a.data(), lda, b.data(), ldb, c2.data(), ldc));
    for (int64_t i = 0; i < t.m; ++i) {
      for (int64_t j = 0; j < ldc; ++j) {
        const float got = c1[i * ldc + j];
        ASSERT_EQ(got, c2[i * ldc + j]) << "threads changed C(" << i << "," << j << ")";
        if (j >= t.n) {
          ASSERT_EQ(got, -7.0f) << "wrote past C's columns";
          continue;
        }
        double want = 0;
        for (int64_t p = 0; p < t.k; ++p) want += static_cast<double>(A(i, p)) * B(p, j);
        ASSERT_NEAR(got, want, 1e-4 * std::sqrt(static_cast<double>(t.k))) << i << "," << j;
      }
    }
  }
}

TEST(SkinnyGemmTest, LeavesSquareNarrowAndSmallModeratelySkinnyProductsToGemm) {
  std::vector<float> a(64 * 64, 1), b(64 * 64, 1), c(64 * 64, 0);
  EXPECT_FALSE(SkinnyGemm(false, false, 64, 64, 64, a.data(), 64, b.data(), 64, c.data(), 64));
  // 16 rows of C and a small large operand: GEMM is as fast.
  EXPECT_FALSE(SkinnyGemm(false, false, 16, 64, 64, a.data(), 64, b.data(), 64, c.data(), 64));
  // Both sides narrow (a classifier head, 8 x 10 over a long k): GEMM.
  std::vector<float> x(8 * 8192, 1), w(8192 * 10, 1), y(8 * 10, 0);
  EXPECT_FALSE(SkinnyGemm(false, false, 8, 10, 8192, x.data(), 8192, w.data(), 10, y.data(), 10));
  std::vector<float> wt(48 * 8192, 1), yt(2 * 48, 0);
  EXPECT_FALSE(SkinnyGemm(false, true, 2, 48, 8192, x.data(), 8192, wt.data(), 8192, yt.data(), 48));
}

TEST(SkinnyGemmTest, StreamsSmallProductsWithFewRowsOrColumns) {
  // 4 x 64 x 64 (a decode step's shape, small): streamed, in order over k.
  std::vector<float> a(4 * 64), b(64 * 64), c(4 * 64, -1);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 5);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 3);
  ASSERT_TRUE(SkinnyGemm(false, false, 4, 64, 64, a.data(), 64, b.data(), 64, c.data(), 64));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 64; ++j) {
      float want = 0;
      for (int64_t p = 0; p < 64; ++p) want += a[i * 64 + p] * b[p * 64 + j];
      ASSERT_EQ(c[i * 64 + j], want) << i << "," << j;
    }
}

// A KV cache laid out [seq, batches, dim] (rows of every batch side by
// side): InterleavedBatchGemv gives, at 1 and 2 threads, the bits of
// SkinnyGemm on each batch's strided matrix, both for q.K^T (tb: rows
// along k) and p.V (rows along n), including tails of the 16-wide loops.
TEST(SkinnyGemmTest, InterleavedBatchesGiveEachBatchsSkinnyBits) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-1, 1);
  struct Shape { bool tb; int64_t batches, n, k, pad; };
  for (const Shape& t : {Shape{true, 48, 128, 64, 0}, Shape{true, 3, 70, 37, 5}, Shape{false, 48, 64, 128, 0},
                         Shape{false, 5, 100, 301, 3}, Shape{false, 2, 1030, 9, 0}}) {
    SCOPED_TRACE(testing::Message() << "tb=" << t.tb << " batches=" << t.batches << " n=" << t.n
                                    << " k=" << t.k);
    const int64_t row = t.tb ? t.k : t.n;       // one batch's row
    const int64_t bstride = row + t.pad;        // batches side by side
    const int64_t ld = t.batches * bstride + 1;  // one row of every batch
    const int64_t rows = t.tb ? t.n : t.k;
    std::vector<float> big(rows * ld), a(t.batches * t.k);
    for (float& x : big) x = dist(rng);
    for (float& x : a) x = dist(rng);
    std::vector<float> want(t.batches * t.n);
    for (int64_t b = 0; b < t.batches; ++b)
      ASSERT_TRUE(SkinnyGemm(false, t.tb, 1, t.n, t.k, a.data() + b * t.k, t.k, big.data() + b * bstride, ld,
                             want.data() + b * t.n, t.n));
    for (int width : {1, 2}) {
      SetThreadPoolWidth(width);
      std::vector<float> got(t.batches * t.n, -7.0f);
      ASSERT_TRUE(InterleavedBatchGemv(t.batches, t.tb, t.n, t.k, a.data(), big.data(), bstride, ld, got.data()));
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(float)), 0) << "width " << width << " at " << i;
    }
  }
  std::vector<float> c(64);
  const std::vector<float> a(64), big(64 * 64);
  EXPECT_FALSE(InterleavedBatchGemv(1, true, 64, 1, a.data(), big.data(), 1, 64, c.data()));   // one batch
  EXPECT_FALSE(InterleavedBatchGemv(2, true, 63, 1, a.data(), big.data(), 1, 64, c.data()));   // narrow
  EXPECT_FALSE(InterleavedBatchGemv(2, false, 64, 1, a.data(), big.data(), 40, 64, c.data()));  // not side by side
}

}  // namespace
}  // namespace hlo::cpu
