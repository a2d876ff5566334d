// oneDNN (and the OpenMP runtime it brings) loaded at first use.
//
// Debian's libdnnl runs on libgomp, whose team of worker threads spins
// after every parallel region for GOMP_SPINCOUNT iterations (300000 by
// default, read once, when libgomp is loaded). Two sets of workers, the
// pool's and libgomp's, on as many cores as threads took each other's
// cores. So once libdnnl is loaded, the pool's jobs run on libgomp's team
// too (thread_pool.h, SetTeamRunner): one set of threads; and libdnnl is
// opened with dlopen when the first convolution needs it, after setting
// GOMP_SPINCOUNT (onednn_loader.cc, kSpinCount) in the environment unless
// the user set it or OMP_WAIT_POLICY; a program linked against libdnnl
// would load libgomp before main, too early for that. The dnnl_* functions
// conv_onednn.cc calls are defined here (hidden: never exported) and
// forward to the loaded library; the two OpenMP calls it makes go through
// OmpSetNumThreads/OmpGetMaxThreads. Without libdnnl at run time the
// convolutions take the im2col path.
#pragma once

namespace hlo::cpu {

// Opens libdnnl once (thread-safe); false when it cannot be loaded.
bool OneDnnLoaded();

// omp_set_num_threads / omp_get_max_threads of the OpenMP runtime libdnnl
// loaded (only after OneDnnLoaded() returned true).
void OmpSetNumThreads(int n);
int OmpGetMaxThreads();

}  // namespace hlo::cpu
