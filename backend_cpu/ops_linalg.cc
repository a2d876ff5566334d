// The linear-algebra family: dispatch (dot, ragged-dot, convolution, fft,
// batch-norm-* live in ops_dot.cc, ops_fft.cc, ops_batchnorm.cc, scaled-dot
// in ops_scaled_dot.cc) plus cholesky (LAPACK ?potrf) and triangular-solve
// (cblas_?trsm). Semantics: docs/ops-linalg.md.
#include <cblas.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/decoded_constants.h"
#include "backend_cpu/fusion_exec.h"
#include "backend_cpu/lapack_fortran.h"
#include "backend_cpu/op_eval.h"

namespace hlo::cpu {
namespace {

using c64 = std::complex<float>;
using c128 = std::complex<double>;

// Element type -> LAPACK/BLAS compute type: f32 (also f16/bf16, rounded
// back at the end), f64, c64, c128.
enum class LaType { kF32, kF64, kC64, kC128, kNone };

LaType LaTypeOf(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::F32:
    case PrimitiveType::F16:
    case PrimitiveType::BF16: return LaType::kF32;
    case PrimitiveType::F64: return LaType::kF64;
    case PrimitiveType::C64: return LaType::kC64;
    case PrimitiveType::C128: return LaType::kC128;
    default: return LaType::kNone;
  }
}

template <typename F>
auto DispatchLa(LaType t, F&& f) {
  switch (t) {
    case LaType::kF64: return f(double{});
    case LaType::kC64: return f(c64{});
    case LaType::kC128: return f(c128{});
    default: return f(float{});
  }
}

// Row-major literal -> vector<T> (exact for the native types, f16/bf16 widened).
template <typename T>
std::vector<T> ToVector(const Literal& lit) {
  const int64_t n = lit.shape().ElementCount();
  std::vector<T> v(n);
  if (static_cast<int>(sizeof(T)) == lit.element_bytes()) {
    std::memcpy(v.data(), lit.data(), n * sizeof(T));
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        v[i] = static_cast<T>(lit.GetDouble(i));
      }
    }
  }
  return v;
}

template <typename T>
void FromVector(const std::vector<T>& v, Literal& lit) {
  const int64_t n = lit.shape().ElementCount();
  if (static_cast<int>(sizeof(T)) == lit.element_bytes()) {
    std::memcpy(lit.data(), v.data(), n * sizeof(T));
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        lit.SetDouble(i, static_cast<double>(v[i]));
      }
    }
  }
}

template <typename T>
T NaNOf() {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return std::numeric_limits<T>::quiet_NaN();
  } else {
    using R = typename T::value_type;
    return T(std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN());
  }
}

absl::StatusOr<Literal> EvalCholesky(const Instruction& instr,
                                     absl::Span<const Literal* const> operands) {
  if (operands.empty()) return OpError(instr, "expects 1 operand");
  const Shape& s = operands[0]->shape();
  if (!s.IsArray() || s.rank() < 2 || s.dim(s.rank() - 1) != s.dim(s.rank() - 2))
    return OpError(instr, "operand must be a batch of square matrices");
  if (!instr.shape().IsArray() || !instr.shape().Compatible(s))
    return OpError(instr, "result shape must match the operand");
  const LaType lt = LaTypeOf(s.element_type());
  if (lt == LaType::kNone)
    return OpUnimplemented(instr, absl::StrCat("element type ", PrimitiveTypeName(s.element_type())));
  const bool lower = instr.AttrOr<bool>("lower", false);
  const int64_t n = s.dim(s.rank() - 1);
  if (n > std::numeric_limits<int>::max() / 2) return OpUnimplemented(instr, "matrix too large");
  const int64_t batch = n == 0 ? 0 : s.ElementCount() / (n * n);
  Literal tmp;
  const Literal& in = RowMajor(*operands[0], &tmp);
  Literal result = RowMajorLiteral(instr.shape());
  absl::Status st = DispatchLa(lt, [&](auto zero) -> absl::Status {
    using T = decltype(zero);
    std::vector<T> a = ToVector<T>(in);
    for (int64_t b = 0; b < batch; ++b) {
      T* m = a.data() + b * n * n;
      // Row-major lower == column-major upper (see docs).
      int info = 0;
      lapack::potrf(lower ? 'U' : 'L', static_cast<int>(n), m, static_cast<int>(std::max<int64_t>(n, 1)), &info);
      if (info < 0) return absl::InternalError(absl::StrCat("?potrf: bad argument ", -info));
      if (info > 0) {
        std::fill(m, m + n * n, NaNOf<T>());
        continue;
      }
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j)
          if (lower ? j > i : j < i) m[i * n + j] = T(0);
    }
    FromVector<T>(a, result);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return ToLayout(std::move(result), instr.shape().layout());
}

template <typename T>
void Trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, CBLAS_DIAG diag, int m, int n,
          const T* a, int lda, T* b, int ldb) {
  if constexpr (std::is_same_v<T, float>) {
    cblas_strsm(CblasRowMajor, side, uplo, trans, diag, m, n, 1.0f, a, lda, b, ldb);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dtrsm(CblasRowMajor, side, uplo, trans, diag, m, n, 1.0, a, lda, b, ldb);
  } else if constexpr (std::is_same_v<T, c64>) {
    const c64 one(1, 0);
    cblas_ctrsm(CblasRowMajor, side, uplo, trans, diag, m, n, &one, a, lda, b, ldb);
  } else {
    const c128 one(1, 0);
    cblas_ztrsm(CblasRowMajor, side, uplo, trans, diag, m, n, &one, a, lda, b, ldb);
  }
}

absl::StatusOr<Literal> EvalTriangularSolve(const Instruction& instr,
                                            absl::Span<const Literal* const> operands) {
  if (operands.size() < 2) return OpError(instr, "expects 2 operands");
  const Shape& as = operands[0]->shape();
  const Shape& bs = operands[1]->shape();
  if (!as.IsArray() || !bs.IsArray() || as.rank() < 2 || as.rank() != bs.rank() ||
      as.element_type() != bs.element_type())
    return OpError(instr, "operands must be arrays of the same rank (>= 2) and type");
  if (!instr.shape().IsArray() || !instr.shape().Compatible(bs))
    return OpError(instr, "result shape must match b");
  const int64_t r = as.rank();
  const int64_t k = as.dim(r - 1);
  if (as.dim(r - 2) != k) return OpError(instr, "a must be square");
  for (int64_t i = 0; i < r - 2; ++i)
    if (as.dim(i) != bs.dim(i)) return OpError(instr, "batch dimensions differ");
  const bool left = instr.AttrOr<bool>("left_side", false);
  const bool lower = instr.AttrOr<bool>("lower", false);
  const bool unit = instr.AttrOr<bool>("unit_diagonal", false);
  const std::string ta = instr.AttrOr<std::string>("transpose_a", "NO_TRANSPOSE");
  CBLAS_TRANSPOSE trans;
  if (ta == "NO_TRANSPOSE") {
    trans = CblasNoTrans;
  } else if (ta == "TRANSPOSE") {
    trans = CblasTrans;
  } else if (ta == "ADJOINT") {
    trans = CblasConjTrans;
  } else {
    return OpError(instr, absl::StrCat("bad transpose_a ", ta));
  }
  const int64_t m = bs.dim(r - 2), n = bs.dim(r - 1);
  if ((left ? m : n) != k) return OpError(instr, "a does not match the solved dimension of b");
  const LaType lt = LaTypeOf(as.element_type());
  if (lt == LaType::kNone)
    return OpUnimplemented(instr, absl::StrCat("element type ", PrimitiveTypeName(as.element_type())));
  if (m > std::numeric_limits<int>::max() || n > std::numeric_limits<int>::max())
    return OpUnimplemented(instr, "matrix too large");
  Literal at, bt;
  const Literal& a = RowMajor(*operands[0], &at);
  const Literal& b = RowMajor(*operands[1], &bt);
  Literal result = RowMajorLiteral(instr.shape());
  const int64_t batch = (m * n == 0) ? 0 : bs.ElementCount() / (m * n);
  DispatchLa(lt, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> av = ToVector<T>(a);
    std::vector<T> bv = ToVector<T>(b);
    for (int64_t i = 0; i < batch; ++i) {
      Trsm<T>(left ? CblasLeft : CblasRight, lower ? CblasLower : CblasUpper, trans,
              unit ? CblasUnit : CblasNonUnit, static_cast<int>(m), static_cast<int>(n),
              av.data() + i * k * k, static_cast<int>(std::max<int64_t>(k, 1)),
              bv.data() + i * m * n, static_cast<int>(std::max<int64_t>(n, 1)));
    }
    FromVector<T>(bv, result);
    return 0;
  });
  return ToLayout(std::move(result), instr.shape().layout());
}

}  // namespace

absl::StatusOr<Literal> EvalLinalg(const Instruction& instr,
                                   absl::Span<const Literal* const> operands, OpContext& ctx) {
  switch (instr.opcode()) {
    case Opcode::kDot: {
      const Literal* packed[2] = {nullptr, nullptr};
      if (ctx.decoded_constants != nullptr && instr.operand_count() == 2) {
        // A dot of a widened bf16 fusion is a copy: its data is the original's.
        const Instruction* key = ctx.fusion_plans != nullptr ? ctx.fusion_plans->OriginalOf(&instr) : &instr;
        for (int i = 0; i < 2; ++i) packed[i] = ctx.decoded_constants->Find(key, i);
      }
      return LinalgEvalDot(instr, operands, packed);
    }
    case Opcode::kRaggedDot: return LinalgEvalRaggedDot(instr, operands);
    case Opcode::kScaledDot: return LinalgEvalScaledDot(instr, operands);
    case Opcode::kConvolution: return LinalgEvalConvolution(instr, operands);
    case Opcode::kFft: return LinalgEvalFft(instr, operands);
    case Opcode::kCholesky: return EvalCholesky(instr, operands);
    case Opcode::kTriangularSolve: return EvalTriangularSolve(instr, operands);
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad: return LinalgEvalBatchNorm(instr, operands);
    default: return OpUnimplemented(instr, "op");
  }
}

}  // namespace hlo::cpu
