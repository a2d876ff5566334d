// dynamic-padder: set-dimension-size with a runtime size below the bound;
// reductions and dots ignore the padding past it, get-dimension-size reads
// it, and the module becomes static again where every use is handled
// (XLA's DynamicPadder). The rewrite is the CPU backend's
// (backend_cpu/dynamic_padding.h), which every run applies anyway; the
// pass shows it in the text.
#include "backend_cpu/dynamic_padding.h"
#include "passes/passes.h"

namespace hlo {
namespace {

class DynamicPadder : public Pass {
 public:
  absl::string_view name() const override { return "dynamic-padder"; }
  absl::StatusOr<bool> Run(Module& module) override { return cpu::PadDynamicDimensions(module); }
};

}  // namespace

std::unique_ptr<Pass> CreateDynamicPadderPass() { return std::make_unique<DynamicPadder>(); }

}  // namespace hlo
