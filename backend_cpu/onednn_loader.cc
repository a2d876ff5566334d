#include "backend_cpu/onednn_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "backend_cpu/thread_pool.h"
#include "oneapi/dnnl/dnnl.h"

namespace hlo::cpu {
namespace {

// GOMP_SPINCOUNT when the user set neither it nor OMP_WAIT_POLICY: about
// 115 us of polling here (one poll about 12 ns), as long as the pool's own
// workers poll (thread_pool.cc), since libgomp's team runs the pool's jobs
// once it is loaded. libgomp's default (300000, milliseconds) held a core
// long after the last region; at 300 the team slept between two ops and
// paid a wake-up per op (MobileNet at 2 threads, median 2.6 ms at 10000,
// 3.4 at 300; docs/performance.md, "One team of threads").
constexpr const char* kSpinCount = "10000";

void* Open() {
  if (std::getenv("GOMP_SPINCOUNT") == nullptr && std::getenv("OMP_WAIT_POLICY") == nullptr)
    setenv("GOMP_SPINCOUNT", kSpinCount, /*overwrite=*/0);
  for (const char* name : {"libdnnl.so.2", HLO_DNNL_LIBRARY}) {
    if (void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return handle;
  }
  return nullptr;
}

void* Handle() {
  static void* handle = Open();
  return handle;
}

// The library's `name`, looked up once per forwarder (nullptr when the
// library or the symbol is missing).
template <typename F>
F Lookup(const char* name) {
  void* handle = Handle();
  return handle == nullptr ? nullptr : reinterpret_cast<F>(dlsym(handle, name));
}

// GOMP_parallel of the libgomp libdnnl loaded, as a TeamRunner.
void RunOnGompTeam(void (*body)(void*), void* data, unsigned threads) {
  static const auto parallel = Lookup<void (*)(void (*)(void*), void*, unsigned, unsigned)>("GOMP_parallel");
  parallel(body, data, threads, /*flags=*/0);
}

bool Load() {
  if (Handle() == nullptr || Lookup<void*>("dnnl_primitive_execute") == nullptr ||
      Lookup<void*>("omp_set_num_threads") == nullptr)
    return false;
#if !defined(__SANITIZE_THREAD__)
  // From here on the pool's jobs run on libgomp's team too (thread_pool.h,
  // SetTeamRunner). Not under ThreadSanitizer, which does not see
  // libgomp's (uninstrumented) barriers.
  if (Lookup<void*>("GOMP_parallel") != nullptr) SetTeamRunner(&RunOnGompTeam);
#endif
  return true;
}

}  // namespace

bool OneDnnLoaded() {
  static const bool loaded = Load();
  return loaded;
}

void OmpSetNumThreads(int n) {
  static const auto fn = Lookup<void (*)(int)>("omp_set_num_threads");
  fn(n);
}

int OmpGetMaxThreads() {
  static const auto fn = Lookup<int (*)()>("omp_get_max_threads");
  return fn();
}

}  // namespace hlo::cpu

// Forwarders. conv_onednn.cc checks OneDnnLoaded() before its first call,
// so every lookup below succeeds when reached.
#define HLO_FORWARD(ret, name, params, args)                                  \
  extern "C" __attribute__((visibility("hidden"))) ret name params {         \
    static const auto fn = hlo::cpu::Lookup<ret(*) params>(#name);            \
    return fn args;                                                           \
  }

HLO_FORWARD(dnnl_status_t, dnnl_engine_create, (dnnl_engine_t * engine, dnnl_engine_kind_t kind, size_t index),
            (engine, kind, index))
HLO_FORWARD(dnnl_status_t, dnnl_engine_destroy, (dnnl_engine_t engine), (engine))
HLO_FORWARD(dnnl_status_t, dnnl_stream_create, (dnnl_stream_t * stream, dnnl_engine_t engine, unsigned flags),
            (stream, engine, flags))
HLO_FORWARD(dnnl_status_t, dnnl_stream_wait, (dnnl_stream_t stream), (stream))
HLO_FORWARD(dnnl_status_t, dnnl_stream_destroy, (dnnl_stream_t stream), (stream))
HLO_FORWARD(dnnl_status_t, dnnl_memory_desc_init_by_strides,
            (dnnl_memory_desc_t * memory_desc, int ndims, const dnnl_dims_t dims, dnnl_data_type_t data_type,
             const dnnl_dims_t strides),
            (memory_desc, ndims, dims, data_type, strides))
HLO_FORWARD(dnnl_status_t, dnnl_memory_desc_init_by_tag,
            (dnnl_memory_desc_t * memory_desc, int ndims, const dnnl_dims_t dims, dnnl_data_type_t data_type,
             dnnl_format_tag_t tag),
            (memory_desc, ndims, dims, data_type, tag))
HLO_FORWARD(int, dnnl_memory_desc_equal, (const dnnl_memory_desc_t* lhs, const dnnl_memory_desc_t* rhs),
            (lhs, rhs))
HLO_FORWARD(size_t, dnnl_memory_desc_get_size, (const dnnl_memory_desc_t* memory_desc), (memory_desc))
HLO_FORWARD(dnnl_status_t, dnnl_memory_create,
            (dnnl_memory_t * memory, const dnnl_memory_desc_t* memory_desc, dnnl_engine_t engine, void* handle),
            (memory, memory_desc, engine, handle))
HLO_FORWARD(dnnl_status_t, dnnl_memory_destroy, (dnnl_memory_t memory), (memory))
HLO_FORWARD(dnnl_status_t, dnnl_primitive_attr_create, (dnnl_primitive_attr_t * attr), (attr))
HLO_FORWARD(dnnl_status_t, dnnl_primitive_attr_destroy, (dnnl_primitive_attr_t attr), (attr))
HLO_FORWARD(dnnl_status_t, dnnl_primitive_attr_set_scratchpad_mode,
            (dnnl_primitive_attr_t attr, dnnl_scratchpad_mode_t mode), (attr, mode))
HLO_FORWARD(dnnl_status_t, dnnl_dilated_convolution_forward_desc_init,
            (dnnl_convolution_desc_t * conv_desc, dnnl_prop_kind_t prop_kind, dnnl_alg_kind_t alg_kind,
             const dnnl_memory_desc_t* src_desc, const dnnl_memory_desc_t* weights_desc,
             const dnnl_memory_desc_t* bias_desc, const dnnl_memory_desc_t* dst_desc, const dnnl_dims_t strides,
             const dnnl_dims_t dilates, const dnnl_dims_t padding_l, const dnnl_dims_t padding_r),
            (conv_desc, prop_kind, alg_kind, src_desc, weights_desc, bias_desc, dst_desc, strides, dilates,
             padding_l, padding_r))
HLO_FORWARD(dnnl_status_t, dnnl_primitive_desc_create,
            (dnnl_primitive_desc_t * primitive_desc, const_dnnl_op_desc_t op_desc, const_dnnl_primitive_attr_t attr,
             dnnl_engine_t engine, const_dnnl_primitive_desc_t hint_forward_primitive_desc),
            (primitive_desc, op_desc, attr, engine, hint_forward_primitive_desc))
HLO_FORWARD(dnnl_status_t, dnnl_reorder_primitive_desc_create,
            (dnnl_primitive_desc_t * reorder_primitive_desc, const dnnl_memory_desc_t* src_desc,
             dnnl_engine_t src_engine, const dnnl_memory_desc_t* dst_desc, dnnl_engine_t dst_engine,
             const_dnnl_primitive_attr_t attr),
            (reorder_primitive_desc, src_desc, src_engine, dst_desc, dst_engine, attr))
HLO_FORWARD(dnnl_status_t, dnnl_primitive_desc_query,
            (const_dnnl_primitive_desc_t primitive_desc, dnnl_query_t what, int index, void* result),
            (primitive_desc, what, index, result))
HLO_FORWARD(const dnnl_memory_desc_t*, dnnl_primitive_desc_query_md,
            (const_dnnl_primitive_desc_t primitive_desc, dnnl_query_t what, int index),
            (primitive_desc, what, index))
HLO_FORWARD(dnnl_status_t, dnnl_primitive_desc_destroy, (dnnl_primitive_desc_t primitive_desc), (primitive_desc))
HLO_FORWARD(dnnl_status_t, dnnl_primitive_create,
            (dnnl_primitive_t * primitive, const_dnnl_primitive_desc_t primitive_desc), (primitive, primitive_desc))
HLO_FORWARD(dnnl_status_t, dnnl_primitive_execute,
            (const_dnnl_primitive_t primitive, dnnl_stream_t stream, int nargs, const dnnl_exec_arg_t* args),
            (primitive, stream, nargs, args))
HLO_FORWARD(dnnl_status_t, dnnl_primitive_destroy, (dnnl_primitive_t primitive), (primitive))

#undef HLO_FORWARD
