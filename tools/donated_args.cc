#include "tools/donated_args.h"

#include <algorithm>

namespace hlo {

DonatedArguments::DonatedArguments(const Module& module, absl::Span<const Literal> args)
    : args_(args) {
  std::vector<int64_t> params;
  for (const InputOutputAlias& a : module.header().input_output_alias) params.push_back(a.parameter);
  for (const BufferDonor& d : module.header().buffer_donor) params.push_back(d.parameter);
  std::sort(params.begin(), params.end());
  params.erase(std::unique(params.begin(), params.end()), params.end());
  for (int64_t p : params)
    if (p >= 0 && p < static_cast<int64_t>(args.size())) parameters_.push_back(p);
}

std::vector<Literal*> DonatedArguments::Prepare() {
  if (parameters_.empty()) return {};
  copies_.clear();
  copies_.reserve(parameters_.size());
  std::vector<Literal*> donated(args_.size(), nullptr);
  for (int64_t p : parameters_) {
    copies_.push_back(args_[p]);
    donated[p] = &copies_.back();
  }
  return donated;
}

}  // namespace hlo
