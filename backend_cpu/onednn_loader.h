// oneDNN (and the OpenMP runtime it brings) loaded at first use.
//
// Debian's libdnnl runs on libgomp, whose worker threads spin after every
// parallel region for GOMP_SPINCOUNT iterations (300000 by default, read
// once, when libgomp is loaded). On a machine with as many threads as
// cores, those spinning workers take the cores our own pool's workers need
// for the ops between two convolutions: resnet34's block at 2 threads ran
// 1.09x faster with the spin cut to a few thousand iterations. A program linked against libdnnl
// loads libgomp before main, too early to set that; so libdnnl is opened
// with dlopen when the first convolution needs it, after setting
// GOMP_SPINCOUNT=300 in the environment unless the user set it or
// OMP_WAIT_POLICY. The dnnl_* functions conv_onednn.cc calls are defined
// here (hidden: never exported) and forward to the loaded library; the two
// OpenMP calls it makes go through OmpSetNumThreads/OmpGetMaxThreads.
// Without libdnnl at run time the convolutions take the im2col path.
#pragma once

namespace hlo::cpu {

// Opens libdnnl once (thread-safe); false when it cannot be loaded.
bool OneDnnLoaded();

// omp_set_num_threads / omp_get_max_threads of the OpenMP runtime libdnnl
// loaded (only after OneDnnLoaded() returned true).
void OmpSetNumThreads(int n);
int OmpGetMaxThreads();

}  // namespace hlo::cpu
