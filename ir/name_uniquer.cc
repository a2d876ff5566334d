#include "ir/name_uniquer.h"

#include "absl/strings/str_cat.h"
#include "ir/instruction_name.h"

namespace hlo {

void NameUniquer::Fill() {
  if (comp_ != nullptr)
    for (const Instruction* inst : comp_->instructions()) used_.insert(inst->name());
  if (module_ != nullptr)
    for (const Computation* c : module_->computations()) used_.insert(c->name());
  comp_ = nullptr;
  module_ = nullptr;
}

std::string NameUniquer::Get(absl::string_view base_in) {
  Fill();
  // Sanitized as XLA's uniquer does, so that no pass can name an
  // instruction `pred` that the printer would write and no parser accept.
  std::string base = SanitizedInstructionName(base_in.empty() ? "x" : base_in);
  if (used_.insert(base).second) return base;
  // "name.3" taken: continue the numbering of "name" (name.4, ...) rather
  // than growing "name.3.1".
  size_t dot = base.rfind('.');
  if (dot != std::string::npos && dot > 0 && dot + 1 < base.size() &&
      base.find_first_not_of("0123456789", dot + 1) == std::string::npos)
    base = base.substr(0, dot);
  int64_t& n = next_[base];
  for (;;) {
    std::string candidate = absl::StrCat(base, ".", ++n);
    if (used_.insert(candidate).second) return candidate;
  }
}

}  // namespace hlo
