// f32 convolution through oneDNN's C API (no C++ exceptions cross into our
// code). See conv_onednn.h.
//
// Per distinct problem (sizes, strides, window, thread count) a plan is built
// once and cached: the convolution primitive and the reorders between the
// operands' own layouts and the formats the primitive wants. The primitive is
// first asked to read and write the operands' layouts directly; only when
// that gives a slow implementation (oneDNN's im2col "gemm" or "ref" kernels)
// does it get free choice of formats, paid for by reorders on each call.
// Scratchpads are allocated per call (user-managed), so one plan may run on
// several threads at once.
//
// Threads: oneDNN here is built on OpenMP. Each call sets the calling
// thread's OpenMP thread count to our pool width, so `--threads=N` holds for
// convolutions too; inside a ParallelFor body the caller passes 1. oneDNN's
// forward kernels split the work over batch, output features and positions,
// never over the reduction, so results do not depend on the thread count
// (backend_cpu/conv_onednn_test.cc checks this bit for bit).
#include "backend_cpu/conv_onednn.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend_cpu/onednn_loader.h"
#include "ir/buffer_allocator.h"
#include "oneapi/dnnl/dnnl.h"

namespace hlo::cpu {
namespace {

bool Enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("HLO_CONV_ONEDNN");
    return (v == nullptr || std::strcmp(v, "0") != 0) && OneDnnLoaded();
  }();
  return enabled;
}

dnnl_engine_t Engine() {
  static dnnl_engine_t engine = [] {
    dnnl_engine_t e = nullptr;
    if (dnnl_engine_create(&e, dnnl_cpu, 0) != dnnl_success) return static_cast<dnnl_engine_t>(nullptr);
    return e;
  }();
  return engine;
}

// Owns a primitive descriptor or primitive.
struct PdDeleter {
  void operator()(dnnl_primitive_desc* pd) const { dnnl_primitive_desc_destroy(pd); }
};
struct PrimitiveDeleter {
  void operator()(dnnl_primitive* p) const { dnnl_primitive_destroy(p); }
};
using PdPtr = std::unique_ptr<dnnl_primitive_desc, PdDeleter>;
using PrimitivePtr = std::unique_ptr<dnnl_primitive, PrimitiveDeleter>;

// One reorder step: from memory described by `from` to memory described by
// `to` (a null primitive when the two are equal).
struct Reorder {
  PrimitivePtr primitive;
  dnnl_memory_desc_t from{}, to{};
  size_t scratch_bytes = 0;
};

struct Plan {
  PrimitivePtr conv;
  dnnl_memory_desc_t src{}, weights{}, dst{};  // the primitive's formats
  size_t scratch_bytes = 0;
  Reorder src_in, weights_in, dst_out;
  std::string implementation;
};

const char* ImplName(const_dnnl_primitive_desc_t pd) {
  const char* name = nullptr;
  if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name) != dnnl_success ||
      name == nullptr)
    return "";
  return name;
}

bool IsSlowImplementation(const std::string& name) {
  return name.empty() || name.find("ref") != std::string::npos ||
         name.find("gemm") != std::string::npos;
}

size_t ScratchBytes(const_dnnl_primitive_desc_t pd) {
  const dnnl_memory_desc_t* md = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  return md == nullptr ? 0 : dnnl_memory_desc_get_size(md);
}

dnnl_primitive_attr_t UserScratchpadAttr() {
  dnnl_primitive_attr_t attr = nullptr;
  if (dnnl_primitive_attr_create(&attr) != dnnl_success) return nullptr;
  dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
  return attr;
}

bool MakeReorder(const dnnl_memory_desc_t& from, const dnnl_memory_desc_t& to, Reorder* r) {
  r->from = from;
  r->to = to;
  if (dnnl_memory_desc_equal(&from, &to)) return true;
  dnnl_primitive_attr_t attr = UserScratchpadAttr();
  dnnl_primitive_desc_t pd = nullptr;
  const dnnl_status_t st = dnnl_reorder_primitive_desc_create(&pd, &from, Engine(), &to, Engine(), attr);
  dnnl_primitive_attr_destroy(attr);
  if (st != dnnl_success) return false;
  PdPtr owned(pd);
  r->scratch_bytes = ScratchBytes(pd);
  dnnl_primitive_t prim = nullptr;
  if (dnnl_primitive_create(&prim, pd) != dnnl_success) return false;
  r->primitive.reset(prim);
  return true;
}

// The convolution primitive descriptor with the given memory descriptors
// (format "any" where oneDNN may choose), or null.
PdPtr MakeConvPd(const OneDnnConvProblem& p, const dnnl_memory_desc_t& src,
                 const dnnl_memory_desc_t& weights, const dnnl_memory_desc_t& dst) {
  const size_t ns = p.in_spatial.size();
  dnnl_dims_t strides, dilates, pad_l, pad_r;
  for (size_t d = 0; d < ns; ++d) {
    strides[d] = p.stride[d];
    dilates[d] = p.dilation[d] - 1;
    pad_l[d] = p.padding_low[d];
    pad_r[d] = p.padding_high[d];
  }
  dnnl_convolution_desc_t desc;
  if (dnnl_dilated_convolution_forward_desc_init(&desc, dnnl_forward_inference, dnnl_convolution_direct,
                                                 &src, &weights, nullptr, &dst, strides, dilates,
                                                 pad_l, pad_r) != dnnl_success)
    return nullptr;
  dnnl_primitive_attr_t attr = UserScratchpadAttr();
  dnnl_primitive_desc_t pd = nullptr;
  const dnnl_status_t st = dnnl_primitive_desc_create(&pd, &desc, attr, Engine(), nullptr);
  dnnl_primitive_attr_destroy(attr);
  if (st != dnnl_success) return nullptr;
  return PdPtr(pd);
}

// Memory descriptors of the operands as they lie in memory.
struct UserDescs {
  dnnl_memory_desc_t src{}, weights{}, dst{};
};

bool DescribeOperands(const OneDnnConvProblem& p, UserDescs* u) {
  const int ns = static_cast<int>(p.in_spatial.size());
  const int64_t G = p.groups;
  dnnl_dims_t dims, strides;
  dims[0] = p.batch;
  dims[1] = p.in_features;
  strides[0] = p.in_batch_stride;
  strides[1] = p.in_feature_stride;
  for (int d = 0; d < ns; ++d) {
    dims[2 + d] = p.in_spatial[d];
    strides[2 + d] = p.in_spatial_strides[d];
  }
  if (dnnl_memory_desc_init_by_strides(&u->src, ns + 2, dims, dnnl_f32, strides) != dnnl_success)
    return false;
  dims[1] = p.out_features;
  strides[0] = p.out_batch_stride;
  strides[1] = p.out_feature_stride;
  for (int d = 0; d < ns; ++d) {
    dims[2 + d] = p.out_spatial[d];
    strides[2 + d] = p.out_spatial_strides[d];
  }
  if (dnnl_memory_desc_init_by_strides(&u->dst, ns + 2, dims, dnnl_f32, strides) != dnnl_success)
    return false;
  // Weights: [O][I/G][k...], or [G][O/G][I/G][k...] with groups; XLA puts
  // output feature o in group o / (O/G), as oneDNN does.
  int nd = 0;
  if (G > 1) {
    dims[nd] = G;
    strides[nd++] = (p.out_features / G) * p.kernel_out_stride;
  }
  dims[nd] = p.out_features / G;
  strides[nd++] = p.kernel_out_stride;
  dims[nd] = p.in_features / G;
  strides[nd++] = p.kernel_in_stride;
  for (int d = 0; d < ns; ++d) {
    dims[nd] = p.kernel_spatial[d];
    strides[nd++] = p.kernel_spatial_strides[d];
  }
  return dnnl_memory_desc_init_by_strides(&u->weights, nd, dims, dnnl_f32, strides) == dnnl_success;
}


dnnl_memory_desc_t Tagged(const dnnl_memory_desc_t& md, dnnl_format_tag_t tag) {
  dnnl_memory_desc_t tagged;
  dnnl_memory_desc_init_by_tag(&tagged, md.ndims, md.dims, dnnl_f32, tag);
  return tagged;
}

// Features (dimension 1) in blocks of 16 for a tensor of `ndims` dims
// (batch, features, 1 to 3 spatial), or undef.
dnnl_format_tag_t Blocked16Tag(int ndims) {
  switch (ndims) {
    case 3: return dnnl_aBc16b;
    case 4: return dnnl_aBcd16b;
    case 5: return dnnl_aBcde16b;
    default: return dnnl_format_tag_undef;
  }
}

dnnl_memory_desc_t AnyLike(const dnnl_memory_desc_t& md) { return Tagged(md, dnnl_format_tag_any); }

std::shared_ptr<Plan> BuildPlan(const OneDnnConvProblem& p) {
  UserDescs u;
  if (!DescribeOperands(p, &u)) return nullptr;
  const dnnl_memory_desc_t weights_any = AnyLike(u.weights);
  // First choice: the operands' own layouts for input and result.
  PdPtr pd = MakeConvPd(p, u.src, weights_any, u.dst);
  if (pd == nullptr || IsSlowImplementation(ImplName(pd.get()))) {
    // Second choice: features in blocks of 16 (nChw16c), what oneDNN's
    // direct AVX-512 kernels read best and the cheapest reorder from
    // channels-first layouts (measured against oneDNN's own pick, NHWC:
    // bench/README.md); last, whatever oneDNN picks.
    for (bool blocked : {true, false}) {
      const dnnl_format_tag_t tag = Blocked16Tag(u.src.ndims);
      if (blocked && tag == dnnl_format_tag_undef) continue;
      PdPtr free_pd = blocked ? MakeConvPd(p, Tagged(u.src, tag), weights_any, Tagged(u.dst, tag))
                              : MakeConvPd(p, AnyLike(u.src), weights_any, AnyLike(u.dst));
      if (free_pd != nullptr && !IsSlowImplementation(ImplName(free_pd.get()))) {
        pd = std::move(free_pd);
        break;
      }
      if (pd == nullptr) pd = std::move(free_pd);
    }
  }
  if (pd == nullptr) return nullptr;
  auto plan = std::make_shared<Plan>();
  plan->implementation = ImplName(pd.get());
  // "ref" is slower than ours; "gemm" (im2col + oneDNN's sgemm) is also not
  // deterministic: its sgemm splits the reduction by the thread count, so 1
  // and 2 threads round differently (found by hlo-gen-diff; the module is
  // testdata/run/linalg/conv1d_threads_gen.hlo). Ours (im2col + OpenBLAS) is.
  if (IsSlowImplementation(plan->implementation)) return nullptr;
  plan->src = *dnnl_primitive_desc_query_md(pd.get(), dnnl_query_src_md, 0);
  plan->weights = *dnnl_primitive_desc_query_md(pd.get(), dnnl_query_weights_md, 0);
  plan->dst = *dnnl_primitive_desc_query_md(pd.get(), dnnl_query_dst_md, 0);
  plan->scratch_bytes = ScratchBytes(pd.get());
  dnnl_primitive_t prim = nullptr;
  if (dnnl_primitive_create(&prim, pd.get()) != dnnl_success) return nullptr;
  plan->conv.reset(prim);
  if (!MakeReorder(u.src, plan->src, &plan->src_in) ||
      !MakeReorder(u.weights, plan->weights, &plan->weights_in) ||
      !MakeReorder(plan->dst, u.dst, &plan->dst_out))
    return nullptr;
  return plan;
}

std::vector<int64_t> PlanKey(const OneDnnConvProblem& p, int threads) {
  std::vector<int64_t> k = {threads,           p.batch,
                            p.in_features,     p.out_features,
                            p.groups,          p.in_batch_stride,
                            p.in_feature_stride, p.kernel_in_stride,
                            p.kernel_out_stride, p.out_batch_stride,
                            p.out_feature_stride};
  for (const auto* v : {&p.in_spatial, &p.kernel_spatial, &p.out_spatial, &p.in_spatial_strides,
                        &p.kernel_spatial_strides, &p.out_spatial_strides, &p.stride, &p.dilation,
                        &p.padding_low, &p.padding_high}) {
    k.push_back(-1);  // separator: vectors of different lengths never collide
    k.insert(k.end(), v->begin(), v->end());
  }
  return k;
}

bool Supported(const OneDnnConvProblem& p) {
  const size_t ns = p.in_spatial.size();
  if (ns < 1 || ns > 3) return false;
  for (const auto* v : {&p.kernel_spatial, &p.out_spatial, &p.in_spatial_strides,
                        &p.kernel_spatial_strides, &p.out_spatial_strides, &p.stride, &p.dilation,
                        &p.padding_low, &p.padding_high})
    if (v->size() != ns) return false;
  if (p.batch < 1 || p.in_features < 1 || p.out_features < 1 || p.groups < 1 ||
      p.in_features % p.groups != 0 || p.out_features % p.groups != 0)
    return false;
  for (size_t d = 0; d < ns; ++d) {
    if (p.in_spatial[d] < 1 || p.kernel_spatial[d] < 1 || p.out_spatial[d] < 1) return false;
    if (p.stride[d] < 1 || p.dilation[d] < 1 || p.padding_low[d] < 0 || p.padding_high[d] < 0)
      return false;
  }
  return true;
}

// Cached plans (nullptr: oneDNN declined this problem). A module has few
// distinct convolutions; the cache is cleared when it grows past kMaxPlans.
constexpr size_t kMaxPlans = 256;

std::shared_ptr<Plan> GetPlan(const OneDnnConvProblem& p, int threads) {
  static std::mutex mu;
  static std::map<std::vector<int64_t>, std::shared_ptr<Plan>>* plans =
      new std::map<std::vector<int64_t>, std::shared_ptr<Plan>>();
  std::vector<int64_t> key = PlanKey(p, threads);
  std::lock_guard<std::mutex> lock(mu);
  auto it = plans->find(key);
  if (it != plans->end()) return it->second;
  if (plans->size() >= kMaxPlans) plans->clear();
  // oneDNN sizes its kernels' blocking for the thread count in effect.
  OmpSetNumThreads(threads);
  std::shared_ptr<Plan> plan = Supported(p) && Engine() != nullptr ? BuildPlan(p) : nullptr;
  plans->emplace(std::move(key), plan);
  return plan;
}

// A memory object over `data`, or over a buffer of its own when data is
// null. Own buffers come from the literal allocator (ir/buffer_allocator.h):
// its heap hands the pages freed by the last call to the next one, where
// oneDNN's own allocation would fault fresh pages in on every call.
struct Memory {
  dnnl_memory_t m = nullptr;
  void* owned = nullptr;
  size_t owned_bytes = 0;
  Memory(const dnnl_memory_desc_t& md, void* data) {
    if (data == nullptr) {
      // At least 64-byte aligned (a cache line, what oneDNN's kernels
      // assume for speed): large buffers are huge-page aligned, small ones
      // are rounded up to a multiple of 64 for aligned_alloc.
      owned_bytes = std::max<size_t>(dnnl_memory_desc_get_size(&md), 64);
      owned = owned_bytes >= kLargeBytes ? AllocateBuffer(owned_bytes)
                                         : std::aligned_alloc(64, (owned_bytes + 63) / 64 * 64);
      if (owned == nullptr) return;
      data = owned;
    }
    if (dnnl_memory_create(&m, &md, Engine(), data) != dnnl_success) m = nullptr;
  }
  ~Memory() {
    if (m != nullptr) dnnl_memory_destroy(m);
    if (owned == nullptr) return;
    if (owned_bytes >= kLargeBytes)
      FreeBuffer(owned, owned_bytes);
    else
      std::free(owned);
  }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  // AllocateBuffer's own threshold for huge-page buffers.
  static constexpr size_t kLargeBytes = size_t{1} << 20;
};

bool Execute(dnnl_stream_t stream, const dnnl_primitive* prim, std::initializer_list<dnnl_exec_arg_t> args_in,
             size_t scratch_bytes) {
  std::vector<dnnl_exec_arg_t> args(args_in);
  std::unique_ptr<Memory> scratch;
  if (scratch_bytes > 0) {
    dnnl_memory_desc_t md;
    const dnnl_dims_t dims = {static_cast<dnnl_dim_t>(scratch_bytes)};
    dnnl_memory_desc_init_by_tag(&md, 1, dims, dnnl_u8, dnnl_a);
    scratch = std::make_unique<Memory>(md, nullptr);
    if (scratch->m == nullptr) return false;
    args.push_back({DNNL_ARG_SCRATCHPAD, scratch->m});
  }
  return dnnl_primitive_execute(prim, stream, static_cast<int>(args.size()), args.data()) == dnnl_success &&
         dnnl_stream_wait(stream) == dnnl_success;
}

// Reorders smaller than this run on the calling thread alone: waking the
// OpenMP team costs more than copying a kernel's few hundred KB, and much
// more when the machine is busy and a team member is not scheduled.
constexpr size_t kParallelReorderBytes = size_t{1} << 18;

// Runs reorder `r` from memory `from` into memory `to`.
bool RunReorder(dnnl_stream_t stream, const Reorder& r, dnnl_memory_t from, dnnl_memory_t to, int threads) {
  const bool small = dnnl_memory_desc_get_size(&r.from) < kParallelReorderBytes;
  if (small) OmpSetNumThreads(1);
  const bool ok = Execute(stream, r.primitive.get(), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}, r.scratch_bytes);
  if (small) OmpSetNumThreads(threads);
  return ok;
}

// Runs reorder `r` from `from` into a new memory object, or returns `from`
// when `r` is the identity.
bool RunReorder(dnnl_stream_t stream, const Reorder& r, dnnl_memory_t from, std::unique_ptr<Memory>* to,
                dnnl_memory_t* out, int threads) {
  if (r.primitive == nullptr) {
    *out = from;
    return true;
  }
  *to = std::make_unique<Memory>(r.to, nullptr);
  if ((*to)->m == nullptr) return false;
  *out = (*to)->m;
  return RunReorder(stream, r, from, *out, threads);
}

}  // namespace

const char* OneDnnConvImplementation(const OneDnnConvProblem& p) {
  if (!Enabled()) return "";
  std::shared_ptr<Plan> plan = GetPlan(p, OmpGetMaxThreads());
  if (plan == nullptr) return "";
  // Plans live until the cache is cleared; keep the name in a stable string.
  thread_local std::string name;
  name = plan->implementation;
  return name.c_str();
}

bool OneDnnConvAccepts(const OneDnnConvProblem& p, int threads) {
  return Enabled() && GetPlan(p, std::max(threads, 1)) != nullptr;
}

bool TryOneDnnConvolution(const OneDnnConvProblem& p, const float* in, const float* kernel, float* out,
                          int threads) {
  if (!Enabled()) return false;
  threads = std::max(threads, 1);
  std::shared_ptr<Plan> plan = GetPlan(p, threads);
  if (plan == nullptr) return false;
  OmpSetNumThreads(threads);
  dnnl_stream_t stream = nullptr;
  if (dnnl_stream_create(&stream, Engine(), dnnl_stream_default_flags) != dnnl_success) return false;
  std::unique_ptr<dnnl_stream, dnnl_status_t (*)(dnnl_stream_t)> stream_owner(stream, dnnl_stream_destroy);
  const Plan& cp = *plan;
  // oneDNN takes non-const handles; it never writes the source memories.
  Memory user_src(cp.src_in.from, const_cast<float*>(in));
  Memory user_weights(cp.weights_in.from, const_cast<float*>(kernel));
  Memory user_dst(cp.dst_out.to, out);
  if (user_src.m == nullptr || user_weights.m == nullptr || user_dst.m == nullptr) return false;
  std::unique_ptr<Memory> src_tmp, weights_tmp, dst_tmp;
  dnnl_memory_t src = nullptr, weights = nullptr, dst = user_dst.m;
  if (!RunReorder(stream, cp.src_in, user_src.m, &src_tmp, &src, threads) ||
      !RunReorder(stream, cp.weights_in, user_weights.m, &weights_tmp, &weights, threads))
    return false;
  if (cp.dst_out.primitive != nullptr) {
    dst_tmp = std::make_unique<Memory>(cp.dst, nullptr);
    if (dst_tmp->m == nullptr) return false;
    dst = dst_tmp->m;
  }
  if (!Execute(stream, cp.conv.get(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}},
               cp.scratch_bytes))
    return false;
  return cp.dst_out.primitive == nullptr || RunReorder(stream, cp.dst_out, dst, user_dst.m, threads);
}

}  // namespace hlo::cpu
