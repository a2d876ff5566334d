// The two rates the profile's lower bounds are computed with: memory
// bandwidth (a parallel copy between pre-touched 128 MB buffers) and the
// f32 GEMM rate this backend's dot reaches (1024^3; at parity with bare
// OpenBLAS, docs/performance.md), both on the current thread-pool width.
// Measured once per CPU model and width (about a second) and cached in
// $XDG_CACHE_HOME/hlo-toolchain/machine-rates.tsv (default ~/.cache/...).
#pragma once

#include "backend_cpu/profile.h"

namespace hlo::cpu {

// Cached rates for this CPU and ThreadPoolWidth(), else measured now (and
// cached, best effort: a read-only home only costs a re-measurement).
MachineRates GetMachineRates();
// The same for `threads` threads at once (the pool is that wide while it
// measures): what several devices sharing the cores reach together.
MachineRates GetMachineRates(int threads);
// The rates a profile of `devices` devices of this process is bounded by:
// those of the threads they run at once (DeviceSharing::SharedThreads;
// 8 devices on 2 cores share what 2 threads reach, not twice what one
// does), or of the pool for one device.
MachineRates GetMachineRatesForDevices(int64_t devices);

}  // namespace hlo::cpu
