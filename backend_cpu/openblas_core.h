// Which of OpenBLAS's kernel families (its "core": Haswell, SkylakeX, ...)
// runs our GEMMs.
//
// Debian's OpenBLAS is built with DYNAMIC_ARCH: at load time it reads the
// CPU's family and model numbers and picks the kernels of a CPU it knows.
// A CPU newer than the library (OpenBLAS 0.3.21 on an Intel Xeon of model
// 207, Emerald Rapids, with AVX-512) is not in its table, and it falls back
// to "Prescott", its SSE3 kernels: sgemm at 36 GFLOP/s on one core where
// its AVX-512 kernels reach 158 (measured, docs/performance.md).
#pragma once

#include <string>

namespace hlo::cpu {

// Once per process, before the first BLAS call: when OpenBLAS fell back to
// its Prescott kernels on a CPU with AVX2 or AVX-512, re-initialises it with
// the kernel family of the instructions the CPU has (the same thing
// OPENBLAS_CORETYPE does). A user's OPENBLAS_CORETYPE is left as it is, as
// is a CPU that OpenBLAS recognised. Thread-safe; idempotent.
// The switch happens at our first BLAS call: a program that also calls
// OpenBLAS itself on other threads at that moment (NumPy in the same Python
// process) should set OPENBLAS_CORETYPE before it starts instead.
void SelectOpenBlasKernels();

// The kernel family OpenBLAS runs ("SkylakeX", "Haswell", ...), or "" when
// the BLAS library in use is not OpenBLAS.
std::string OpenBlasCoreName();

// The family SelectOpenBlasKernels picks for a CPU with these instructions
// ("" when none is better than Prescott). Pure; for tests.
std::string BestOpenBlasCoreFor(bool avx512_skylake_set, bool avx2_fma, bool avx);

}  // namespace hlo::cpu
