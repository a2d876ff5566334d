// One process-wide worker pool and a deterministic ParallelFor.
//
// ParallelFor(n, min_block, fn) cuts [0, n) into fixed blocks whose
// boundaries depend only on n and min_block (never on the pool width), and
// calls fn(begin, end) once per block, possibly on several threads. A
// reduction that writes one partial result per block and combines the
// partials in block order is therefore bit-identical for every width.
//
// No oversubscription: a ParallelFor issued from inside a ParallelFor body
// (nested), or while another thread already owns the pool, runs inline on
// the calling thread (still block by block, in order).
#pragma once

#include <cstdint>

#include "absl/functional/function_ref.h"

namespace hlo::cpu {

// Upper bound on the number of blocks one ParallelFor creates: when
// n / min_block would exceed it, blocks grow (still independent of width).
inline constexpr int64_t kMaxParallelForBlocks = 4096;

// Block size ParallelFor uses for (n, min_block): max(min_block, 1) grown to
// ceil(n / kMaxParallelForBlocks) if needed. Exposed for reductions that
// keep one partial per block.
int64_t ParallelForBlockSize(int64_t n, int64_t min_block);
// Number of blocks: ceil(n / ParallelForBlockSize(n, min_block)); 0 if n <= 0.
int64_t ParallelForNumBlocks(int64_t n, int64_t min_block);

// Width of the process-wide pool: number of threads that run blocks,
// counting the caller. Default: std::thread::hardware_concurrency() (>= 1),
// or the HLO_CPU_THREADS environment variable when set to a positive number.
int ThreadPoolWidth();
// Changes the width (>= 1; 1 = everything inline). Must not be called
// while a ParallelFor is running; restarts the workers.
void SetThreadPoolWidth(int width);

// True on a thread that is currently running a ParallelFor body.
bool InParallelRegion();

// A thread team of another runtime that runs ParallelFor's blocks in place
// of the pool's own workers: it calls body(data) once on each of `threads`
// threads, the calling thread among them, and returns when every call has
// returned. Installed once libgomp is loaded (onednn_loader.cc): oneDNN's
// convolutions run on libgomp's team, and two sets of workers on as many
// cores as threads took each other's cores (docs/performance.md, "One team
// of threads"). nullptr: the pool's workers. Blocks are the same either
// way, so are results.
using TeamRunner = void (*)(void (*body)(void*), void* data, unsigned threads);
void SetTeamRunner(TeamRunner runner);

// Runs fn(begin, end) for every block of [0, n). Returns when all blocks
// are done. fn must not throw.
void ParallelFor(int64_t n, int64_t min_block, absl::FunctionRef<void(int64_t, int64_t)> fn);

}  // namespace hlo::cpu
