// See openblas_core.h.
#include "backend_cpu/openblas_core.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace hlo::cpu {
namespace {

// OpenBLAS's own entry points, looked up at run time: they exist only in
// OpenBLAS (and gotoblas_dynamic_* only in its DYNAMIC_ARCH builds), while
// the library behind -lopenblas / libblas.so.3 may be another BLAS.
using CharFn = char* (*)();
using VoidFn = void (*)();

template <typename Fn>
Fn Lookup(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

std::string BestOpenBlasCoreFor(bool avx512_skylake_set, bool avx2_fma, bool avx) {
  if (avx512_skylake_set) return "SkylakeX";
  if (avx2_fma) return "Haswell";
  if (avx) return "Sandybridge";
  return "";
}

std::string OpenBlasCoreName() {
  const CharFn corename = Lookup<CharFn>("openblas_get_corename");
  if (corename == nullptr) return "";
  const char* name = corename();
  return name == nullptr ? "" : name;
}

void SelectOpenBlasKernels() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;  // the user's choice
    const VoidFn quit = Lookup<VoidFn>("gotoblas_dynamic_quit");
    const VoidFn init = Lookup<VoidFn>("gotoblas_dynamic_init");
    if (quit == nullptr || init == nullptr) return;
    // Prescott is DYNAMIC_ARCH's fallback for a CPU it does not know.
    if (OpenBlasCoreName() != "Prescott") return;
    __builtin_cpu_init();
    const std::string best = BestOpenBlasCoreFor(
        __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
            __builtin_cpu_supports("avx512cd"),
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"),
        __builtin_cpu_supports("avx"));
    if (best.empty()) return;
    // gotoblas_dynamic_init reads OPENBLAS_CORETYPE; no BLAS call is running
    // (every caller of BLAS goes through UseSingleThreadedBlas, which calls
    // this first). The variable is removed again so that child processes
    // see the environment they were given.
    setenv("OPENBLAS_CORETYPE", best.c_str(), 1);
    quit();
    init();
    unsetenv("OPENBLAS_CORETYPE");
  });
}

}  // namespace hlo::cpu
