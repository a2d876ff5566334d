// Threading and output knobs of the fft op (backend_cpu/ops_fft.cc).
//
// Transforms with at least FftThreadMinPoints() complex points in total
// (all batches) are planned for FftPlanThreads() FFTW threads, whose
// parallel loops run on our pool (ParallelFor). The plan, hence the result
// bits, depends on these two values and the problem only, never on the pool
// width. Defaults: 2 threads from 2^22 points (below that, on a shared
// 2-core machine, the barrier waits of a threaded plan cost more than the
// second core gives; see docs/performance.md).
#pragma once

#include <cstdint>

namespace hlo::cpu {

int FftPlanThreads();
int64_t FftThreadMinPoints();
// For tests and experiments: changes both knobs (threads >= 1,
// min_points >= 0). Plans already cached keep their thread count (the
// count is part of the cache key).
void SetFftThreading(int threads, int64_t min_points);

// Transforms whose result is relaid out from cache (a layout whose
// transformed dims are not dense) write it with non-temporal stores from
// this many bytes on (default 16 MiB); the same bits either way. For tests.
int64_t FftStreamOutMinBytes();
void SetFftStreamOutMinBytes(int64_t bytes);

}  // namespace hlo::cpu
