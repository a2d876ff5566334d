// CPU implementations of JAX's LAPACK custom-call targets
// (lapack_<s|d|c|z><routine>_ffi, api_version=API_VERSION_TYPED_FFI), one
// function per routine serving its four element types. Registered in
// custom_call.cc; contracts in docs/semantics.md.
#pragma once

#include "backend_cpu/op_eval.h"

namespace hlo::cpu {

// custom_call_lapack.cc: factorizations, the triangular and tridiagonal solves.
absl::StatusOr<Literal> LapackGetrf(const Instruction&, absl::Span<const Literal* const>, OpContext&);
absl::StatusOr<Literal> LapackPotrf(const Instruction&, absl::Span<const Literal* const>, OpContext&);
absl::StatusOr<Literal> LapackGeqrf(const Instruction&, absl::Span<const Literal* const>, OpContext&);
absl::StatusOr<Literal> LapackGeqp3(const Instruction&, absl::Span<const Literal* const>, OpContext&);
absl::StatusOr<Literal> LapackOrgqr(const Instruction&, absl::Span<const Literal* const>, OpContext&);
absl::StatusOr<Literal> LapackTrsm(const Instruction&, absl::Span<const Literal* const>, OpContext&);
absl::StatusOr<Literal> LapackGtsv(const Instruction&, absl::Span<const Literal* const>, OpContext&);

// custom_call_lapack_forms.cc: Hessenberg, tridiagonal and Schur forms.
absl::StatusOr<Literal> LapackGehrd(const Instruction&, absl::Span<const Literal* const>, OpContext&);
absl::StatusOr<Literal> LapackSytrd(const Instruction&, absl::Span<const Literal* const>, OpContext&);
absl::StatusOr<Literal> LapackGees(const Instruction&, absl::Span<const Literal* const>, OpContext&);

// custom_call_lapack_eig.cc: eigen- and singular value decompositions.
absl::StatusOr<Literal> LapackSyevd(const Instruction&, absl::Span<const Literal* const>, OpContext&);
absl::StatusOr<Literal> LapackGesdd(const Instruction&, absl::Span<const Literal* const>, OpContext&);
absl::StatusOr<Literal> LapackGesvd(const Instruction&, absl::Span<const Literal* const>, OpContext&);
absl::StatusOr<Literal> LapackGeev(const Instruction&, absl::Span<const Literal* const>, OpContext&);

}  // namespace hlo::cpu
