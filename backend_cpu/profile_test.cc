// The scale of the profile's bounds when several devices share the cores
// (profile.h: DeviceSharing). Pure arithmetic on given sharings, so the
// machine's own core count does not matter.
#include "backend_cpu/profile.h"

#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

DeviceSharing Sharing(int64_t devices, int pool_threads, int cores) {
  DeviceSharing s;
  s.devices = devices;
  s.pool_threads = pool_threads;
  s.cores = cores;
  return s;
}

TEST(ProfileBoundScaleTest, OneDeviceIsNeverScaled) {
  EXPECT_EQ(Sharing(1, 2, 2).BoundScale(0), 1.0);
  EXPECT_EQ(Sharing(1, 4, 2).BoundScale(4), 1.0);
}

// 8 devices with a pool of 1 on 2 cores: 2 threads run at once. Rates of
// those 2 threads (what hlo-run measures for such a run) are shared by the
// 8 devices; rates of 1 thread (given by flags) are taken to double.
TEST(ProfileBoundScaleTest, RatesOfTheSharedThreadsAreSplitByDevices) {
  const DeviceSharing s = Sharing(8, 1, 2);
  EXPECT_EQ(s.SharedThreads(), 2);
  EXPECT_DOUBLE_EQ(s.BoundScale(2), 8.0);
  EXPECT_DOUBLE_EQ(s.BoundScale(0), 4.0);
  EXPECT_DOUBLE_EQ(s.BoundScale(1), 4.0);
}

// Fewer threads than cores: each device keeps what its own pool reaches.
TEST(ProfileBoundScaleTest, IdleCoresLeaveEachDeviceItsOwnRate) {
  const DeviceSharing s = Sharing(2, 1, 8);
  EXPECT_EQ(s.SharedThreads(), 2);
  EXPECT_DOUBLE_EQ(s.BoundScale(2), 2.0);  // 2 threads' rate, half each
  EXPECT_DOUBLE_EQ(s.BoundScale(0), 1.0);  // one thread's rate: its own
}

TEST(ProfileBoundScaleTest, WidePoolsAreCappedAtTheCores) {
  const DeviceSharing s = Sharing(4, 4, 2);
  EXPECT_EQ(s.SharedThreads(), 2);
  EXPECT_DOUBLE_EQ(s.BoundScale(2), 4.0);
  EXPECT_DOUBLE_EQ(s.BoundScale(0), 4.0);  // rates of a 4-wide pool on 2 cores
}

}  // namespace
}  // namespace hlo::cpu
