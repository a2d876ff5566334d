#include "backend_cpu/donation.h"

#include <utility>

namespace hlo::cpu {
namespace {
thread_local absl::Span<Literal* const> current_donations;
thread_local const absl::FunctionRef<void(size_t)>* current_taken = nullptr;
}  // namespace

Literal* DonatedOperand(size_t i) {
  return i < current_donations.size() ? current_donations[i] : nullptr;
}

Literal TakeDonated(size_t i) {
  Literal out = std::move(*current_donations[i]);
  *current_donations[i] = Literal();
  if (current_taken != nullptr) (*current_taken)(i);
  return out;
}

ScopedDonations::ScopedDonations(absl::Span<Literal* const> donated,
                                 absl::FunctionRef<void(size_t)> taken)
    : previous_(current_donations), previous_taken_(current_taken), taken_(taken) {
  current_donations = donated;
  current_taken = &taken_;
}

ScopedDonations::~ScopedDonations() {
  current_donations = previous_;
  current_taken = previous_taken_;
}

}  // namespace hlo::cpu
