#include "backend_cpu/lapack_call.h"

#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hlo::cpu {
namespace {

// The element type the LAPACK prefix letter names.
PrimitiveType TypeOfLetter(char c) {
  switch (c) {
    case 's': return PrimitiveType::F32;
    case 'd': return PrimitiveType::F64;
    case 'c': return PrimitiveType::C64;
    case 'z': return PrimitiveType::C128;
    default: return PrimitiveType::kInvalid;
  }
}

Layout LayoutFor(int64_t rank, bool matrix) {
  return matrix ? LapackLayout(rank) : RowMajorLayout(rank);
}

Shape WithLayout(Shape s, bool matrix) {
  s.set_layout(LayoutFor(s.rank(), matrix));
  return s;
}

}  // namespace

Layout LapackLayout(int64_t rank) {
  Layout l = RowMajorLayout(rank);
  if (rank >= 2) {
    l.minor_to_major.clear();
    l.minor_to_major.push_back(rank - 2);
    l.minor_to_major.push_back(rank - 1);
    for (int64_t d = rank - 3; d >= 0; --d) l.minor_to_major.push_back(d);
  }
  return l;
}

absl::StatusOr<LapackCall> LapackCall::Begin(const Instruction& instr,
                                             absl::Span<const Literal* const> ops,
                                             int min_operands, int max_operands, int results,
                                             uint32_t matrix_operands, uint32_t matrix_results) {
  UseSingleThreadedBlas();
  LapackCall call;
  call.instr_ = &instr;
  call.target_ = instr.AttrOr<std::string>("custom_call_target", "");
  // lapack_<letter>... (or blas_<letter>trsm_ffi of older jaxlib versions).
  const size_t letter = call.target_.find('_') + 1;
  call.type_ = letter > 0 && letter < call.target_.size() ? TypeOfLetter(call.target_[letter])
                                                          : PrimitiveType::kInvalid;
  if (call.type_ == PrimitiveType::kInvalid)
    return call.Error("the target name does not say the element type");
  const int n = static_cast<int>(ops.size());
  if (n < min_operands || n > max_operands)
    return call.Error(absl::StrCat("expects ", min_operands,
                                   min_operands == max_operands ? "" : absl::StrCat("..", max_operands),
                                   " operands, got ", n));
  for (int i = 0; i < n; ++i) {
    const Shape& s = ops[i]->shape();
    if (!s.IsArray()) return call.Error("operands must be arrays");
    call.operands_.push_back(ToLayout(*ops[i], LayoutFor(s.rank(), (matrix_operands >> i) & 1)));
  }
  if (call.operands_[0].shape().element_type() != call.type_)
    return call.Error(absl::StrCat("expects ", PrimitiveTypeName(call.type_), " operands, got ",
                                   PrimitiveTypeName(call.operands_[0].shape().element_type())));
  if (matrix_operands & 1) {
    absl::StatusOr<MatrixBatch> a = call.OperandMatrices(0, "a");
    if (!a.ok()) return a.status();
    call.a_ = *a;
  }
  const Shape& out = instr.shape();
  if (out.IsArray()) {
    if (results != 1) return call.Error(absl::StrCat("expects a tuple of ", results, " results"));
    call.tuple_ = false;
    call.results_.emplace_back(WithLayout(out, matrix_results & 1));
  } else {
    if (!out.IsTuple() || out.tuple_size() < results)
      return call.Error(absl::StrCat("expects a tuple of ", results, " results"));
    for (int64_t i = 0; i < out.tuple_size(); ++i) {
      const Shape& s = out.tuple_shape(i);
      if (!s.IsArray()) return call.Error("results must be arrays");
      call.results_.emplace_back(WithLayout(s, i < 32 && (matrix_results >> i) & 1));
    }
  }
  absl::StatusOr<FfiAttributes> attrs = InstructionFfiAttributes(instr);
  if (!attrs.ok()) return call.Error(attrs.status().message());
  call.attrs_ = *std::move(attrs);
  call.attrs_missing_ = call.attrs_.empty();
  return call;
}

PrimitiveType LapackCall::real_type() const {
  return type_ == PrimitiveType::F64 || type_ == PrimitiveType::C128 ? PrimitiveType::F64
                                                                       : PrimitiveType::F32;
}

absl::Status LapackCall::Error(absl::string_view message) const {
  return OpError(*instr_, absl::StrCat(target_, ": ", message));
}

absl::Status LapackCall::Unimplemented(absl::string_view what) const {
  return OpUnimplemented(*instr_, absl::StrCat(target_, ": ", what));
}

absl::StatusOr<MatrixBatch> LapackCall::OperandMatrices(int i, absl::string_view what) const {
  const Shape& s = operands_[i].shape();
  if (s.rank() < 2 || s.element_type() != type_)
    return Error(absl::StrCat(what, " must be a ", PrimitiveTypeName(type_),
                              " array of rank >= 2 (batch dims, rows, columns)"));
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  MatrixBatch m;
  m.batch_dims.assign(s.dims().begin(), s.dims().end() - 2);
  m.batch = 1;
  for (int64_t d : m.batch_dims) m.batch *= d;
  const int64_t rows = s.dim(s.rank() - 2), cols = s.dim(s.rank() - 1);
  if (rows > kMax || cols > kMax || rows * cols > kMax)
    return Unimplemented(absl::StrCat(what, " matrices above LAPACK's 32-bit sizes"));
  m.rows = static_cast<int>(rows);
  m.cols = static_cast<int>(cols);
  return m;
}

absl::Status LapackCall::CheckResult(int i, absl::string_view what, PrimitiveType t,
                                     absl::Span<const int64_t> batch_dims,
                                     absl::Span<const int64_t> tail) const {
  std::vector<int64_t> want(batch_dims.begin(), batch_dims.end());
  want.insert(want.end(), tail.begin(), tail.end());
  const Shape& s = results_[i].shape();
  if (s.element_type() != t || !SameInts(s.dims(), want))
    return Error(absl::StrCat("result ", i, " (", what, ") must be ", PrimitiveTypeName(t), "[",
                              absl::StrJoin(want, ","), "]"));
  return absl::OkStatus();
}

absl::Status LapackCall::CopyOperandToResult(int i, int r) {
  const Shape& in = operands_[i].shape();
  HLO_LAPACK_RETURN_IF_ERROR(
      CheckResult(r, absl::StrCat("operand ", i, " overwritten"), in.element_type(), in.dims(), {}));
  std::memcpy(results_[r].data(), operands_[i].data(), operands_[i].size_bytes());
  return absl::OkStatus();
}

absl::StatusOr<char> LapackCall::CharAttr(absl::string_view name, absl::string_view allowed,
                                          char fallback) {
  auto it = attrs_.find(std::string(name));
  if (it == attrs_.end()) {
    if (attrs_missing_ && fallback != 0) return fallback;
    return Error(absl::StrCat("missing attribute ", name, " (backend_config={", name,
                              " = <ASCII code> : ui8})"));
  }
  absl::StatusOr<int64_t> v = FfiIntAttribute(it->second, name);
  if (!v.ok()) return Error(v.status().message());
  const char c = *v >= 0 && *v < 128 ? static_cast<char>(*v) : '\0';
  if (c == '\0' || allowed.find(c) == absl::string_view::npos) {
    std::vector<std::string> ok;
    for (char a : allowed) ok.push_back(absl::StrCat(static_cast<int>(a), " ('", std::string(1, a), "')"));
    return Error(absl::StrCat("attribute ", name, " = ", *v, " is not one of ",
                              absl::StrJoin(ok, ", ")));
  }
  return c;
}

absl::StatusOr<int64_t> LapackCall::IntAttr(absl::string_view name, std::optional<int64_t> fallback) {
  auto it = attrs_.find(std::string(name));
  if (it == attrs_.end()) {
    if (attrs_missing_ && fallback.has_value()) return *fallback;
    return Error(absl::StrCat("missing attribute ", name, " (backend_config={", name, " = <n> : i32})"));
  }
  absl::StatusOr<int64_t> v = FfiIntAttribute(it->second, name);
  if (!v.ok()) return Error(v.status().message());
  return *v;
}

Literal LapackCall::Finish() && {
  const Shape& out = instr_->shape();
  if (!tuple_) {
    const Layout want = out.has_layout() ? out.layout() : RowMajorLayout(out.rank());
    return ToLayout(std::move(results_[0]), want);
  }
  std::vector<Literal> parts;
  for (size_t i = 0; i < results_.size(); ++i) {
    const Shape& s = out.tuple_shape(static_cast<int64_t>(i));
    parts.push_back(ToLayout(std::move(results_[i]), s.has_layout() ? s.layout() : RowMajorLayout(s.rank())));
  }
  return Literal::MakeTuple(std::move(parts));
}

}  // namespace hlo::cpu
