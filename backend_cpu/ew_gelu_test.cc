// The f32 gelu kernel of custom-call AwsNeuronGeluApprxTanh against
// 0.5 x (1 + tanh(z)), z = sqrt(2/pi) (x + 0.044715 x^3), computed in double
// as x / (1 + e^(-2z)) (the same function; 1 + tanh(z) itself loses every
// digit in double once it falls below 1e-16, for x below about -5.5) and
// rounded once to f32.
#include "backend_cpu/ew_gelu.h"

#include <cmath>
#include <limits>
#include <vector>

#include "backend_cpu/ew_test_util.h"
#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

using testing::UlpDistance;

float Reference(float x) {
  const double v = x;
  const double z = std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v);
  return static_cast<float>(v / (1.0 + std::exp(-2.0 * z)));
}

// The kernel rounds z to f32 (as any f32 evaluation does), and for z < 0
// the result's relative error follows z's absolute error: about |z| ulp on
// top of the functions' own few. The bound below is 4 (1 + 2|z|) ulp:
// 4 ulp for x >= 0, ~30 at x = -3, ~240 at x = -9.5 where y is -1e-37.
TEST(EwGelu, WithinAFewUlpPlusTheRoundingOfZ) {
  std::vector<float> x;
  for (int i = -1200000; i <= 1200000; ++i) x.push_back(static_cast<float>(i) * 1e-5f);  // [-12, 12]
  for (float big : {20.0f, 100.0f, 1e6f, 1e20f}) {
    x.push_back(big);
    x.push_back(-big);
  }
  std::vector<float> y(x.size());
  ew::GeluTanhF32(x.data(), y.data(), static_cast<int64_t>(x.size()));
  int64_t positive_worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = Reference(x[i]);
    // Results below the smallest normal f32 (x below about -10) are zero.
    if (std::fabs(want) < std::numeric_limits<float>::min()) {
      ASSERT_TRUE(y[i] == 0.0f || std::fabs(y[i]) >= std::numeric_limits<float>::min()) << x[i];
      ASSERT_LE(std::fabs(y[i] - want), std::numeric_limits<float>::min()) << x[i];
      continue;
    }
    const double v = x[i];
    const double z = std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v);
    const int64_t d = UlpDistance(y[i], want);
    ASSERT_LE(d, 4 * (1 + 2 * std::fabs(z))) << "x=" << x[i] << " got " << y[i] << " want " << want;
    if (v >= 0) positive_worst = std::max(positive_worst, d);
  }
  EXPECT_LE(positive_worst, 4);
}

TEST(EwGelu, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> y(x.size());
  ew::GeluTanhF32(x.data(), y.data(), static_cast<int64_t>(x.size()));
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_FALSE(std::signbit(y[0]));
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], inf);
  EXPECT_TRUE(std::isnan(y[3]));  // -inf * 0, as the tanh formula gives
  EXPECT_TRUE(std::isnan(y[4]));
}

}  // namespace
}  // namespace hlo::cpu
