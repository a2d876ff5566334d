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

}  // namespace hlo::cpu
