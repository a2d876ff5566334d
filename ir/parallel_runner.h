// How a serial library routine (ir/) lets its caller spread work over
// threads without depending on a thread pool: the caller passes a runner.
#pragma once

#include <cstdint>

#include "absl/functional/function_ref.h"

namespace hlo {

// Runs fn(begin, end) over blocks covering [0, n), blocks of at least
// min_block, in any order and on any threads (a thread pool's ParallelFor,
// or one serial call fn(0, n)).
using ParallelRunner =
    absl::FunctionRef<void(int64_t n, int64_t min_block, absl::FunctionRef<void(int64_t, int64_t)>)>;

}  // namespace hlo
