// hlo-run --memory-limit: before a run, an estimate of the memory the run
// needs, so that a module that cannot fit is refused with a clear message
// instead of being killed by the kernel's OOM killer half-way through
// (each buffer alone may fit where all of them together do not).
//
// The estimate is the parameters plus, per device, the largest set of
// values alive at once in a walk over the entry computation's schedule
// (post order; a value lives from its instruction to its last user, the
// root's values to the end). While an instruction runs, the peak of the
// computations it calls (loop bodies and conditions, conditional branches,
// called computations; not fused ones) adds to what is alive. Storage is one element per
// PrimitiveTypeByteSize bytes, as the backend's literals keep it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/module.h"

namespace hlo::cpu {

struct BufferEstimate {
  std::string instruction;  // e.g. "%p0 = f32[1500000000]{0} parameter(0)"
  int64_t bytes = 0;
};

struct MemoryEstimate {
  int64_t devices = 1;
  int64_t parameter_bytes = 0;  // the arguments (shared by the devices)
  int64_t peak_live_bytes = 0;  // per device: intermediates and outputs at the peak
  int64_t total_bytes = 0;      // parameters + devices x peak (saturating)
  std::vector<BufferEstimate> largest;  // the five largest buffers, largest first
};

// `replica_count`/`partition_count` as in RunOptions (0 = the module's).
MemoryEstimate EstimateMemory(const Module& module, int64_t replica_count = 0,
                              int64_t partition_count = 0);

// The default limit: MemAvailable of /proc/meminfo less a margin (1 GiB or
// 5%, the larger); INT64_MAX when it cannot be read.
int64_t DefaultMemoryLimit();

// "" = DefaultMemoryLimit(); else bytes, optionally with a suffix K, M, G,
// T (powers of 1024; "KiB"/"GB" spellings accepted). Errors name the flag.
absl::StatusOr<int64_t> ParseMemoryLimit(const std::string& text);

// How a run is split over MPI processes (docs/mpi.md): each process makes
// its own parameters and runs devices / processes devices, and the
// processes on one host share its memory.
struct ProcessShare {
  int processes = 1;
  int on_this_host = 1;
  std::string host;
};

// OK when the estimate fits in `limit` bytes; else ResourceExhausted with
// the need, the limit and the five largest buffers. With several
// processes the need is that of this host's processes together.
absl::Status CheckMemoryLimit(const Module& module, int64_t limit, int64_t replica_count = 0,
                              int64_t partition_count = 0,
                              const ProcessShare& share = ProcessShare());
// The same for an estimate already made.
absl::Status CheckMemoryLimit(const MemoryEstimate& est, int64_t limit,
                              const ProcessShare& share = ProcessShare());

// "1.50 GB (1500000000 bytes)".
std::string FormatBytes(int64_t bytes);

}  // namespace hlo::cpu
