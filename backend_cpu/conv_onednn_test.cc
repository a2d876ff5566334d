// The oneDNN convolution path (conv_onednn.h), called directly: results
// against a reference loop written from the spec, the cases it must decline,
// the implementation it picks for the benchmark shape, and bit-identical
// results across thread counts. linalg_test.cc covers the same path end to
// end through hlo-run's executor (every f32 convolution it can express).
#include "backend_cpu/conv_onednn.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "backend_cpu/onednn_loader.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

// A problem in canonical layouts: input [N][C][spatial...], kernel
// [O][C/G][k...], output [N][O][out...], all row-major.
OneDnnConvProblem Canonical(int64_t n, int64_t c, int64_t o, int64_t g, std::vector<int64_t> in,
                            std::vector<int64_t> k, std::vector<int64_t> stride,
                            std::vector<int64_t> dilation, std::vector<int64_t> lo,
                            std::vector<int64_t> hi) {
  OneDnnConvProblem p;
  const size_t ns = in.size();
  p.batch = n;
  p.in_features = c;
  p.out_features = o;
  p.groups = g;
  p.in_spatial = in;
  p.kernel_spatial = k;
  p.stride = stride;
  p.dilation = dilation;
  p.padding_low = lo;
  p.padding_high = hi;
  for (size_t d = 0; d < ns; ++d) {
    const int64_t span = (k[d] - 1) * dilation[d] + 1;
    p.out_spatial.push_back((in[d] + lo[d] + hi[d] - span) / stride[d] + 1);
  }
  auto row_major = [](const std::vector<int64_t>& dims) {
    std::vector<int64_t> s(dims.size(), 1);
    for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
    return s;
  };
  std::vector<int64_t> idims = {n, c}, kdims = {o, c / g}, odims = {n, o};
  idims.insert(idims.end(), in.begin(), in.end());
  kdims.insert(kdims.end(), k.begin(), k.end());
  odims.insert(odims.end(), p.out_spatial.begin(), p.out_spatial.end());
  const auto is = row_major(idims), ks = row_major(kdims), os = row_major(odims);
  p.in_batch_stride = is[0];
  p.in_feature_stride = is[1];
  p.kernel_out_stride = ks[0];
  p.kernel_in_stride = ks[1];
  p.out_batch_stride = os[0];
  p.out_feature_stride = os[1];
  p.in_spatial_strides.assign(is.begin() + 2, is.end());
  p.kernel_spatial_strides.assign(ks.begin() + 2, ks.end());
  p.out_spatial_strides.assign(os.begin() + 2, os.end());
  return p;
}

int64_t Count(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t x : v) n *= x;
  return n;
}

// Reference convolution (XLA's semantics: out[b][o][q] = sum over c in o's
// group and window k of in[b][c][q*stride - lo + k*dilation] * w[o][c][k],
// out-of-range input reading as 0), accumulated in double, stored at the
// problem's output strides.
std::vector<double> Reference(const OneDnnConvProblem& p, const std::vector<float>& in,
                              const std::vector<float>& w) {
  const size_t ns = p.in_spatial.size();
  const int64_t cg = p.in_features / p.groups, og = p.out_features / p.groups;
  const int64_t P = Count(p.out_spatial), K = Count(p.kernel_spatial);
  std::vector<double> out(p.batch * p.out_features * P);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t o = 0; o < p.out_features; ++o)
      for (int64_t q = 0; q < P; ++q) {
        double sum = 0;
        for (int64_t c = 0; c < cg; ++c)
          for (int64_t kk = 0; kk < K; ++kk) {
            int64_t qr = q, kr = kk, ioff = 0, koff = 0;
            bool inside = true;
            for (int64_t d = static_cast<int64_t>(ns) - 1; d >= 0; --d) {
              const int64_t qd = qr % p.out_spatial[d], kd = kr % p.kernel_spatial[d];
              qr /= p.out_spatial[d];
              kr /= p.kernel_spatial[d];
              const int64_t i = qd * p.stride[d] - p.padding_low[d] + kd * p.dilation[d];
              if (i < 0 || i >= p.in_spatial[d]) inside = false;
              ioff += i * p.in_spatial_strides[d];
              koff += kd * p.kernel_spatial_strides[d];
            }
            if (!inside) continue;
            const int64_t ch = (o / og) * cg + c;
            sum += static_cast<double>(in[b * p.in_batch_stride + ch * p.in_feature_stride + ioff]) *
                   w[o * p.kernel_out_stride + c * p.kernel_in_stride + koff];
          }
        int64_t ooff = b * p.out_batch_stride + o * p.out_feature_stride, qr = q;
        for (int64_t d = static_cast<int64_t>(ns) - 1; d >= 0; --d) {
          ooff += (qr % p.out_spatial[d]) * p.out_spatial_strides[d];
          qr /= p.out_spatial[d];
        }
        out[ooff] = sum;
      }
  return out;
}

std::vector<float> Random(int64_t n, std::mt19937* rng) {
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = u(*rng);
  return v;
}

void CheckAgainstReference(const OneDnnConvProblem& p, uint32_t seed) {
  std::mt19937 rng(seed);
  const std::vector<float> in = Random(p.batch * p.in_features * Count(p.in_spatial), &rng);
  const std::vector<float> w =
      Random(p.out_features * (p.in_features / p.groups) * Count(p.kernel_spatial), &rng);
  std::vector<float> out(p.batch * p.out_features * Count(p.out_spatial), -12345.0f);
  // oneDNN declines a problem it has only gemm/ref kernels for (gemm's
  // results depend on the thread count); the caller's own path runs then.
  if (!TryOneDnnConvolution(p, in.data(), w.data(), out.data(), 2)) {
    EXPECT_STREQ(OneDnnConvImplementation(p), "");
    return;
  }
  const std::vector<double> ref = Reference(p, in, w);
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(out[i], ref[i], 1e-4) << "element " << i;
}

TEST(OneDnnConv, Plain2D) {
  EXPECT_STRNE(OneDnnConvImplementation(Canonical(2, 8, 16, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1})), "");
  CheckAgainstReference(Canonical(2, 8, 16, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}), 1);
}

TEST(OneDnnConv, StridedDilatedAsymmetricPadding) {
  CheckAgainstReference(Canonical(3, 5, 7, 1, {13, 10}, {3, 2}, {2, 3}, {2, 1}, {0, 2}, {3, 1}), 2);
}

TEST(OneDnnConv, Grouped1DAnd3D) {
  CheckAgainstReference(Canonical(2, 12, 6, 3, {17}, {4}, {1}, {1}, {2}, {1}), 3);
  CheckAgainstReference(Canonical(1, 4, 8, 2, {5, 6, 7}, {2, 3, 2}, {1, 2, 1}, {1, 1, 2}, {1, 0, 1}, {0, 1, 1}), 4);
}

TEST(OneDnnConv, DepthwiseChannelsLast) {
  // NHWC input and output ([N][H][W][C] memory), kernel HWIO-like strides.
  OneDnnConvProblem p = Canonical(2, 16, 16, 16, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1});
  const int64_t H = 8, W = 8, C = 16;
  p.in_feature_stride = 1;
  p.in_spatial_strides = {W * C, C};
  p.in_batch_stride = H * W * C;
  p.out_feature_stride = 1;
  p.out_spatial_strides = {W * C, C};
  p.out_batch_stride = H * W * C;
  CheckAgainstReference(p, 5);
}

TEST(OneDnnConv, DeclinesWhatItCannotExpress) {
  std::vector<float> buf(4096, 0.0f);
  // Negative padding (XLA crops the input; not passed to oneDNN).
  OneDnnConvProblem p = Canonical(1, 2, 2, 1, {8}, {3}, {1}, {1}, {-1}, {0});
  EXPECT_FALSE(TryOneDnnConvolution(p, buf.data(), buf.data(), buf.data(), 1));
  EXPECT_STREQ(OneDnnConvImplementation(p), "");
  // Four spatial dimensions.
  p = Canonical(1, 2, 2, 1, {3, 3, 3, 3}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {0, 0, 0, 0},
                {0, 0, 0, 0});
  EXPECT_FALSE(TryOneDnnConvolution(p, buf.data(), buf.data(), buf.data(), 1));
}

TEST(OneDnnConv, BenchmarkShapePicksAFastKernel) {
  // conv2d N8 C64 56x56 K64 3x3 pad 1 (bench/compare.py), NCHW and NHWC:
  // neither oneDNN's reference loops nor its im2col "gemm" kernels.
  OneDnnConvProblem nchw = Canonical(8, 64, 64, 1, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1});
  const std::string a = OneDnnConvImplementation(nchw);
  EXPECT_NE(a, "");
  EXPECT_EQ(a.find("ref"), std::string::npos) << a;
  EXPECT_EQ(a.find("gemm"), std::string::npos) << a;
  OneDnnConvProblem nhwc = nchw;
  nhwc.in_feature_stride = nhwc.out_feature_stride = 1;
  nhwc.in_spatial_strides = nhwc.out_spatial_strides = {56 * 64, 64};
  const std::string b = OneDnnConvImplementation(nhwc);
  EXPECT_NE(b, "");
  EXPECT_EQ(b.find("ref"), std::string::npos) << b;
  EXPECT_EQ(b.find("gemm"), std::string::npos) << b;
}

TEST(OneDnnConv, BitIdenticalAcrossThreadCounts) {
  for (bool channels_last : {false, true}) {
    OneDnnConvProblem p = Canonical(4, 32, 48, 1, {20, 18}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1});
    if (channels_last) {
      p.in_feature_stride = 1;
      p.in_spatial_strides = {18 * 32, 32};
      p.out_feature_stride = 1;
      p.out_spatial_strides = {18 * 48, 48};
    }
    std::mt19937 rng(6);
    const std::vector<float> in = Random(4 * 32 * 20 * 18, &rng);
    const std::vector<float> w = Random(48 * 32 * 9, &rng);
    std::vector<std::vector<float>> outs;
    for (int threads : {1, 2, 3}) {
      outs.emplace_back(4 * 48 * 20 * 18);
      ASSERT_TRUE(TryOneDnnConvolution(p, in.data(), w.data(), outs.back().data(), threads));
    }
    EXPECT_EQ(outs[0], outs[1]) << "channels_last=" << channels_last;
    EXPECT_EQ(outs[0], outs[2]) << "channels_last=" << channels_last;
  }
}

// MobileNet's layers, which now run on OpenMP threads too (above 2e6
// flops, conv_onednn_literal.cc): a strided depthwise 3x3 and a pointwise
// 1x1, channels last, give the same bits on 1, 2 and 3 threads.
TEST(OneDnnConv, MobileNetLayersBitIdenticalAcrossThreadCounts) {
  struct Layer {
    int64_t c, o, g, k, stride, pad;
  };
  for (const Layer& l : {Layer{64, 64, 64, 3, 2, 1}, Layer{32, 64, 1, 1, 1, 0}}) {
    const int64_t H = 56, W = 56;
    OneDnnConvProblem p = Canonical(1, l.c, l.o, l.g, {H, W}, {l.k, l.k}, {l.stride, l.stride}, {1, 1},
                                    {l.pad, l.pad}, {l.pad, l.pad});
    const int64_t OH = p.out_spatial[0], OW = p.out_spatial[1];
    p.in_feature_stride = 1;
    p.in_spatial_strides = {W * l.c, l.c};
    p.out_feature_stride = 1;
    p.out_spatial_strides = {OW * l.o, l.o};
    std::mt19937 rng(8);
    const std::vector<float> in = Random(H * W * l.c, &rng);
    const std::vector<float> w = Random(l.o * (l.c / l.g) * l.k * l.k, &rng);
    std::vector<std::vector<float>> outs;
    for (int threads : {1, 2, 3}) {
      outs.emplace_back(OH * OW * l.o);
      ASSERT_TRUE(TryOneDnnConvolution(p, in.data(), w.data(), outs.back().data(), threads));
    }
    EXPECT_EQ(outs[0], outs[1]) << "groups=" << l.g;
    EXPECT_EQ(outs[0], outs[2]) << "groups=" << l.g;
  }
}

// libdnnl is opened at first use with its OpenMP runtime (onednn_loader.h),
// and GOMP_SPINCOUNT is set by then unless OMP_WAIT_POLICY rules.
TEST(OneDnnLoader, OpensLibdnnlAndItsOpenMpRuntimeWithASpinLimit) {
  ASSERT_TRUE(OneDnnLoaded());
  EXPECT_NE(dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD), nullptr);
  EXPECT_TRUE(std::getenv("GOMP_SPINCOUNT") != nullptr || std::getenv("OMP_WAIT_POLICY") != nullptr);
  EXPECT_GE(OmpGetMaxThreads(), 1);
}

}  // namespace
}  // namespace hlo::cpu
