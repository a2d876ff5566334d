// fft of the linalg family, through FFTW (fftwf_* for c64/f32, fftw_* for
// c128/f64). Plans are created under one mutex (FFTW's planner is not
// thread safe) with FFTW_ESTIMATE and cached by (precision, kind, lengths,
// batch); execution uses the new-array interface on fftw_malloc'ed buffers
// (always out of place, so alignment and placement match the plan).
// FFT is unnormalised; IFFT and IRFFT are scaled by 1/prod(fft_length) as
// XLA does.
#include <fftw3.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "backend_cpu/op_eval.h"

namespace hlo::cpu {

absl::StatusOr<Literal> LinalgEvalFft(const Instruction& instr,
                                      absl::Span<const Literal* const> operands);

namespace {

enum class FftKind { kFft, kIfft, kRfft, kIrfft };

struct PlanKey {
  bool dbl;
  FftKind kind;
  std::vector<int> n;
  int64_t howmany;
  bool operator<(const PlanKey& o) const {
    return std::tie(dbl, kind, n, howmany) < std::tie(o.dbl, o.kind, o.n, o.howmany);
  }
};

absl::Mutex& PlanMutex() {
  static absl::Mutex* mu = new absl::Mutex;
  return *mu;
}
// Plans live for the whole process (bounded count; see kMaxPlans).
std::map<PlanKey, void*>& PlanCache() {
  static auto* cache = new std::map<PlanKey, void*>;
  return *cache;
}
constexpr size_t kMaxPlans = 512;

template <bool kDouble>
struct Fftw;

template <>
struct Fftw<false> {
  using Real = float;
  using Cplx = fftwf_complex;
  using Plan = fftwf_plan;
  static void* Malloc(size_t n) { return fftwf_malloc(n); }
  static void Free(void* p) { fftwf_free(p); }
  static Plan MakePlan(FftKind kind, const std::vector<int>& n, int howmany, void* in, void* out) {
    const int rank = static_cast<int>(n.size());
    int total = 1;
    for (int v : n) total *= v;
    const int last_c = n.back() / 2 + 1;
    const int ctotal = total / n.back() * last_c;
    switch (kind) {
      case FftKind::kFft:
      case FftKind::kIfft:
        return fftwf_plan_many_dft(rank, n.data(), howmany, static_cast<Cplx*>(in), nullptr, 1,
                                   total, static_cast<Cplx*>(out), nullptr, 1, total,
                                   kind == FftKind::kFft ? FFTW_FORWARD : FFTW_BACKWARD,
                                   FFTW_ESTIMATE);
      case FftKind::kRfft:
        return fftwf_plan_many_dft_r2c(rank, n.data(), howmany, static_cast<Real*>(in), nullptr,
                                       1, total, static_cast<Cplx*>(out), nullptr, 1, ctotal,
                                       FFTW_ESTIMATE);
      case FftKind::kIrfft:
        return fftwf_plan_many_dft_c2r(rank, n.data(), howmany, static_cast<Cplx*>(in), nullptr,
                                       1, ctotal, static_cast<Real*>(out), nullptr, 1, total,
                                       FFTW_ESTIMATE);
    }
    return nullptr;
  }
  static void Execute(Plan p, FftKind kind, void* in, void* out) {
    switch (kind) {
      case FftKind::kFft:
      case FftKind::kIfft:
        fftwf_execute_dft(p, static_cast<Cplx*>(in), static_cast<Cplx*>(out));
        break;
      case FftKind::kRfft:
        fftwf_execute_dft_r2c(p, static_cast<Real*>(in), static_cast<Cplx*>(out));
        break;
      case FftKind::kIrfft:
        fftwf_execute_dft_c2r(p, static_cast<Cplx*>(in), static_cast<Real*>(out));
        break;
    }
  }
  static void Destroy(Plan p) { fftwf_destroy_plan(p); }
};

template <>
struct Fftw<true> {
  using Real = double;
  using Cplx = fftw_complex;
  using Plan = fftw_plan;
  static void* Malloc(size_t n) { return fftw_malloc(n); }
  static void Free(void* p) { fftw_free(p); }
  static Plan MakePlan(FftKind kind, const std::vector<int>& n, int howmany, void* in, void* out) {
    const int rank = static_cast<int>(n.size());
    int total = 1;
    for (int v : n) total *= v;
    const int last_c = n.back() / 2 + 1;
    const int ctotal = total / n.back() * last_c;
    switch (kind) {
      case FftKind::kFft:
      case FftKind::kIfft:
        return fftw_plan_many_dft(rank, n.data(), howmany, static_cast<Cplx*>(in), nullptr, 1,
                                  total, static_cast<Cplx*>(out), nullptr, 1, total,
                                  kind == FftKind::kFft ? FFTW_FORWARD : FFTW_BACKWARD,
                                  FFTW_ESTIMATE);
      case FftKind::kRfft:
        return fftw_plan_many_dft_r2c(rank, n.data(), howmany, static_cast<Real*>(in), nullptr, 1,
                                      total, static_cast<Cplx*>(out), nullptr, 1, ctotal,
                                      FFTW_ESTIMATE);
      case FftKind::kIrfft:
        return fftw_plan_many_dft_c2r(rank, n.data(), howmany, static_cast<Cplx*>(in), nullptr, 1,
                                      ctotal, static_cast<Real*>(out), nullptr, 1, total,
                                      FFTW_ESTIMATE);
    }
    return nullptr;
  }
  static void Execute(Plan p, FftKind kind, void* in, void* out) {
    switch (kind) {
      case FftKind::kFft:
      case FftKind::kIfft:
        fftw_execute_dft(p, static_cast<Cplx*>(in), static_cast<Cplx*>(out));
        break;
      case FftKind::kRfft:
        fftw_execute_dft_r2c(p, static_cast<Real*>(in), static_cast<Cplx*>(out));
        break;
      case FftKind::kIrfft:
        fftw_execute_dft_c2r(p, static_cast<Cplx*>(in), static_cast<Real*>(out));
        break;
    }
  }
  static void Destroy(Plan p) { fftw_destroy_plan(p); }
};

struct FftwBuf {
  void* p = nullptr;
  void (*free_fn)(void*) = nullptr;
  ~FftwBuf() {
    if (p) free_fn(p);
  }
};

// Runs the transform: `in` holds in_bytes of input (row-major), `out`
// receives out_bytes. Returns false if FFTW could not plan it.
template <bool kDouble>
bool RunFft(FftKind kind, const std::vector<int>& n, int howmany, const void* in, size_t in_bytes,
            void* out, size_t out_bytes) {
  using F = Fftw<kDouble>;
  FftwBuf ib, ob;
  ib.p = F::Malloc(std::max<size_t>(in_bytes, 16));
  ib.free_fn = &F::Free;
  ob.p = F::Malloc(std::max<size_t>(out_bytes, 16));
  ob.free_fn = &F::Free;
  if (ib.p == nullptr || ob.p == nullptr) return false;
  typename F::Plan plan = nullptr;
  bool cached = false;
  const PlanKey key{kDouble, kind, n, howmany};
  {
    absl::MutexLock lock(&PlanMutex());
    auto it = PlanCache().find(key);
    if (it != PlanCache().end()) {
      plan = static_cast<typename F::Plan>(it->second);
      cached = true;
    } else {
      // FFTW_ESTIMATE does not touch the arrays' contents.
      plan = F::MakePlan(kind, n, howmany, ib.p, ob.p);
      if (plan != nullptr && PlanCache().size() < kMaxPlans) {
        PlanCache()[key] = static_cast<void*>(plan);
        cached = true;
      }
    }
  }
  if (plan == nullptr) return false;
  std::memcpy(ib.p, in, in_bytes);
  F::Execute(plan, kind, ib.p, ob.p);
  std::memcpy(out, ob.p, out_bytes);
  if (!cached) {
    absl::MutexLock lock(&PlanMutex());
    F::Destroy(plan);
  }
  return true;
}

}  // namespace

absl::StatusOr<Literal> LinalgEvalFft(const Instruction& instr,
                                      absl::Span<const Literal* const> operands) {
  if (operands.empty()) return OpError(instr, "expects 1 operand");
  const std::string* type_s = instr.GetAttr<std::string>("fft_type");
  const std::vector<int64_t>* len = instr.GetAttr<std::vector<int64_t>>("fft_length");
  if (type_s == nullptr || len == nullptr) return OpError(instr, "missing fft_type or fft_length");
  FftKind kind;
  if (*type_s == "FFT") {
    kind = FftKind::kFft;
  } else if (*type_s == "IFFT") {
    kind = FftKind::kIfft;
  } else if (*type_s == "RFFT") {
    kind = FftKind::kRfft;
  } else if (*type_s == "IRFFT") {
    kind = FftKind::kIrfft;
  } else {
    return OpError(instr, absl::StrCat("unknown fft_type ", *type_s));
  }
  const Shape& is = operands[0]->shape();
  const Shape& os = instr.shape();
  const int64_t r = static_cast<int64_t>(len->size());
  if (r < 1 || r > 3) return OpError(instr, "fft_length must have 1 to 3 entries");
  if (!is.IsArray() || !os.IsArray() || is.rank() < r || os.rank() != is.rank())
    return OpError(instr, "operand rank is smaller than fft_length");
  const PrimitiveType it = is.element_type(), ot = os.element_type();
  bool dbl;
  switch (kind) {
    case FftKind::kFft:
    case FftKind::kIfft:
      if (!IsComplex(it) || it != ot) return OpError(instr, "FFT/IFFT needs complex operand and result of the same type");
      dbl = it == PrimitiveType::C128;
      break;
    case FftKind::kRfft:
      if (!((it == PrimitiveType::F32 && ot == PrimitiveType::C64) ||
            (it == PrimitiveType::F64 && ot == PrimitiveType::C128)))
        return OpError(instr, "RFFT needs f32 -> c64 or f64 -> c128");
      dbl = it == PrimitiveType::F64;
      break;
    case FftKind::kIrfft:
    default:
      if (!((it == PrimitiveType::C64 && ot == PrimitiveType::F32) ||
            (it == PrimitiveType::C128 && ot == PrimitiveType::F64)))
        return OpError(instr, "IRFFT needs c64 -> f32 or c128 -> f64");
      dbl = it == PrimitiveType::C128;
      break;
  }
  // Check the transformed dims.
  const int64_t rank = is.rank();
  for (int64_t i = 0; i < rank - r; ++i)
    if (is.dim(i) != os.dim(i)) return OpError(instr, "batch dimensions of operand and result differ");
  int64_t total = 1;
  std::vector<int> n;
  for (int64_t j = 0; j < r; ++j) {
    const int64_t L = (*len)[j];
    const int64_t d = rank - r + j;
    if (L < 0 || L > (int64_t{1} << 30)) return OpError(instr, "bad fft_length");
    const bool last = j == r - 1;
    int64_t want_in = L, want_out = L;
    if (last && kind == FftKind::kRfft) want_out = L / 2 + 1;
    if (last && kind == FftKind::kIrfft) want_in = L / 2 + 1;
    if (is.dim(d) != want_in || os.dim(d) != want_out)
      return OpError(instr, absl::StrCat("dimension ", d, " does not match fft_length"));
    n.push_back(static_cast<int>(L));
    total *= L;
  }
  Literal result = RowMajorLiteral(os);
  int64_t howmany = 1;
  for (int64_t i = 0; i < rank - r; ++i) howmany *= is.dim(i);
  if (total == 0 || howmany == 0) return ToLayout(std::move(result), os.layout());
  if (howmany > (int64_t{1} << 30) || total * howmany > (int64_t{1} << 40))
    return OpUnimplemented(instr, "FFT too large");
  Literal tmp;
  const Literal& in = RowMajor(*operands[0], &tmp);
  const int ebytes_in = PrimitiveTypeByteSize(it);
  const int ebytes_out = PrimitiveTypeByteSize(ot);
  const size_t in_bytes = static_cast<size_t>(is.ElementCount()) * ebytes_in;
  const size_t out_bytes = static_cast<size_t>(os.ElementCount()) * ebytes_out;
  const bool ok = dbl ? RunFft<true>(kind, n, static_cast<int>(howmany), in.data(), in_bytes,
                                     result.data(), out_bytes)
                      : RunFft<false>(kind, n, static_cast<int>(howmany), in.data(), in_bytes,
                                      result.data(), out_bytes);
  if (!ok) return OpUnimplemented(instr, "FFTW could not plan this transform");
  if (kind == FftKind::kIfft || kind == FftKind::kIrfft) {
    const int64_t cnt = os.ElementCount() * (IsComplex(ot) ? 2 : 1);
    if (dbl) {
      double* p = reinterpret_cast<double*>(result.data());
      const double s = static_cast<double>(total);
      for (int64_t i = 0; i < cnt; ++i) p[i] /= s;
    } else {
      float* p = reinterpret_cast<float*>(result.data());
      const float s = static_cast<float>(total);
      for (int64_t i = 0; i < cnt; ++i) p[i] /= s;
    }
  }
  return ToLayout(std::move(result), os.layout());
}

}  // namespace hlo::cpu
