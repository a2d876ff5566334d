// Operands handed over to the kernel that consumes them last.
//
// When an instruction is the last reader of an operand value that its
// computation owns (made by an earlier instruction, or moved in as an owned
// argument), the executor donates that value to the kernel: the kernel may
// move from it, e.g. to update a dynamic-update-slice or scatter operand in
// place or to put it into a tuple without copying, as XLA's buffer
// assignment lets such ops reuse a dying operand's buffer.
//
// The donations are set for the kernel call on the calling thread only
// (thread-local), so a kernel takes what it wants at its start, before it
// calls computations or hands work to the pool.
#pragma once

#include <cstddef>

#include "absl/functional/function_ref.h"
#include "absl/types/span.h"
#include "ir/literal.h"

namespace hlo::cpu {

// The value of operand `i` if it is donated to the running kernel, else
// nullptr (to look at it; take it with TakeDonated). Only a value's last
// operand slot is donated: a kernel that takes operand i must be done with
// reading any earlier operand that may be the same value (tuple(x, x) copies
// slot 0, then takes slot 1), and must not read operand i afterwards.
Literal* DonatedOperand(size_t i);

// Moves donated operand `i` out (DonatedOperand(i) must be non-null) and
// tells the executor, which stops counting its bytes as live.
Literal TakeDonated(size_t i);

// Sets the donations of one kernel call (nullptr entries: not donated) and
// restores the previous ones when it goes out of scope (calls nest).
// `taken(i)` is called when the kernel takes operand i.
class ScopedDonations {
 public:
  ScopedDonations(absl::Span<Literal* const> donated, absl::FunctionRef<void(size_t)> taken);
  ~ScopedDonations();
  ScopedDonations(const ScopedDonations&) = delete;
  ScopedDonations& operator=(const ScopedDonations&) = delete;

 private:
  absl::Span<Literal* const> previous_;
  const absl::FunctionRef<void(size_t)>* previous_taken_;
  absl::FunctionRef<void(size_t)> taken_;
};

}  // namespace hlo::cpu
